// SPDX-License-Identifier: GPL-2.0
/* `bpfrec stat -b`: the tail calls of its targets; see stat_tailcall.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "util/array.h"
#include "util/bpf_resolve.h"
#include "util/stat_tailcall.h"

/* A slot of a PROG_ARRAY: the program in it. */
struct slot {
	__u32 map;
	__u32 prog;
};

struct slots {
	struct slot *s;
	size_t nr, cap;
};

static int add_slot(struct slots *sl, __u32 map, __u32 prog)
{
	size_t i;

	/* a program in two slots of one map is one callee */
	for (i = 0; i < sl->nr; i++)
		if (sl->s[i].map == map && sl->s[i].prog == prog)
			return 0;
	if (array_room(&sl->s, &sl->cap, sl->nr, sizeof(*sl->s)))
		return -ENOMEM;
	sl->s[sl->nr++] = (struct slot){ map, prog };
	return 0;
}

/* The programs in PROG_ARRAY @fd (map @id): looked up from user space, a slot gives its program's id. */
static int read_prog_array(int fd, __u32 id, __u32 max_entries, struct slots *sl)
{
	__u32 key, prog;
	int err;

	if (max_entries > STAT_TAIL_MAX_SLOTS)
		max_entries = STAT_TAIL_MAX_SLOTS;
	for (key = 0; key < max_entries; key++) {
		if (bpf_map_lookup_elem(fd, &key, &prog))
			continue;	/* ENOENT: an empty slot */
		err = add_slot(sl, id, prog);
		if (err)
			return err;
	}
	return 0;
}

/* Every PROG_ARRAY of the machine, its programs. */
static int read_all(struct slots *sl)
{
	struct bpf_map_info info;
	__u32 id = 0, len;
	int fd, err = 0;

	while (!err && !bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* freed meanwhile */
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_MAP_TYPE_PROG_ARRAY)
			err = read_prog_array(fd, id, info.max_entries, sl);
		close(fd);
	}
	return err;
}

#define MAX_MAP_IDS	64

/* The maps program @id uses, into @ids: how many, 0 when it cannot be read. */
static __u32 maps_of(__u32 id, __u32 *ids)
{
	struct bpf_prog_info info = { .nr_map_ids = MAX_MAP_IDS, .map_ids = (unsigned long)ids };
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.nr_map_ids = 0;
	close(fd);
	return info.nr_map_ids < MAX_MAP_IDS ? info.nr_map_ids : MAX_MAP_IDS;
}

/* Program @id's name: its main function's from BTF, else the 16 bytes the kernel keeps. */
static void name_of(__u32 id, char *name, size_t size)
{
	struct pd_prog p = {};

	name[0] = 0;
	if (resolve_prog(id, &p))
		return;
	snprintf(name, size, "%s", p.nr_func_names && p.func_names[0][0] ? p.func_names[0] :
		 p.name);
	pd_prog_free_arrays(&p);
}

static int add_tail(struct stat_tail **out, size_t *nr, size_t *cap, __u32 target,
		    const struct slot *s, bool callee)
{
	struct stat_tail *t;
	size_t i;

	/* a callee in two of the target's maps is said once */
	for (i = 0; callee && i < *nr; i++)
		if ((*out)[i].target == target && (*out)[i].callee && (*out)[i].prog == s->prog)
			return 0;
	if (array_room(out, cap, *nr, sizeof(**out)))
		return -ENOMEM;
	t = &(*out)[(*nr)++];
	t->target = target;
	t->prog = s->prog;
	t->map = s->map;
	t->callee = callee;
	name_of(s->prog, t->name, sizeof(t->name));
	return 0;
}

int stat_tail_find(const __u32 *ids, int nr, struct stat_tail **out, size_t *nr_out)
{
	struct slots sl = {};
	__u32 maps[MAX_MAP_IDS], n, m;
	size_t i, cap = 0;
	int k, err;

	*out = NULL;
	*nr_out = 0;
	err = read_all(&sl);
	for (k = 0; !err && k < nr; k++) {
		n = sl.nr ? maps_of(ids[k], maps) : 0;
		for (i = 0; !err && i < sl.nr; i++) {
			for (m = 0; m < n && maps[m] != sl.s[i].map; m++)
				;
			/* a program that tail-calls itself is no other callee */
			if (m < n && sl.s[i].prog != ids[k])
				err = add_tail(out, nr_out, &cap, ids[k], &sl.s[i], true);
		}
		for (i = 0; !err && i < sl.nr; i++)
			if (sl.s[i].prog == ids[k])
				err = add_tail(out, nr_out, &cap, ids[k], &sl.s[i], false);
	}
	free(sl.s);
	if (err) {
		free(*out);
		*out = NULL;
		*nr_out = 0;
	}
	return err;
}
