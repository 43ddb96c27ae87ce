/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpfrec stat -b ID,...`: what BPF programs cost per run, two ways.
 *
 * - From the kernel's BPF run time stats (BPF_ENABLE_STATS, held through
 *   its fd while the session runs), when every event is cpu-clock or
 *   task-clock: each run's time is what those events would count while
 *   the program runs, since it runs on one CPU without being preempted.
 *   No trampoline: it works where the kernel refuses them and on targets
 *   without BTF.  What it costs is two clock reads per run of every BPF
 *   program on the machine while the stats are on.
 * - Through a trampoline otherwise, or when asked: fentry and fexit
 *   programs (bpf_skel/stat_profile.bpf.c) on each target read the events
 *   on entry and on exit; the differences add up per CPU, per target.
 *
 * An event that cannot be multiplexed gets the session's time as its
 * enabled and running times, as perf stat gives it.
 */
#ifndef BPFREC_STAT_PROFILE_H
#define BPFREC_STAT_PROFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "util/stat_count.h"
#include "util/stat_events.h"

#define STAT_MAX_TARGETS	32

struct stat_target {
	__u32 id;
	__u32 type;
	int fd;				/* the program, held through a trampoline; -1 by the stats */
	bool gone;			/* unloaded: counted up to the last reading */
	bool gone_said;			/* and the command said so */
	bool gone_shown;		/* and its last counts were shown */
	char name[128];			/* the main function's, from BTF, else the kernel's */
	char who[160];			/* "prog ID NAME" */
	struct stat_profile_bpf *skel;	/* through a trampoline */
	__u64 base_ns, base_cnt;	/* run time stats at the start */
	__u64 runs, shown_runs;
	struct bpf_perf_event_value total[STAT_MAX_EVENTS];
	struct bpf_perf_event_value shown[STAT_MAX_EVENTS];	/* at the last interval */
	__u64 *hist;			/* --hist: STAT_HIST_BUCKETS, summed over the CPUs */
	__u64 max;
};

struct stat_profile {
	struct stat_target t[STAT_MAX_TARGETS];
	int nr;
	bool by_stats;			/* else through a trampoline */
	bool hist;			/* --hist: run times in buckets (a trampoline) */
	int stats_fd;			/* BPF_ENABLE_STATS, by_stats only */
	__u64 start_ns;			/* CLOCK_MONOTONIC, once counting began */
	struct stat_events *es;
	struct stat_profile_cpu *percpu;	/* one lookup's values */
};

/*
 * Whether -b can count @es from the run time stats: every event counts
 * the time the program runs.
 */
bool stat_profile_can_use_stats(const struct stat_events *es);
/*
 * Check every target, then start counting: the run time stats on
 * (@sp->by_stats), or the profilers loaded and attached to the events of
 * @es, opened before.  One line on stderr for: an id that is no program,
 * and through a trampoline a program without BTF, a type trampolines
 * cannot attach to, and a kernel that refuses trampolines.
 */
int stat_profile_open(struct stat_profile *sp, const __u32 *ids, int nr,
		      struct stat_events *es);
/*
 * The totals since start, summed over the CPUs.  By the stats, a target
 * is not held (holding it would keep it loaded and hide its unload): it
 * is looked up by id each time, and marked gone once unloaded.
 */
int stat_profile_read(struct stat_profile *sp);
/* The targets not unloaded. */
int stat_profile_alive(const struct stat_profile *sp);
/*
 * The counts since the last call (@total: since start), target by target
 * and event by event into @c (nr targets * nr events of them), without
 * the targets unloaded whose last counts were shown (gone_shown).
 */
int stat_profile_counts(struct stat_profile *sp, bool total, struct stat_count *c);
/*
 * --hist, after a stat_profile_read(): each target's run times as log2
 * buckets with @usecs-style bars (bpftrace's), and p50, p90, p99 and max;
 * with @json one JSON line per target with the buckets instead.
 */
void stat_profile_print_hist(const struct stat_profile *sp, FILE *f, bool json);
void stat_profile_close(struct stat_profile *sp);

#endif /* BPFREC_STAT_PROFILE_H */
