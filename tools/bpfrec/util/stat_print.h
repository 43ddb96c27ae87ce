/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output of `bpfrec stat`, in perf stat's shape: a block at the end, or
 * one line per counter per interval (-I) with the time in front; or JSON
 * lines (--json) with the same fields.
 */
#ifndef BPFREC_STAT_PRINT_H
#define BPFREC_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "util/stat_count.h"
#include "util/stat_progs.h"

struct stat_print {
	FILE *f;
	bool json;
	bool interval;		/* -I: lines start with the time */
	const char *target;	/* "system wide", "'CMD'", ... */
	bool header_done;	/* -I and --json: said once */
	bool hist;		/* --all-progs --hist: whether stat -b --hist could time each */
};

/* @ts: seconds since start; @wall_ns: the span the rows cover. */
void stat_print_progs(struct stat_print *pr, double ts, __u64 wall_ns,
		      const struct sp_row *rows, size_t nr);

/*
 * Counts (-b, --bpf-counters): @wall_ns gives time events their "CPUs
 * utilized"; a count with runs, its cost per run.
 */
void stat_print_counts(struct stat_print *pr, double ts, __u64 wall_ns,
		       const struct stat_count *c, int nr);

#endif /* BPFREC_STAT_PRINT_H */
