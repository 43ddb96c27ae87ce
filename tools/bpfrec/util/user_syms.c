// SPDX-License-Identifier: GPL-2.0
/*
 * User addresses named from the recording's task records: MMAP/MMAP2
 * add a process's executable mappings, an exec clears them, a FORK
 * copies the parent's (util/proc_maps.c); the mapped files' symbols
 * come from util/dso_syms.c, each file read once.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "util/user_syms.h"

static int on_mmap(struct user_syms *u, const struct pd_record *rec)
{
	struct umap m = {
		.start = rec->mmap.start,
		.end = rec->mmap.start + rec->mmap.len,
		.pgoff = rec->mmap.pgoff,
	};

	/* the kernel's, and data: no code of a process */
	if (rec->mmap.pid == (__u32)-1 || rec->misc & PERF_RECORD_MISC_MMAP_DATA ||
	    (rec->type == PERF_RECORD_MMAP2 && !(rec->mmap.prot & PROT_EXEC)))
		return 0;
	if (intern_str(u->strs, rec->mmap.filename, &m.path))
		return -ENOMEM;
	m.build_id_len = rec->mmap.build_id_size;
	memcpy(m.build_id, rec->mmap.build_id, m.build_id_len);
	return proc_maps_add(&u->maps, rec->mmap.pid, &m);
}

int user_syms_record(struct user_syms *u, const struct pd_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(u, rec);
	case PERF_RECORD_COMM:
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC && rec->comm.pid == rec->comm.tid)
			proc_maps_exec(&u->maps, rec->comm.pid);
		return 0;
	case PERF_RECORD_FORK:
		return proc_maps_fork(&u->maps, rec->task.pid, rec->task.ppid);
	default:
		return 0;
	}
}

const struct umap *user_syms_map(const struct user_syms *u, __u32 pid, __u64 addr)
{
	return proc_maps_find(&u->maps, pid, addr);
}

const char *user_syms_name(struct user_syms *u, const struct umap *m, __u64 addr, __u64 *off)
{
	return dso_syms_find(&u->dsos, m->path, user_syms_path(u, m), m->build_id,
			     m->build_id_len, addr - m->start + m->pgoff, off);
}

const char *user_syms_path(const struct user_syms *u, const struct umap *m)
{
	return intern_str_get(u->strs, m->path);
}

void user_syms_free(struct user_syms *u)
{
	proc_maps_free(&u->maps);
	dso_syms_free(&u->dsos);
}

const char *user_syms_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}
