/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf events of a recording, perf's evlist: each event is opened on
 * every online CPU, each instance with its ring buffer.  The side-band
 * event of `bpfrec record` comes first; samplers add theirs.
 */
#ifndef BPFREC_EVLIST_H
#define BPFREC_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "util/perf_data/perf_data.h"
#include "util/ring.h"

struct evsel {
	struct perf_event_attr attr;	/* as opened */
	const char *name;		/* HEADER_EVENT_DESC's */
	struct ring *rings;		/* one per CPU of the list, in its order */
	__u64 *ids;			/* every instance's PERF_EVENT_IOC_ID, for the writer */
	int nr;				/* rings opened */
	int nr_ids;
	int *fds;			/* instances writing into another's ring */
	int nr_fds;
	/*
	 * An event whose records are not written as they come (the off-CPU
	 * intervals) has its own ring_fn, called instead of the list's.
	 */
	ring_fn drain;
	void *drain_ctx;
};

struct evlist {
	struct evsel **ev;		/* stable: rings point to their attr */
	int nr_ev;
	size_t cap_ev;
	int *cpus;			/* the online CPUs */
	int nr_cpus;
	size_t ring_bytes;		/* data bytes of each ring */
	bool obj_events;		/* the side-band event has bpf_obj_event */
	/*
	 * The CPUs of the events added from now on (-C), indexed by CPU
	 * number, @nr_only long; NULL: every CPU of the list.
	 */
	const bool *only;
	int nr_only;
};

struct btf;
/*
 * The bit of attr.bpf_obj_event in the attr's flags word (the one of
 * attr.disabled), by its name in @btf's struct perf_event_attr; -1 when
 * the kernel of @btf has none.
 */
int evlist_obj_event_bit(const struct btf *btf);

/* Each function prints one line on failure and returns a negative errno. */

/* The online CPUs, and rings of @mmap_pages pages: no event yet. */
int evlist_init(struct evlist *el, unsigned int mmap_pages);
/*
 * The side-band event "bpf-events": BPF, ksymbol and comm records, with
 * the series' bpf_obj_event when the kernel's BTF has it.
 */
int evlist_add_sideband(struct evlist *el);
/*
 * The attr of a bpf-output event, which BPF programs write into with
 * bpf_perf_event_output(): disabled, every write a sample of
 * @sample_type, on the clock of the side-band records (CLOCK_MONOTONIC),
 * a wakeup at a quarter of its ring of @ring_bytes.
 */
void evlist_bpf_output_attr(struct perf_event_attr *attr, size_t ring_bytes, __u64 sample_type);
/* @attr (disabled) opened on every CPU of the list (of el->only, when set). */
int evlist_add(struct evlist *el, const struct perf_event_attr *attr, const char *name);
/*
 * @attr (disabled) opened for each of @tids on every CPU, one ring per
 * CPU; with @tids NULL, for every task (evlist_add()).
 */
int evlist_add_tasks(struct evlist *el, const struct perf_event_attr *attr, const char *name,
		     const pid_t *tids, int nr_tids);
/*
 * An event that is in the file only, with one id of the caller's choice
 * and no instance in the kernel: samples the recorder writes itself
 * (the wakers of --off-cpu --wakers) are in its name.
 */
int evlist_add_file_only(struct evlist *el, const struct perf_event_attr *attr,
			 const char *name, __u64 id);
int evlist_enable(struct evlist *el, bool on);
/*
 * The records the instances writing into ring @i of @ev could not write,
 * as the kernel counts them (0 where it cannot): the LOST records of a
 * ring tell of a loss only before the next record that fits.  Children
 * of an inherited instance are not counted.
 */
__u64 evlist_lost(const struct evsel *ev, int i);
/* Every ring of every event, in list order, through ring_drain() (@fn or the event's). */
int evlist_drain(struct evlist *el, ring_fn fn, void *ctx, void *scratch);
/* The events as the writer describes them: an array to free(). */
struct pd_event *evlist_pd_events(const struct evlist *el);
void evlist_close(struct evlist *el);

#endif /* BPFREC_EVLIST_H */
