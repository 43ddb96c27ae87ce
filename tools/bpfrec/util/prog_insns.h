/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A captured program's xlated instructions, which come in pieces
 * (bpf_skel/capture.h: cap_prog_maps, cap_prog_insns), made as
 * BPF_OBJ_GET_INFO_BY_FD gives them to root, and their SHA-256: the same
 * hash as `bpftool prog dump xlated id N file F; sha256sum F` while the
 * program lives, and known for one that lived a microsecond.
 */
#ifndef BPFREC_PROG_INSNS_H
#define BPFREC_PROG_INSNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "util/hashmap.h"

struct cap_prog_maps;
struct cap_prog_insns;
struct prog_acc;
struct evp_md_st;
struct evp_md_ctx_st;

#define PROG_INSNS_SPARE	8

struct prog_insns {
	struct hashmap progs;	/* id -> struct prog_acc *, pieces still to come */
	size_t nr;
	struct prog_acc *spare[PROG_INSNS_SPARE];	/* done, kept for reuse */
	size_t nr_spare;
	struct evp_md_st *md;		/* SHA-256, fetched at first use */
	struct evp_md_ctx_st *md_ctx;
};

/* Done: *(__u8[32]) @sha256 set for program @id. */
typedef int (*prog_insns_fn)(void *ctx, __u32 id, const __u8 *sha256,
			     const void *insns, size_t len);

/* The ids of program @id's maps, from its cap_prog: the first of its pieces. */
int prog_insns_ids(struct prog_insns *pi, __u32 id, const __u32 *ids, __u32 nr);
int prog_insns_maps(struct prog_insns *pi, const struct cap_prog_maps *m);
/* A piece; once the last one is in, @fn is called with the hash. */
int prog_insns_piece(struct prog_insns *pi, const struct cap_prog_insns *c,
		     prog_insns_fn fn, void *ctx);
/*
 * Turn @insns (@nr of them) into the kernel's dump (bpf_insn_prepare_dump()):
 * map addresses into map ids, internal call and load opcodes into their
 * public ones.  @addrs, @values and @value_sizes are @nr_maps long, @ids
 * too.  Exposed for the unit tests.
 */
void prog_insns_dump_form(struct bpf_insn *insns, size_t nr, const __u32 *ids,
			  const __u64 *addrs, const __u64 *values,
			  const __u32 *value_sizes, __u32 nr_maps);
/* The SHA-256 of @len bytes at @buf into *(__u8[32]) @sha; 0 or -errno. */
int prog_insns_sha256(struct prog_insns *pi, const void *buf, size_t len, __u8 *sha);
/* Forget a program whose pieces will not come (its record was dropped). */
void prog_insns_free(struct prog_insns *pi);

#endif /* BPFREC_PROG_INSNS_H */
