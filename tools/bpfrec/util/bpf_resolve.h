/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about a BPF object by id, through the BPF syscalls, while the
 * object exists.  Each returns 0 or a negative errno, -ENOENT when the
 * object is already gone.
 */
#ifndef BPFREC_BPF_RESOLVE_H
#define BPFREC_BPF_RESOLVE_H

#include <stdbool.h>
#include "util/bpf_obj.h"

int resolve_prog(__u32 id, struct pd_prog *p);
/*
 * The xlated instructions of program @id as BPF_OBJ_GET_INFO_BY_FD gives
 * them (to root: maps by id), in a new buffer of *@len bytes, at most
 * @max: -E2BIG beyond.
 */
int resolve_prog_xlated(__u32 id, size_t max, void **insns, size_t *len);
int resolve_map(__u32 id, struct pd_map *m);
int resolve_link(__u32 id, struct pd_link *l);
int resolve_btf(__u32 id, struct pd_btf *b, bool with_data);

#endif /* BPFREC_BPF_RESOLVE_H */
