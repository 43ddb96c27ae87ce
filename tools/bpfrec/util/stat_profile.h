/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpfrec stat -b ID,...`: fentry and fexit programs
 * (bpf_skel/stat_profile.bpf.c) on each target read the events on entry
 * and on exit; the differences add up per CPU, per target.
 */
#ifndef BPFREC_STAT_PROFILE_H
#define BPFREC_STAT_PROFILE_H

#include <linux/types.h>
#include <linux/bpf.h>
#include "util/stat_count.h"
#include "util/stat_events.h"

#define STAT_MAX_TARGETS	32

struct stat_target {
	__u32 id;
	__u32 type;
	char name[128];			/* the main function's, from BTF */
	char who[160];			/* "prog ID NAME" */
	struct stat_profile_bpf *skel;
	__u64 runs, shown_runs;
	struct bpf_perf_event_value total[STAT_MAX_EVENTS];
	struct bpf_perf_event_value shown[STAT_MAX_EVENTS];	/* at the last interval */
};

struct stat_profile {
	struct stat_target t[STAT_MAX_TARGETS];
	int nr;
	struct stat_events *es;
	struct bpf_perf_event_value *percpu;	/* one lookup's values */
};

/*
 * Check every target, then load and attach the profilers.  One line on
 * stderr for: an id that is no program, a program without BTF, a type
 * trampolines cannot attach to, and a kernel that refuses trampolines.
 */
int stat_profile_open(struct stat_profile *sp, const __u32 *ids, int nr,
		      struct stat_events *es);
/* The totals since start, summed over the CPUs. */
int stat_profile_read(struct stat_profile *sp);
/*
 * The counts since the last call (@total: since start), target by target
 * and event by event into @c (nr targets * nr events of them).
 */
int stat_profile_counts(struct stat_profile *sp, bool total, struct stat_count *c);
void stat_profile_close(struct stat_profile *sp);

#endif /* BPFREC_STAT_PROFILE_H */
