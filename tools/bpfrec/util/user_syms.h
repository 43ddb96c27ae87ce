/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the user addresses of a recording's samples, for whoever
 * reads it in time order (report's profile, script): the processes'
 * mappings replayed from the task records read so far, and the ELF
 * symbols of the mapped files.
 */
#ifndef BPFREC_USER_SYMS_H
#define BPFREC_USER_SYMS_H

#include "util/dso_syms.h"
#include "util/intern.h"
#include "util/perf_data/perf_data.h"
#include "util/proc_maps.h"

struct user_syms {
	struct intern *strs;		/* the caller's: a mapping's path is an id there */
	struct proc_maps maps;
	struct dso_syms dsos;
};

/*
 * A record read: a process's executable MMAP or MMAP2, the COMM of an
 * exec, a FORK change the mappings; other records (the kernel's MMAP
 * among them) do nothing.  0 or -ENOMEM.
 */
int user_syms_record(struct user_syms *u, const struct pd_record *rec);
/* The mapping of @pid that holds @addr, NULL if none. */
const struct umap *user_syms_map(const struct user_syms *u, __u32 pid, __u64 addr);
/*
 * The symbol of mapping @m that holds @addr, and @addr's offset into it
 * (@off may be NULL); NULL when the file cannot be read or has none
 * there.  Valid until user_syms_free().
 */
const char *user_syms_name(struct user_syms *u, const struct umap *m, __u64 addr, __u64 *off);
/* The file of mapping @m, as its record named it. */
const char *user_syms_path(const struct user_syms *u, const struct umap *m);
/* The last component of @path, as perf shows a user frame's file. */
const char *user_syms_base_name(const char *path);
void user_syms_free(struct user_syms *u);

#endif /* BPFREC_USER_SYMS_H */
