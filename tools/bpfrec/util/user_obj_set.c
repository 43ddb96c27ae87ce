// SPDX-License-Identifier: GPL-2.0
/*
 * --set NAME=VALUE: a global of the user's object written before load,
 * into the initial value libbpf gives the kernel for .rodata, .data or
 * .bss.  The variable's BTF says where it is and what it is; a value that
 * does not fit its type is refused rather than cut.
 *
 * A .rodata variable must be 'const volatile': a plain 'const' one has
 * been folded into the code by the compiler, and setting it would change
 * nothing while seeming to work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/debug.h"
#include "util/user_obj.h"

struct found {
	struct bpf_map *map;
	const struct btf *btf;
	const char *sec;
	__u32 offset, size, type_id;	/* type_id: modifiers stripped */
	bool is_volatile;
};

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* The map of DATASEC @sec: libbpf names it "<object>.rodata" and the like. */
static struct bpf_map *sec_map(struct bpf_object *obj, const char *sec)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
		if (bpf_map__is_internal(map) && ends_with(bpf_map__name(map), sec))
			return map;
	return NULL;
}

/* The type under the modifiers and typedefs of @id; is one volatile? */
static __u32 skip_mods(const struct btf *btf, __u32 id, bool *is_volatile)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		if (btf_is_volatile(t))
			*is_volatile = true;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static void strip(const struct btf *btf, struct found *f, __u32 id)
{
	const struct btf_type *t;

	f->type_id = skip_mods(btf, id, &f->is_volatile);
	t = btf__type_by_id(btf, f->type_id);
	/* C puts an array's qualifiers on its elements */
	if (t && btf_is_array(t))
		skip_mods(btf, btf_array(t)->type, &f->is_volatile);
}

static bool find_var(struct bpf_object *obj, const char *name, struct found *f)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t, *v;
	__u32 id, n;
	int i;

	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_datasec(t))
			continue;
		vs = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, vs++) {
			v = btf__type_by_id(btf, vs->type);
			if (!btf_is_var(v) || strcmp(btf__name_by_offset(btf, v->name_off), name))
				continue;
			memset(f, 0, sizeof(*f));
			f->btf = btf;
			f->sec = btf__name_by_offset(btf, t->name_off);
			f->map = sec_map(obj, f->sec);
			f->offset = vs->offset;
			f->size = vs->size;
			strip(btf, f, v->type);
			return f->map != NULL;
		}
	}
	return false;
}

static int parse_int(const struct found *f, const char *name, const char *val, void *dst,
		     bool is_signed, bool is_bool)
{
	unsigned long long u, max = f->size >= 8 ? ~0ULL : (1ULL << (8 * f->size)) - 1;
	long long s, smax = (long long)(max >> 1);
	char *end;

	if (is_bool) {
		if (!strcmp(val, "true") || !strcmp(val, "1"))
			u = 1;
		else if (!strcmp(val, "false") || !strcmp(val, "0"))
			u = 0;
		else
			goto bad;
	} else if (is_signed) {
		errno = 0;
		s = strtoll(val, &end, 0);
		if (errno || *end || end == val || s > smax || s < -smax - 1)
			goto bad;
		u = (unsigned long long)s;
	} else {
		errno = 0;
		u = strtoull(val, &end, 0);
		if (errno || *end || end == val || *val == '-' || u > max)
			goto bad;
	}
	/* little-endian: the low bytes first, as many as the variable has */
	memcpy(dst, &u, f->size);
	return 0;
bad:
	if (is_bool)
		return errmsg_set(-EINVAL, "--set %s=%s: '%s' is a bool: true, false, 1 or 0",
				  name, val, name);
	if (is_signed)
		return errmsg_set(-EINVAL, "--set %s=%s: '%s' is a %u-byte signed integer (%lld..%lld)",
				  name, val, name, f->size, -smax - 1, smax);
	return errmsg_set(-EINVAL, "--set %s=%s: '%s' is a %u-byte unsigned integer (0..%llu)",
			  name, val, name, f->size, max);
}

static int parse_enum(const struct found *f, const struct btf_type *t, const char *name,
		      const char *val, void *dst)
{
	const struct btf_enum *e = btf_enum(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(f->btf, e->name_off), val)) {
			long long v = e->val;

			memcpy(dst, &v, f->size);
			return 0;
		}
	}
	return parse_int(f, name, val, dst, true, false);
}

static int parse_chars(const struct found *f, const char *name, const char *val, void *dst)
{
	size_t len = strlen(val);

	if (len >= f->size)
		return errmsg_set(-EINVAL, "--set %s=%s: '%s' holds at most %u characters",
				  name, val, name, f->size - 1);
	memset(dst, 0, f->size);
	memcpy(dst, val, len);
	return 0;
}

static int write_value(const struct found *f, const char *name, const char *val)
{
	const struct btf_type *t = btf__type_by_id(f->btf, f->type_id), *elem;
	size_t size;
	char *data = (char *)bpf_map__initial_value(f->map, &size);
	__u8 enc;

	/* sizes from the object's BTF: no sum that can wrap */
	if (!data || f->offset > size || f->size > size - f->offset)
		return errmsg_set(-EINVAL, "--set %s: section %s cannot be written before load",
				  name, f->sec);
	data += f->offset;
	/* a number is parsed into 8 bytes: the variable is one of them */
	if ((btf_is_int(t) || btf_is_enum(t)) && (f->size > 8 || t->size != f->size))
		return errmsg_set(-EINVAL, "--set %s: '%s' is a %u-byte integer: only integers of 1 to 8 bytes can be set",
				  name, name, f->size);
	if (btf_is_int(t)) {
		enc = btf_int_encoding(t);
		return parse_int(f, name, val, data, enc & BTF_INT_SIGNED, enc & BTF_INT_BOOL);
	}
	if (btf_is_enum(t))
		return parse_enum(f, t, name, val, data);
	if (btf_is_array(t)) {
		elem = btf__type_by_id(f->btf, btf_array(t)->type);
		while (elem && (btf_is_mod(elem) || btf_is_typedef(elem)))
			elem = btf__type_by_id(f->btf, elem->type);
		if (elem && btf_is_int(elem) && elem->size == 1)
			return parse_chars(f, name, val, data);
	}
	return errmsg_set(-EINVAL, "--set %s: only integers, bools, enums and char arrays can be set",
			  name);
}

int uobj_apply_sets(struct user_objs *u)
{
	struct uobj_set *s;
	struct found f;
	size_t i, j;
	int err;

	for (i = 0; i < u->nr_sets; i++) {
		s = &u->sets[i];
		for (j = 0; j < u->nr; j++) {
			if (!find_var(u->objs[j], s->name, &f))
				continue;
			if (!strncmp(f.sec, ".rodata", 7) && !f.is_volatile)
				return errmsg_set(-EINVAL, "--set %s: '%s' is const but not volatile: the compiler folded it into the code, declare it 'const volatile'",
						  s->name, s->name);
			err = write_value(&f, s->name, s->value);
			if (err)
				return err;
			s->used = true;
		}
		if (!s->used)
			return errmsg_set(-ENOENT, "--set %s: no global variable '%s' in .rodata, .data or .bss of the objects",
					  s->name, s->name);
	}
	return 0;
}
