/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A count of one event for one subject (a profiled program, a cgroup, the
 * session), over an interval or the whole run: what `bpfrec stat` prints
 * and writes to perf.data.
 */
#ifndef BPFREC_STAT_COUNT_H
#define BPFREC_STAT_COUNT_H

#include <linux/types.h>
#include <linux/bpf.h>

struct stat_event;

struct stat_count {
	const struct stat_event *ev;
	struct bpf_perf_event_value v;	/* counter, enabled, running */
	const char *who;		/* subject; NULL: the session */
	__u64 runs;			/* runs of a profiled program, else 0 */
	bool has_runs;
};

/* The counter scaled to the time the event was enabled (multiplexing). */
__u64 stat_count_scaled(const struct stat_count *c);

/* @a - @b, field by field: the counts of one interval. */
void stat_value_sub(struct bpf_perf_event_value *d, const struct bpf_perf_event_value *a,
		    const struct bpf_perf_event_value *b);

#endif /* BPFREC_STAT_COUNT_H */
