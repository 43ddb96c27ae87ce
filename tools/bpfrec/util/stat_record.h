/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpfrec stat -o FILE`: the counts as `perf stat record` writes them,
 * with the BPF programs' lifecycle records, in one perf.data.  A file's
 * events are fixed in its header, and --all-progs meets new programs
 * until the end: so counters, rounds and lifecycle records are kept in
 * memory and the file is written once, at the end.  Each counter is an
 * event of the file with one id; values are cumulative, as perf's.
 */
#ifndef BPFREC_STAT_RECORD_H
#define BPFREC_STAT_RECORD_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/perf_event.h>
#include "util/bpf_obj.h"
#include "util/hashmap.h"

struct stat_count;
struct stat_progs;

struct sr_counter {
	char *name;
	struct perf_event_attr attr;
	__u64 id;
};

struct sr_value {
	__u32 counter;
	__u64 val, ena, run;
};

struct sr_mark {
	size_t end;			/* values before it are the round's */
	size_t end_bpf;			/* lifecycle records likewise */
	__u64 time;
};

struct sr_bpf {
	__u16 type;			/* PERF_BPF_EVENT_PROG_LOAD / _UNLOAD */
	__u32 id;
	__u8 tag[BPF_TAG_SIZE];
	__u64 time;			/* CLOCK_MONOTONIC ns, perf's clock */
};

struct stat_record {
	__u64 interval_ms;		/* 0: one FINAL round */
	const char *version;		/* the file's HEADER_VERSION (pd_writer_config) */
	struct sr_counter *c;
	size_t nr_c, cap_c;
	struct hashmap by_key;		/* caller's key -> index + 1 */
	struct sr_value *v;
	size_t nr_v, cap_v;
	struct sr_mark *r;
	size_t nr_r, cap_r;
	struct sr_bpf *e;
	size_t nr_e, cap_e;
	struct pd_prog *p;
	size_t nr_p, cap_p;
	struct pd_hist *h;		/* -b --hist: the run-time histograms, at the end */
	size_t nr_h;
};

/*
 * The counter the caller calls @key (made with @name and @attr the first
 * time): its index, or -errno.
 */
int stat_record_counter(struct stat_record *sr, __u64 key, const char *name,
			const struct perf_event_attr *attr);
int stat_record_value(struct stat_record *sr, int counter, __u64 val, __u64 ena, __u64 run);
/* Ends a round: the values and lifecycle records since the last one. */
int stat_record_round(struct stat_record *sr, __u64 time);
int stat_record_bpf(struct stat_record *sr, __u16 type, __u32 id,
		    const __u8 tag[BPF_TAG_SIZE], __u64 time);
/* A program's facts (no arrays), for the file's BPF_PROG_INFO and BPFREC. */
int stat_record_prog(struct stat_record *sr, const struct pd_prog *p);
/*
 * The counts of -b or --bpf-counters, the session's totals so far, and
 * the end of a round at @elapsed ns from the start: count i of @c is
 * counter 2i, and its target's runs (has_runs) counter 2i + 1.
 */
int stat_record_counts(struct stat_record *sr, const struct stat_count *c, int n,
		       __u64 elapsed);
/*
 * The programs of --all-progs at @now (CLOCK_MONOTONIC ns), @wall ns from
 * the start, and the end of a round: program ID is two counters, its runs
 * (ID << 1) and its run time (ID << 1 | 1), totals since first seen; its
 * first sight and its final counts are its PROG_LOAD and PROG_UNLOAD.  A
 * program that did not run is left out unless @idle, as the printed table
 * leaves it out.
 */
int stat_record_progs(struct stat_record *sr, const struct stat_progs *s, __u64 now, __u64 wall,
		      bool idle);
/*
 * -b --hist: program @id's (@name) run times, @hist of STAT_HIST_BUCKETS
 * and the longest, @max ns; written after the counts, one record each
 * (util/perf_data/hist.c), for bpfrec report.
 */
int stat_record_hist(struct stat_record *sr, __u32 id, const char *name, const __u64 *hist,
		     __u64 max);
/* Writes @path; errmsg_set() says why it failed. */
int stat_record_write(struct stat_record *sr, const char *path, int argc, char **argv);
void stat_record_free(struct stat_record *sr);

#endif /* BPFREC_STAT_RECORD_H */
