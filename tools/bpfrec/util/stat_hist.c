// SPDX-License-Identifier: GPL-2.0
/* A run-time histogram shown: see stat_hist.h. */
#include <string.h>
#include "util/json.h"
#include "util/perf_data/perf_data.h"
#include "util/stat_hist.h"
#include "bpf_skel/stat_profile.h"

_Static_assert(STAT_HIST_BUCKETS == PD_HIST_BUCKETS, "a file's histograms are stat's");

/* The lowest time of fine bucket @b, and its width. */
static __u64 bucket_lo(int b, __u64 *width)
{
	int shift = b / STAT_HIST_SUB - 1;

	if (b < STAT_HIST_SUB) {
		*width = 1;
		return b;
	}
	*width = 1ULL << shift;
	return (__u64)(STAT_HIST_SUB + b % STAT_HIST_SUB) << shift;
}

double stat_hist_quantile(const __u64 *hist, __u64 n, __u64 max, double q)
{
	__u64 rank = (__u64)(q * n + 0.999999), seen = 0, lo, width;
	double v;
	int b;

	if (!n)
		return 0;
	if (!rank)
		rank = 1;
	for (b = 0; b < STAT_HIST_BUCKETS; b++) {
		if (!hist[b] || seen + hist[b] < rank) {
			seen += hist[b];
			continue;
		}
		lo = bucket_lo(b, &width);
		/* the runs of a bucket spread evenly over it */
		v = lo + width * ((double)(rank - seen) - 0.5) / hist[b];
		return max && v > max ? max : v;
	}
	return max;
}

/* bpftrace's labels: 1K, 2M, ... for powers of 1024 */
static void size_label(__u64 v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 1024 && !(v % 1024) && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

/* The fine buckets summed per power of two: [0, 1), [1, 2), [2, 4), ... (65 of them). */
static void log2_buckets(const __u64 *hist, __u64 *l2)
{
	__u64 lo, width;
	int b, k;

	memset(l2, 0, 65 * sizeof(*l2));
	for (b = 0; b < STAT_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		lo = bucket_lo(b, &width);
		k = lo ? 64 - __builtin_clzll(lo) : 0;
		l2[k] += hist[b];
	}
}

static void print_bars(const __u64 *l2, FILE *f)
{
	__u64 top = 0;
	char lo[32], hi[32];
	int k, first = -1, last = -1, i, n, pad;

	for (k = 0; k < 65; k++) {
		if (!l2[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		top = l2[k] > top ? l2[k] : top;
	}
	for (k = first; k >= 0 && k <= last; k++) {
		size_label(k ? 1ULL << (k - 1) : 0, lo, sizeof(lo));
		size_label(k ? 1ULL << k : 1, hi, sizeof(hi));
		n = top ? (int)(52 * l2[k] / top) : 0;
		pad = 16 - (int)(strlen(lo) + strlen(hi));
		fprintf(f, "[%s, %s)%*s%8llu |", lo, hi, pad > 0 ? pad : 1, "",
			(unsigned long long)l2[k]);
		for (i = 0; i < 52; i++)
			fputc(i < n ? '@' : ' ', f);
		fputs("|\n", f);
	}
}

__u64 stat_hist_runs(const __u64 *hist)
{
	__u64 n = 0;
	int b;

	for (b = 0; b < STAT_HIST_BUCKETS; b++) {
		if (n + hist[b] < n)
			return 0;
		n += hist[b];
	}
	return n;
}

/* p50, p90 and p99 of the @n runs of @hist, in @v. */
static void quantiles(const __u64 *hist, __u64 n, __u64 max, double *v)
{
	static const double qs[] = { 0.5, 0.9, 0.99 };
	int q;

	for (q = 0; q < 3; q++)
		v[q] = stat_hist_quantile(hist, n, max, qs[q]);
}

void stat_hist_print(FILE *f, const char *who, const char *name, const __u64 *hist, __u64 max)
{
	__u64 l2[65], n = stat_hist_runs(hist);
	double v[3];

	quantiles(hist, n, max, v);
	log2_buckets(hist, l2);
	fprintf(f, "\n%s: %llu runs, p50 %.0f ns, p90 %.0f ns, p99 %.0f ns, max %llu ns\n",
		who, (unsigned long long)n, v[0], v[1], v[2], (unsigned long long)max);
	fprintf(f, "@ns[%s]:\n", name);
	print_bars(l2, f);
}

void stat_hist_json(FILE *f, __u32 id, const char *name, const __u64 *hist, __u64 max)
{
	static const char *const names[] = { "p50_ns", "p90_ns", "p99_ns" };
	__u64 l2[65], n = stat_hist_runs(hist);
	struct json j;
	double v[3];
	int k, q;

	quantiles(hist, n, max, v);
	log2_buckets(hist, l2);
	json_begin(&j, f);
	json_u64(&j, "id", id);
	json_str(&j, "name", name);
	json_u64(&j, "runs", n);
	for (q = 0; q < 3; q++)
		json_u64(&j, names[q], (__u64)(v[q] + 0.5));
	json_u64(&j, "max_ns", max);
	/* the log2 buckets: [lo, hi) ns -> runs, those with runs */
	json_object(&j, "buckets_ns");
	for (k = 0; k < 65; k++) {
		char key[32];

		if (!l2[k])
			continue;
		snprintf(key, sizeof(key), "%llu", k ? 1ULL << (k - 1) : 0ULL);
		json_u64(&j, key, l2[k]);
	}
	json_close(&j);
	json_end(&j);
}
