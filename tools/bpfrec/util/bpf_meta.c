// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_metadata_* variables: printed from the bytes and the kind of type
 * the capture found (bpf_skel/capture_prog.bpf.c), or read by id.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "util/bpf_meta.h"
/* after the types it uses: it is shared with the BPF side, which has no uapi headers */
#include "bpf_skel/capture.h"

#define META_PREFIX	"bpf_metadata_"

/* Appends to a buffer that stops at its end, as vsnprintf() into perf's does. */
struct out {
	char *p;
	size_t len, pos;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->pos + 1 >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos = o->pos + n < o->len ? o->pos + n : o->len - 1;
}

static __u64 le(const __u8 *v, __u32 n)
{
	__u64 x = 0;

	memcpy(&x, v, n < sizeof(x) ? n : sizeof(x));
	return x;
}

void meta_format(char *dst, size_t dlen, __u32 fmt, const __u8 *value, __u32 len, __u32 size)
{
	struct out o = { .p = dst, .len = dlen };
	__u64 x;
	__u32 i;

	if (!dlen)
		return;
	dst[0] = '\0';
	/* a number needs all its bytes */
	if ((fmt == CAP_META_SIGNED || fmt == CAP_META_UNSIGNED || fmt == CAP_META_PTR) &&
	    len != size)
		fmt = CAP_META_BYTES;
	switch (fmt) {
	case CAP_META_STRING:
		put(&o, "\"");
		for (i = 0; i < len && value[i]; i++)
			put(&o, isprint(value[i]) ? "%c" : "\\x%02x", value[i]);
		put(&o, "\"");
		return;
	case CAP_META_SIGNED:
	case CAP_META_UNSIGNED:
		x = le(value, len);
		switch (size) {
		case 1:
			x = fmt == CAP_META_SIGNED ? (__u64)(__s64)(__s8)x : (__u8)x;
			break;
		case 2:
			x = fmt == CAP_META_SIGNED ? (__u64)(__s64)(__s16)x : (__u16)x;
			break;
		case 4:
			x = fmt == CAP_META_SIGNED ? (__u64)(__s64)(__s32)x : (__u32)x;
			break;
		case 8:
			break;
		case 16:
			if (le(value + 8, 8))
				put(&o, "0x%llx%016llx", (unsigned long long)le(value + 8, 8),
				    (unsigned long long)x);
			else
				put(&o, "0x%llx", (unsigned long long)x);
			return;
		default:
			goto bytes;
		}
		if (fmt == CAP_META_SIGNED)
			put(&o, "%lld", (long long)x);
		else
			put(&o, "%llu", (unsigned long long)x);
		return;
	case CAP_META_PTR:
		if (size == 8) {
			x = le(value, 8);
			if (x)
				put(&o, "0x%llx", (unsigned long long)x);
			else
				put(&o, "(nil)");
			return;
		}
		break;
	}
bytes:
	/* anything else: its bytes in hex, as many as were read */
	put(&o, "0x");
	for (i = 0; i < len; i++)
		put(&o, "%02x", value[i]);
}

int meta_from_capture(struct pd_prog *p, const struct cap_prog_meta *m)
{
	__u32 nr = m->nr < CAP_META_MAX ? m->nr : CAP_META_MAX;
	const struct cap_meta_var *v;
	struct pd_meta *meta;
	__u32 i;

	meta = nr ? calloc(nr, sizeof(*meta)) : NULL;
	if (nr && !meta)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		v = &m->vars[i];
		memcpy(meta[i].key, v->name, sizeof(v->name));
		meta[i].key[sizeof(meta[i].key) - 1] = '\0';
		meta_format(meta[i].value, sizeof(meta[i].value), v->fmt, v->value,
			    v->len < sizeof(v->value) ? v->len : sizeof(v->value), v->size);
	}
	free(p->meta);
	p->meta = meta;
	p->nr_meta = nr;
	p->flags |= PD_F_META;
	return 0;
}

/* The kind of printing of BTF type @id, as the capture tells it (capture_prog.bpf.c). */
static __u32 btf_fmt(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *e;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t)
		return CAP_META_BYTES;
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED ? CAP_META_SIGNED : CAP_META_UNSIGNED;
	if (btf_is_any_enum(t))
		return btf_kflag(t) ? CAP_META_SIGNED : CAP_META_UNSIGNED;
	if (btf_is_ptr(t))
		return CAP_META_PTR;
	if (btf_is_array(t)) {
		e = btf__type_by_id(btf, btf_array(t)->type);
		while (e && (btf_is_mod(e) || btf_is_typedef(e)))
			e = btf__type_by_id(btf, e->type);
		if (e && btf_is_int(e) && e->size == 1)
			return CAP_META_STRING;
	}
	return CAP_META_BYTES;
}

/* The variables of map @fd's section (@info), into @m; 0 when it has none. */
static int map_meta(int fd, const struct bpf_map_info *info, struct cap_prog_meta *m)
{
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec, *var;
	struct btf *btf;
	__u8 *value;
	const char *name;
	__u32 i, key = 0, len;

	if (info->type != BPF_MAP_TYPE_ARRAY || info->key_size != 4 || info->max_entries != 1 ||
	    !info->btf_value_type_id || !strstr(info->name, ".rodata"))
		return 0;
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf)
		return 0;
	sec = btf__type_by_id(btf, info->btf_value_type_id);
	value = calloc(1, info->value_size ? info->value_size : 1);
	if (!sec || !btf_is_datasec(sec) || !value || bpf_map_lookup_elem(fd, &key, value)) {
		free(value);
		btf__free(btf);
		return 0;
	}
	vsi = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec) && i < CAP_META_SCAN_VARS; i++, vsi++) {
		struct cap_meta_var *v;

		var = btf__type_by_id(btf, vsi->type);
		name = var && btf_is_var(var) ? btf__name_by_offset(btf, var->name_off) : NULL;
		if (!name || strncmp(name, META_PREFIX, strlen(META_PREFIX)))
			continue;
		if (m->seen++ >= CAP_META_MAX)
			continue;
		v = &m->vars[m->nr++];
		snprintf(v->name, sizeof(v->name), "%s", name + strlen(META_PREFIX));
		v->fmt = btf_fmt(btf, var->type);
		v->size = vsi->size;
		len = vsi->size < sizeof(v->value) ? vsi->size : sizeof(v->value);
		v->len = vsi->offset <= info->value_size && len <= info->value_size - vsi->offset ?
			 len : 0;
		memcpy(v->value, value + vsi->offset, v->len);
	}
	free(value);
	btf__free(btf);
	return m->seen;
}

int meta_resolve(struct pd_prog *p)
{
	struct cap_prog_meta *m;
	struct bpf_map_info info;
	__u32 i, len;
	int fd, err = 0;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (i = 0; i < p->nr_map_ids && !m->seen; i++) {
		fd = bpf_map_get_fd_by_id(p->map_ids[i]);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			map_meta(fd, &info, m);
		close(fd);
	}
	if (m->seen)
		err = meta_from_capture(p, m);
	free(m);
	return err;
}
