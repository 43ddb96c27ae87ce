/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the records of one perf event's mmap ring buffer. */
#ifndef BPFREC_RING_H
#define BPFREC_RING_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/perf_event.h>

struct ring {
	const struct perf_event_attr *attr;	/* of the event, to decode its records */
	int fd;
	int cpu;
	void *base;		/* control page, then len bytes of data */
	size_t len;		/* a power of two */
	__u64 id;		/* PERF_EVENT_IOC_ID */
	__u64 lost_seen;	/* sum of the LOST records drained from it */
	int shared_first;	/* the instances writing into it: evsel.fds[first...] */
	int nr_shared;
};

typedef int (*ring_fn)(void *ctx, const struct ring *r, const struct perf_event_header *hdr);

/* The largest record: header.size is 16 bits. */
#define RING_SCRATCH_SIZE	(1 << 16)

/*
 * Hand every complete record to @fn, in ring order, then give the space
 * back to the kernel; the losses its LOST records tell are summed in
 * @r->lost_seen.  A record that wraps around the end of the buffer is
 * copied to @scratch (RING_SCRATCH_SIZE bytes) first.  Stops at the first
 * error of @fn, after consuming that record.
 */
int ring_drain(struct ring *r, ring_fn fn, void *ctx, void *scratch);

#endif /* BPFREC_RING_H */
