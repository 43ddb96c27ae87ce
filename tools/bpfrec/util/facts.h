/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the recorder learnt about each object, merged from in-kernel
 * capture, the BPF syscalls and synthesis, by kind and id.
 */
#ifndef BPFREC_FACTS_H
#define BPFREC_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include "util/bpf_obj.h"
#include "util/perf_data/perf_data.h"

struct pd_writer;
struct facts;

struct facts *facts_new(void);
/*
 * The file the facts go to: from then on they are written as soon as
 * they are complete, and released.
 */
void facts_set_writer(struct facts *f, struct pd_writer *w);
/*
 * The entry for @id, created zeroed (with the id set) when new, read
 * back from the file when its facts were written already.  The pointer
 * is valid until the entry is written.
 */
struct pd_prog *facts_prog(struct facts *f, __u32 id, bool *created);
struct pd_map *facts_map(struct facts *f, __u32 id, bool *created);
struct pd_link *facts_link(struct facts *f, __u32 id, bool *created);
struct pd_btf *facts_btf(struct facts *f, __u32 id, bool *created);
/* Resolve BTF @id with its raw data unless known already. */
void facts_want_btf(struct facts *f, __u32 id);

/*
 * Mark the known object @id the recorder's own (PD_F_SELF), created by
 * @origin; an id without facts stays unknown.
 */
void facts_mark_self(struct facts *f, enum pd_kind kind, __u32 id,
		     const struct pd_origin *origin);
/* The origin of the recorder's own objects: its main thread, as the capture would name it. */
void facts_self_origin(struct pd_origin *origin);
struct facts_stats {
	size_t objects, unresolved;		/* of every kind */
	size_t progs, progs_unresolved;
	size_t ids[PD_NR_KINDS];		/* by enum pd_kind */
	size_t unresolved_of[PD_NR_KINDS];
};

/*
 * Write the object @id now if its facts are known (or it is marked
 * unresolved): before the record that announces it, so that no record
 * reaches the file without its facts.
 */
int facts_write_now(struct facts *f, enum pd_kind kind, __u32 id);
/* No source will resolve @id: it is written unresolved. */
void facts_give_up(struct facts *f, enum pd_kind kind, __u32 id);
/* The facts of @id are written, and nothing holds them. */
bool facts_written(const struct facts *f, enum pd_kind kind, __u32 id);
/* Write and release every object whose facts are known: after each drain. */
int facts_flush(struct facts *f);
/* Objects held in memory: not written yet, or read back. */
size_t facts_live(const struct facts *f);

/* Mark what no source resolved PD_F_UNRESOLVED; count. */
void facts_finish(struct facts *f, struct facts_stats *st);
/* Write everything still held to @w. */
int facts_store(struct facts *f, struct pd_writer *w);
void facts_free(struct facts *f);

#endif /* BPFREC_FACTS_H */
