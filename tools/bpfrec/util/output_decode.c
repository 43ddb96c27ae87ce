// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding the user's objects' records with their BTF (output_decode.h).
 * Only what reads unambiguously is decoded: integers, bools, enums (by
 * name), chars arrays (as text).  Anything else of the struct, nested
 * structs and other arrays included, is shown in hex, so that nothing of
 * the record is hidden.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "util/output_decode.h"
#include "util/perf_data/perf_data.h"
#include "util/printable.h"
/* the event names record gives the channels */
#include "util/user_obj.h"

struct output_decoder {
	struct btf *btf;
	__u32 type_id;
	__u32 size;
	const char *name;		/* the struct's, in btf */
};

const char *output_decoder_struct(const struct output_decoder *d)
{
	return d->name;
}

const char *output_channel(const char *name, const char **map)
{
	if (!name)
		return NULL;
	if (!strncmp(name, UOBJ_PERF_PREFIX, strlen(UOBJ_PERF_PREFIX))) {
		*map = name + strlen(UOBJ_PERF_PREFIX);
		return "bpf-output";
	}
	if (!strncmp(name, UOBJ_RINGBUF_PREFIX, strlen(UOBJ_RINGBUF_PREFIX))) {
		*map = name + strlen(UOBJ_RINGBUF_PREFIX);
		return "ringbuf";
	}
	return NULL;
}

/*
 * The BTF of the object that map @map_id (whose own BTF is @btf_id)
 * belongs to.  A map without keys and values (ring buffers, perf event
 * arrays) has none of its own: the programs that use the map have their
 * object's.  Ids, not the map's facts: a fact the reader hands out lasts
 * until its next look-up, and the programs' come first.
 */
static struct btf *object_btf(struct pd_reader *r, __u32 map_id, __u32 btf_id)
{
	struct pd_fact_iter it = {};
	const struct pd_prog *p;
	const struct pd_btf *b;
	__u32 id, i;

	while (!btf_id && pd_reader_next_fact(r, PD_PROG, &it, &id)) {
		p = pd_reader_prog(r, id);
		for (i = 0; p && (p->flags & PD_F_OBJECT) && i < p->nr_map_ids; i++)
			if (p->map_ids[i] == map_id)
				btf_id = p->btf_id;
	}
	b = btf_id ? pd_reader_btf(r, btf_id) : NULL;
	return b && b->data ? btf__new(b->data, b->data_len) : NULL;
}

/*
 * The struct of records of @size bytes, if one alone can be: a record is
 * padded by less than 8 bytes (a sample's raw data ends 8-byte aligned).
 */
static __s32 struct_of_size(const struct btf *btf, size_t size)
{
	__u32 i, n = btf__type_cnt(btf);
	__s32 found = -1;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		/* an anonymous struct is a map's definition, not a record's */
		if (!btf_is_struct(t) || !t->name_off || !t->size || t->size > size ||
		    size - t->size >= 8)
			continue;
		if (found > 0)
			return -1;
		found = i;
	}
	return found;
}

/*
 * The struct of @map's records, where the BTF tells it unambiguously:
 * the one the user named (--decode MAP=STRUCT), else one named like the
 * map, or like its singular ("events": "event"), else the only struct of
 * the records' @size.
 */
static __s32 find_struct(const struct btf *btf, const char *map, const char *want, size_t size)
{
	char one[PD_NAME_LEN];
	size_t len = strlen(map);
	__s32 id;

	if (want)
		return btf__find_by_name_kind(btf, want, BTF_KIND_STRUCT);
	id = btf__find_by_name_kind(btf, map, BTF_KIND_STRUCT);
	if (id > 0)
		return id;
	if (len > 1 && len < sizeof(one) && map[len - 1] == 's') {
		snprintf(one, sizeof(one), "%.*s", (int)len - 1, map);
		id = btf__find_by_name_kind(btf, one, BTF_KIND_STRUCT);
		if (id > 0)
			return id;
	}
	return size ? struct_of_size(btf, size) : -1;
}

static const struct btf_type *skip_mods(const struct btf *btf, __u32 id);

/*
 * The BTF comes from the file, and libbpf checks little of it: a struct
 * is decoded only if every member the decoder reads has a type, a name,
 * a whole-byte offset, and lies inside the struct (whose size the record
 * is checked against).  Anything else is shown in hex, never read past.
 */
static bool struct_ok(const struct btf *btf, const struct btf_type *st)
{
	const struct btf_member *m = btf_members(st);
	const struct btf_type *t;
	__u32 off, size;
	__s64 rsize;
	int i;

	if (!btf_is_struct(st) || !st->size || st->size > OUTPUT_MAX_STRUCT)
		return false;
	for (i = 0; i < btf_vlen(st); i++, m++) {
		if (btf_member_bitfield_size(st, i))
			continue;
		off = btf_member_bit_offset(st, i);
		t = skip_mods(btf, m->type);
		if (off % 8 || !t || !btf__name_by_offset(btf, m->name_off))
			return false;
		rsize = btf__resolve_size(btf, m->type);
		size = btf_is_int(t) || btf_is_enum(t) ? t->size : rsize > 0 ? rsize : 0;
		if (rsize < 0 || size > st->size || off / 8 > st->size - size)
			return false;
		if (btf_is_array(t) && btf_array(t)->nelems > st->size)
			return false;
	}
	return true;
}

struct output_decoder *output_decoder_new(struct pd_reader *r, const char *map, const char *want,
					  size_t size, __u32 *map_id)
{
	struct pd_fact_iter it = {};
	struct output_decoder *d;
	const struct pd_map *m;
	struct btf *btf;
	__s32 type_id;
	__u32 id;

	*map_id = 0;
	while (pd_reader_next_fact(r, PD_MAP, &it, &id)) {
		m = pd_reader_map(r, id);
		/* the kernel keeps 15 characters of a map's name */
		if (!m || !(m->flags & PD_F_OBJECT) || strncmp(m->name, map, PD_NAME_LEN - 1))
			continue;
		*map_id = id;
		btf = object_btf(r, id, m->btf_id);
		if (!btf)
			continue;
		type_id = find_struct(btf, map, want, size);
		if (type_id <= 0 || !struct_ok(btf, btf__type_by_id(btf, type_id))) {
			btf__free(btf);
			continue;
		}
		d = calloc(1, sizeof(*d));
		if (!d) {
			btf__free(btf);
			return NULL;
		}
		d->btf = btf;
		d->type_id = type_id;
		d->size = btf__type_by_id(btf, type_id)->size;
		d->name = btf__name_by_offset(btf, btf__type_by_id(btf, type_id)->name_off);
		return d;
	}
	return NULL;
}

void output_decoder_free(struct output_decoder *d)
{
	if (!d)
		return;
	btf__free(d->btf);
	free(d);
}

void output_hex(const void *data, size_t size, char *buf, size_t len)
{
	const __u8 *p = data;
	size_t i, pos = 0;

	buf[0] = 0;
	for (i = 0; i < size; i++) {
		if (pos + 3 > len) {
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			return;
		}
		pos += snprintf(buf + pos, len - pos, "%02x", p[i]);
	}
}

/* The type under modifiers and typedefs; NULL for a loop or a bad id. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth = 0;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)) && depth++ < 32)
		t = btf__type_by_id(btf, t->type);
	return t && !btf_is_mod(t) && !btf_is_typedef(t) ? t : NULL;
}

static __u64 load(const void *p, __u32 size)
{
	__u64 v = 0;

	/* little-endian, as the BPF programs wrote it on this machine */
	memcpy(&v, p, size > 8 ? 8 : size);
	return v;
}

static __s64 sign_extend(__u64 v, __u32 size)
{
	int shift = 64 - 8 * size;

	return size >= 8 ? (__s64)v : (__s64)(v << shift) >> shift;
}

/* Printable text up to the first NUL, other bytes as \xNN. */
static void text(const char *p, __u32 n, char *out, size_t len)
{
	size_t pos = 0;
	__u32 i;

	out[0] = 0;
	for (i = 0; i < n && p[i] && pos + 5 < len; i++) {
		if (isprint((unsigned char)p[i]) && p[i] != '\\' && p[i] != ' ')
			out[pos++] = p[i];
		else
			pos += snprintf(out + pos, len - pos, "\\x%02x", (__u8)p[i]);
	}
	out[pos] = 0;
}

/* One member into @f; its strings at *@pos of @buf. */
static void member(const struct btf *btf, const struct btf_type *st, int idx,
		   const char *data, struct output_field *f, char *buf, size_t len, size_t *pos)
{
	const struct btf_member *m = btf_members(st) + idx;
	const struct btf_type *t = skip_mods(btf, m->type), *elem;
	char *s = buf + *pos;
	size_t room = len - *pos;
	const struct btf_enum *e;
	__u64 v;
	int i;

	/* a name from the file: escaped like any text shown */
	f->name = printable(btf__name_by_offset(btf, m->name_off), s, room / 2);
	*pos += strlen(s) + 1;
	s = buf + *pos;
	room = len - *pos;
	f->str = s;
	data += btf_member_bit_offset(st, idx) / 8;
	s[0] = 0;
	if (btf_is_int(t)) {
		v = load(data, t->size);
		if (btf_int_encoding(t) & BTF_INT_BOOL) {
			snprintf(s, room, "%s", v ? "true" : "false");
		} else if (btf_int_encoding(t) & BTF_INT_SIGNED) {
			snprintf(s, room, "%lld", (long long)sign_extend(v, t->size));
		} else {
			f->is_num = true;
			f->num = v;
			snprintf(s, room, "%llu", (unsigned long long)v);
		}
	} else if (btf_is_enum(t)) {
		v = load(data, t->size);
		snprintf(s, room, "%llu", (unsigned long long)v);
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++)
			if ((__u32)e->val == (__u32)v)
				snprintf(s, room, "%s", btf__name_by_offset(btf, e->name_off));
	} else if (btf_is_array(t) && (elem = skip_mods(btf, btf_array(t)->type)) &&
		   btf_is_int(elem) && elem->size == 1) {
		text(data, btf_array(t)->nelems, s, room);
	} else {
		__s64 size = btf__resolve_size(btf, m->type);

		output_hex(data, size > 0 ? size : 0, s, room);
	}
	*pos += strlen(s) + 1;
}

int output_decode(const struct output_decoder *d, const void *data, size_t size,
		  struct output_field *f, int max, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(d->btf, d->type_id);
	size_t pos = 0;
	int i, n = 0;

	if (size < d->size)
		return -1;
	/* room for a name and a value: no field is cut to nothing */
	for (i = 0; i < btf_vlen(t) && n < max && pos + 64 < len; i++) {
		/* bit fields are left to the hex a reader can ask for */
		if (btf_member_bitfield_size(t, i))
			continue;
		memset(&f[n], 0, sizeof(f[n]));
		member(d->btf, t, i, data, &f[n], buf, len, &pos);
		n++;
	}
	return n;
}
