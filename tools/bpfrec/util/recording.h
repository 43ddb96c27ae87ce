/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The order in which a recording starts and drains: the rings, the
 * in-kernel capture and the sink, with no window where an object can be
 * created and recorded zero times.
 */
#ifndef BPFREC_RECORDING_H
#define BPFREC_RECORDING_H

#include <stdbool.h>
#include <linux/types.h>

struct evlist;
struct capture;
struct sink;

struct recording {
	struct evlist *evlist;
	struct capture *cap;	/* NULL without in-kernel capture */
	struct sink *sink;	/* its writer and facts table are the recording's */
	void *scratch;		/* RING_SCRATCH_SIZE bytes */
	bool live;		/* read as it is written (-o -): rounds end promptly */
	bool round_behind;	/* the last drain's round is not sorted out yet */
};

/*
 * Everything that came since the last drain: captured facts, then the
 * records, the syscalls for what the capture lacked, task names, and a
 * round when there were records.
 */
int recording_drain(struct recording *rec);
/*
 * Once the events are disabled and drained: a LOST record for each ring's
 * losses that none of its LOST records told of (the kernel writes one only
 * before the next record that fits), at @time, counted in the sink's
 * lost_records.
 */
int recording_lost(struct recording *rec, __u64 time);
/*
 * Enable the events, take in what came so far, and synthesise the objects
 * that exist but have no record, as of @time; @obj_events as the events.
 */
int recording_start(struct recording *rec, __u64 time, bool obj_events);

#endif /* BPFREC_RECORDING_H */
