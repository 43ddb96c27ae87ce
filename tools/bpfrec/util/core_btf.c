// SPDX-License-Identifier: GPL-2.0
/*
 * The part of the kernel's BTF that a BPF object's CO-RE relocations can
 * use, for libbpf to relocate against instead of the whole.
 *
 * libbpf finds the candidates of each type an object relocates with a scan
 * of every type of the kernel's BTF: 0.67 ms per type for the 126,573 types
 * of Debian's 6.18, and most of the recorder's start-up for the capture's
 * 37 types.  A candidate is a type of the same kind and name (up to a
 * "___flavor" suffix), and a relocation looks no further than the members
 * of the candidate and of the types it embeds: a pointer matches any
 * pointer.  So the types named like one of the object's, with everything
 * they embed and with every pointer made a pointer to void, give libbpf the
 * same candidates and the same relocations, in a BTF a few hundred types
 * long.  One pass over the kernel's types finds them.
 *
 * This holds for field, enum and type-existence relocations on structs,
 * unions and enums, which are what the recorder's programs use.  A type
 * id relocation (bpf_core_type_id_kernel()) would get an id of this BTF,
 * so an object that uses one must relocate against the whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "util/core_btf.h"

/* Kinds that a relocation's root type can have, and so a candidate. */
static bool named_root(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		return t->name_off != 0;
	default:
		return false;
	}
}

/* The length of @name without its "___flavor" suffix, as libbpf compares names. */
static size_t essential_len(const char *name)
{
	const char *flavor = strstr(name, "___");

	return flavor ? (size_t)(flavor - name) : strlen(name);
}

/* The names the types of @local are known by, without flavors, in a hash table. */
static int local_names(const struct btf *local, struct hsearch_data *names, char ***keys,
		       size_t *nr_keys)
{
	__u32 id, n = btf__type_cnt(local);
	ENTRY e, *found;

	*keys = calloc(n, sizeof(**keys));
	if (!*keys || !hcreate_r(2 * n, names))
		return -ENOMEM;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(local, id);
		const char *name = btf__name_by_offset(local, t->name_off);

		if (!named_root(t) || !name)
			continue;
		e.key = strndup(name, essential_len(name));
		e.data = NULL;
		if (!e.key)
			return -ENOMEM;
		(*keys)[(*nr_keys)++] = e.key;
		if (!hsearch_r(e, ENTER, &found, names))
			return -ENOMEM;
	}
	return 0;
}

/* Whether @name, less its flavor, is one of @names. */
static bool is_named(const char *name, struct hsearch_data *names)
{
	char buf[128];
	size_t len = essential_len(name);
	ENTRY e = { .key = (char *)name }, *found;

	if (name[len]) {
		if (len >= sizeof(buf))
			return false;
		memcpy(buf, name, len);
		buf[len] = 0;
		e.key = buf;
	}
	return hsearch_r(e, FIND, &found, names);
}

/*
 * Mark in @keep the types of @vmlinux named in @names and all they embed.
 * @queue has room for every type: each is queued once, when marked.
 */
static void mark(const struct btf *vmlinux, struct hsearch_data *names, bool *keep, __u32 *queue)
{
	__u32 id, n = btf__type_cnt(vmlinux), head = 0, tail = 0;
	const struct btf_member *m;
	const struct btf_param *p;
	const struct btf_type *t;
	int i;

#define QUEUE(type_id) do {						\
		__u32 _id = (type_id);					\
		if (_id && _id < n && !keep[_id]) {			\
			keep[_id] = true;				\
			queue[tail++] = _id;				\
		}							\
	} while (0)

	for (id = 1; id < n; id++) {
		t = btf__type_by_id(vmlinux, id);
		if (named_root(t) && is_named(btf__name_by_offset(vmlinux, t->name_off), names))
			QUEUE(id);
	}
	while (head < tail) {
		t = btf__type_by_id(vmlinux, queue[head++]);
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			QUEUE(t->type);
			break;
		case BTF_KIND_ARRAY:
			QUEUE(btf_array(t)->type);
			QUEUE(btf_array(t)->index_type);
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
				QUEUE(m->type);
			break;
		case BTF_KIND_FUNC_PROTO:
			QUEUE(t->type);
			for (i = 0, p = btf_params(t); i < btf_vlen(t); i++, p++)
				QUEUE(p->type);
			break;
		default:
			/* a pointer becomes a pointer to void: its target is not needed */
			break;
		}
	}
#undef QUEUE
}

/* Type @t of @src into @dst, its references renumbered by @new_id. */
static int add_type(struct btf *dst, const struct btf *src, const struct btf_type *t,
		    const __u32 *new_id)
{
	const char *name = btf__name_by_offset(src, t->name_off);
	const struct btf_enum64 *e64;
	const struct btf_member *m;
	const struct btf_param *p;
	const struct btf_enum *e;
	int i, err = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return btf__add_int(dst, name, t->size, btf_int_encoding(t));
	case BTF_KIND_FLOAT:
		return btf__add_float(dst, name, t->size);
	case BTF_KIND_PTR:
		return btf__add_ptr(dst, 0);
	case BTF_KIND_FWD:
		return btf__add_fwd(dst, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	case BTF_KIND_TYPEDEF:
		return btf__add_typedef(dst, name, new_id[t->type]);
	case BTF_KIND_CONST:
		return btf__add_const(dst, new_id[t->type]);
	case BTF_KIND_VOLATILE:
		return btf__add_volatile(dst, new_id[t->type]);
	case BTF_KIND_RESTRICT:
		return btf__add_restrict(dst, new_id[t->type]);
	case BTF_KIND_TYPE_TAG:
		return btf__add_type_tag(dst, name, new_id[t->type]);
	case BTF_KIND_ARRAY:
		return btf__add_array(dst, new_id[btf_array(t)->index_type],
				      new_id[btf_array(t)->type], btf_array(t)->nelems);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		err = btf_is_struct(t) ? btf__add_struct(dst, name, t->size) :
					 btf__add_union(dst, name, t->size);
		for (i = 0, m = btf_members(t); err >= 0 && i < btf_vlen(t); i++, m++) {
			int r = btf__add_field(dst, btf__name_by_offset(src, m->name_off),
					       new_id[m->type], btf_member_bit_offset(t, i),
					       btf_member_bitfield_size(t, i));
			if (r < 0)
				err = r;
		}
		return err;
	case BTF_KIND_ENUM:
		err = btf__add_enum(dst, name, t->size);
		for (i = 0, e = btf_enum(t); err >= 0 && i < btf_vlen(t); i++, e++) {
			int r = btf__add_enum_value(dst, btf__name_by_offset(src, e->name_off),
						    btf_kflag(t) ? (__s64)e->val : (__s64)(__u32)e->val);
			if (r < 0)
				err = r;
		}
		return err;
	case BTF_KIND_ENUM64:
		err = btf__add_enum64(dst, name, t->size, btf_kflag(t));
		for (i = 0, e64 = btf_enum64(t); err >= 0 && i < btf_vlen(t); i++, e64++) {
			int r = btf__add_enum64_value(dst, btf__name_by_offset(src, e64->name_off),
						      btf_enum64_value(e64));
			if (r < 0)
				err = r;
		}
		return err;
	case BTF_KIND_FUNC_PROTO:
		err = btf__add_func_proto(dst, new_id[t->type]);
		for (i = 0, p = btf_params(t); err >= 0 && i < btf_vlen(t); i++, p++) {
			int r = btf__add_func_param(dst, btf__name_by_offset(src, p->name_off),
						    new_id[p->type]);
			if (r < 0)
				err = r;
		}
		return err;
	default:
		/* not reachable from a root: no member has a function, variable or section type */
		return -EINVAL;
	}
}

struct btf *core_btf_subset(const struct btf *local, const struct btf *vmlinux)
{
	__u32 id, n = btf__type_cnt(vmlinux), next = 1, *new_id = NULL, *queue = NULL;
	struct hsearch_data names = { 0 };
	struct btf *dst = NULL;
	size_t nr_keys = 0, i;
	char **keys = NULL;
	bool *keep = NULL;
	int err;

	err = local_names(local, &names, &keys, &nr_keys);
	keep = calloc(n, sizeof(*keep));
	new_id = calloc(n, sizeof(*new_id));
	queue = calloc(n, sizeof(*queue));
	if (!err && (!keep || !new_id || !queue))
		err = -ENOMEM;
	if (!err) {
		mark(vmlinux, &names, keep, queue);
		/* the kept types in their order, so that one can refer to a later one */
		for (id = 1; id < n; id++)
			if (keep[id])
				new_id[id] = next++;
		dst = btf__new_empty();
		if (!dst)
			err = -errno;
	}
	for (id = 1; !err && id < n; id++) {
		if (!keep[id])
			continue;
		err = add_type(dst, vmlinux, btf__type_by_id(vmlinux, id), new_id);
		if (err > 0)
			err = 0;
	}
	if (names.table)
		hdestroy_r(&names);
	for (i = 0; i < nr_keys; i++)
		free(keys[i]);
	free(keys);
	free(keep);
	free(new_id);
	free(queue);
	if (err) {
		btf__free(dst);
		errno = -err;
		return NULL;
	}
	return dst;
}

int core_btf_memfd(const struct btf *btf)
{
	size_t done = 0;
	__u32 size;
	const char *data = btf__raw_data(btf, &size);
	ssize_t n = 0;
	int fd = data ? memfd_create("core-btf", MFD_CLOEXEC) : -1;

	while (fd >= 0 && done < size && (n = write(fd, data + done, size - done)) > 0)
		done += n;
	if (fd >= 0 && done < size) {
		close(fd);
		fd = -1;
	}
	return fd;
}
