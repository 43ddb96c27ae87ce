/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpfrec stat -b`: the tail calls of its targets.
 *
 * A tail call jumps into its callee past the callee's prologue: past the
 * place its fentry/fexit trampoline is called from (x86-64's JIT enters
 * at X86_TAIL_CALL_OFFSET, after the patched nop, in 6.1, 6.12 and 7.2
 * alike), and past the run time stats, which only the program a hook ran
 * counts.  So no kernel can time a run that a tail call reached, by
 * either way -b has: the caller's fexit comes when the last program of
 * the chain returns, and the caller's time holds its callees'.  -b finds
 * these cases before it counts, so that it can say so rather than show
 * a callee with fewer runs than it had.
 */
#ifndef BPFREC_STAT_TAILCALL_H
#define BPFREC_STAT_TAILCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>

/* The slots of a PROG_ARRAY read at most: the scan stays bounded. */
#define STAT_TAIL_MAX_SLOTS	65536

struct stat_tail {
	__u32 target;			/* the -b target it is about */
	__u32 prog;			/* a program a tail call reaches */
	__u32 map;			/* through this PROG_ARRAY */
	bool callee;			/* prog is a callee of target, else target itself */
	char name[128];			/* prog's main function's, else the kernel's */
};

/*
 * The tail calls of the programs @ids (@nr of them): for each target,
 * each program in a PROG_ARRAY it uses (its callees, once each), and each
 * PROG_ARRAY it is in itself.  *@out (free() it) and *@nr_out, in target
 * order; 0 or -errno.
 */
int stat_tail_find(const __u32 *ids, int nr, struct stat_tail **out, size_t *nr_out);

#endif /* BPFREC_STAT_TAILCALL_H */
