/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks unwound with the mapped files' CFI (.eh_frame, through
 * libdw), from the registers and the copy of the top of the stack that a
 * sample of `record --call-graph dwarf` carries.  Frame pointers alone
 * lose the caller of a function built without them (all of Debian's
 * glibc): the walk from inside nanosleep() goes from the leaf to the
 * caller's caller.  The copy is a window: where it ends before the
 * outermost frame, the frame-pointer chain of the same sample goes on
 * from the first return address both share.
 */
#ifndef BPFREC_UNWIND_H
#define BPFREC_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"
#include "util/user_syms.h"

/* frames kept of one stack, as perf_event_max_stack's default */
#define UNWIND_MAX_FRAMES	127

struct unwind_sample;

struct unwind {
	struct user_syms *users;	/* the caller's: the mappings replayed so far */
	struct hashmap procs;		/* pid -> struct unwind_proc * */
	struct unwind_sample *cur;	/* the sample being unwound */
	__u64 unwound, failed;		/* samples, for the report's note */
};

/*
 * The user frames of sample @s of an event of @attr, innermost first:
 * the sample's IP, then return addresses (as a callchain holds them).
 * @fp and @nr_fp are the user part of its callchain (frame pointers),
 * without the context mark.  Returns the number of frames written to
 * @out (at most @max), or 0 when the sample has no registers and stack
 * or the unwinding found no caller: the caller then keeps @fp.
 */
size_t unwind_user(struct unwind *u, const struct perf_event_attr *attr,
		   const struct pd_sample *s, const __u64 *fp, size_t nr_fp, __u64 *out,
		   size_t max);
void unwind_free(struct unwind *u);

#endif /* BPFREC_UNWIND_H */
