/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared BPF-managed counters (`bpfrec stat --bpf-counters`): what the
 * leader, the followers and user space agree on.  Fixed-size, no pointers.
 */
#ifndef __BPFREC_STAT_BPERF_H
#define __BPFREC_STAT_BPERF_H

/* The registry's value for one perf_event_attr: where its leader is. */
struct bperf_entry {
	__u32 link_id;		/* the leader's raw_tp link */
	__u32 diff_map_id;	/* its per-CPU diffs */
	__u32 events_map_id;	/* its per-CPU perf events */
	__u32 owner_pid;	/* the session that opened them */
};

/* The leader's return value, seen by BPF_PROG_TEST_RUN. */
#define BPERF_OK		0
#define BPERF_NO_EVENT		1	/* this CPU's perf event is gone */

enum bperf_filter {
	BPERF_FILTER_GLOBAL,
	BPERF_FILTER_CPU,
	BPERF_FILTER_TGID,
	BPERF_FILTER_TID,
	BPERF_FILTER_CGROUP,
};

#define BPERF_MAX_FILTERS	1024
#define BPERF_MAX_CGROUPS	64
#define BPERF_MAX_CGROUP_LEVELS	16

#endif /* __BPFREC_STAT_BPERF_H */
