/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side-band perf events of `bpfrec record`: one software dummy event
 * per online CPU asking for BPF, ksymbol and comm records, each with its
 * ring buffer.
 */
#ifndef BPFREC_EVLIST_H
#define BPFREC_EVLIST_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include "util/ring.h"

struct rings {
	struct ring *r;
	int n;
	struct perf_event_attr attr;
	bool obj_events;	/* kernel accepted bpf_obj_event */
};

/* Prints one line on failure; returns a negative errno. */
int rings_open(struct rings *rs, unsigned int mmap_pages);
int rings_enable(struct rings *rs, bool on);
void rings_close(struct rings *rs);

#endif /* BPFREC_EVLIST_H */
