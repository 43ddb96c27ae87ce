/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The executable mappings of every process of a recording, replayed from
 * its MMAP/MMAP2 records (and inherited through FORK, cleared by exec) in
 * time order, so a user address of a sample finds its file and offset.
 */
#ifndef BPFREC_PROC_MAPS_H
#define BPFREC_PROC_MAPS_H

#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"

#define UMAP_BUILD_ID_MAX	20

struct umap {
	__u64 start, end;		/* [start, end) */
	__u64 pgoff;			/* file offset of start */
	__u32 path;			/* the caller's key of the file name */
	__u8 build_id_len;		/* 0: the record had none */
	__u8 build_id[UMAP_BUILD_ID_MAX];
};

struct proc_maps {
	struct hashmap by_pid;		/* pid -> index + 1 in procs */
	struct umaps {
		struct umap *v;		/* by address, not overlapping */
		size_t nr, cap;
	} *procs;
	size_t nr, cap;
};

/* A new mapping of @pid, replacing what it overlaps. */
int proc_maps_add(struct proc_maps *m, __u32 pid, const struct umap *map);
/* A FORK of a new process: its parent's mappings are its own. */
int proc_maps_fork(struct proc_maps *m, __u32 pid, __u32 ppid);
/* An exec: the process starts over. */
void proc_maps_exec(struct proc_maps *m, __u32 pid);
const struct umap *proc_maps_find(const struct proc_maps *m, __u32 pid, __u64 addr);
void proc_maps_free(struct proc_maps *m);

#endif /* BPFREC_PROC_MAPS_H */
