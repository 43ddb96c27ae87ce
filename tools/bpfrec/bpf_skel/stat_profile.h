/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What stat_profile.bpf.c and user space share: the limits (util/stat_events.h
 * must agree on the number of events) and the per-CPU state.
 */
#ifndef __BPFREC_STAT_PROFILE_H
#define __BPFREC_STAT_PROFILE_H

#define STAT_PROFILE_MAX_EVENTS	8
#define STAT_PROFILE_MAX_CPUS	1024

/* struct bpf_perf_event_value's layout, which the helpers fill */
struct stat_profile_reading {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/*
 * --hist: each run's time (fentry to fexit, ns) in log-linear buckets:
 * below 16 ns one bucket per ns, then 16 buckets per power of two (each
 * at most 1/16 of its value wide), so that percentiles are read to a few
 * per cent.  Bucket i >= 16 holds [(16 + i % 16) << (i / 16 - 1),
 * (17 + i % 16) << (i / 16 - 1)).
 */
#define STAT_HIST_SUB		16
#define STAT_HIST_BUCKETS	(61 * STAT_HIST_SUB)

/*
 * One CPU's state of one target, a single map value so that each of fentry
 * and fexit makes one lookup.  The times are kept only for the events of
 * the timed_events mask, the ones that can be multiplexed.
 */
struct stat_profile_cpu {
	__u64 runs;
	__u32 entry_ok;		/* bit i: event i was read on entry */
	__u32 pad;
	struct stat_profile_reading entry[STAT_PROFILE_MAX_EVENTS];
	struct stat_profile_reading accum[STAT_PROFILE_MAX_EVENTS];
	__u64 t0;		/* --hist: the entry's time */
	__u64 max;		/* --hist: the longest run */
	__u64 hist[STAT_HIST_BUCKETS];
};

#endif /* __BPFREC_STAT_PROFILE_H */
