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

struct pd_writer;
struct facts;

struct facts *facts_new(void);
/* The entry for @id, created zeroed (with the id set) when new. */
struct pd_prog *facts_prog(struct facts *f, __u32 id, bool *created);
struct pd_map *facts_map(struct facts *f, __u32 id, bool *created);
struct pd_link *facts_link(struct facts *f, __u32 id, bool *created);
struct pd_btf *facts_btf(struct facts *f, __u32 id, bool *created);
/* Resolve BTF @id with its raw data unless known already. */
void facts_want_btf(struct facts *f, __u32 id);

enum fact_kind { FACT_PROG, FACT_MAP, FACT_LINK, FACT_BTF };

/*
 * Mark the known object @id the recorder's own (PD_F_SELF), created by
 * @origin; an id without facts stays unknown.
 */
void facts_mark_self(struct facts *f, enum fact_kind kind, __u32 id,
		     const struct pd_origin *origin);
struct facts_stats {
	size_t objects, unresolved;		/* of every kind */
	size_t progs, progs_unresolved;
};

/* Mark what no source resolved PD_F_UNRESOLVED; count. */
void facts_finish(struct facts *f, struct facts_stats *st);
/* Hand everything to the writer. */
int facts_store(struct facts *f, struct pd_writer *w);
void facts_free(struct facts *f);

#endif /* BPFREC_FACTS_H */
