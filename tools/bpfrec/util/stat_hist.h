/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run-time histogram shown: its percentiles, its log2 bars as bpftrace
 * draws them, and its JSON line; for `stat -b --hist` live and `report`
 * of the file it wrote.  The buckets are the log-linear ones of
 * bpf_skel/stat_profile.h (STAT_HIST_BUCKETS of them, PD_HIST_BUCKETS in
 * a file: the same).
 */
#ifndef BPFREC_STAT_HIST_H
#define BPFREC_STAT_HIST_H

#include <stdio.h>
#include <linux/types.h>

/* The time under which a share @q (0 to 1) of @n runs of @hist took: interpolated in its bucket. */
double stat_hist_quantile(const __u64 *hist, __u64 n, __u64 max, double q);
/* The runs of @hist: 0 when they would not fit 64 bits (a file's). */
__u64 stat_hist_runs(const __u64 *hist);
/*
 * "@who: N runs, p50 .. ns, p90 .. ns, p99 .. ns, max .. ns", then
 * "@ns[@name]:" and the bars, one per power of two from the first bucket
 * with runs to the last.  @who and @name are printed as they are: the
 * caller makes them safe for a terminal.
 */
void stat_hist_print(FILE *f, const char *who, const char *name, const __u64 *hist, __u64 max);
/* One JSON line: id, name, runs, p50_ns, p90_ns, p99_ns, max_ns, buckets_ns (log2 lower bound: runs). */
void stat_hist_json(FILE *f, __u32 id, const char *name, const __u64 *hist, __u64 max);

#endif /* BPFREC_STAT_HIST_H */
