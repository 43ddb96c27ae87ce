// SPDX-License-Identifier: GPL-2.0
/*
 * The histograms half of bpfrec report: a stat file that `bpfrec stat -b
 * ID --hist -o FILE` wrote holds each target's run-time histogram (a
 * record each, util/perf_data/hist.c).  Report shows them as stat showed
 * them live (util/stat_hist.c): the percentiles and bpftrace's log2 bars,
 * or a JSON line each with --json.  Every record is checked before it is
 * shown, and names are escaped for the terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "builtin.h"
#include "util/perf_data/perf_data.h"
#include "util/printable.h"
#include "util/stat_hist.h"

/* What else report was asked for is a profile's: the histograms are not the answer. */
static bool profile_only(const struct report_profile_args *a)
{
	return a->sort || a->off_cpu || a->wall || a->folded || a->svg || a->stacks || a->pprof;
}

static void show(const struct pd_hist *h, bool json)
{
	char name[4 * PD_HIST_NAME_LEN + 1], who[sizeof(name) + 32];

	if (json) {
		stat_hist_json(stdout, h->id, h->name, h->buckets, h->max_ns);
		return;
	}
	printable(h->name, name, sizeof(name));
	snprintf(who, sizeof(who), "prog %u %s", h->id, name);
	stat_hist_print(stdout, who, name, h->buckets, h->max_ns);
}

int report_hist(const char *path, const struct report_profile_args *a)
{
	struct pd_record rec;
	struct pd_reader *r;
	struct pd_hist *h;
	const char *why = NULL;
	char err[300];
	int ret, n = 0;

	if (profile_only(a))
		return REPORT_NO_HIST;
	r = pd_reader_open(path, err, sizeof(err));
	/* the report that follows says why it cannot be read */
	if (!r)
		return REPORT_NO_HIST;
	if (!pd_reader_info(r)->stat) {
		pd_reader_close(r);
		return REPORT_NO_HIST;
	}
	h = malloc(sizeof(*h));
	if (!h) {
		pd_reader_close(r);
		fprintf(stderr, "bpfrec report: out of memory\n");
		return BPFREC_EXIT_ERROR;
	}
	while ((ret = pd_reader_next(r, &rec)) > 0) {
		ret = pd_hist_decode(rec.raw, h, &why);
		if (ret < 0) {
			fprintf(stderr, "bpfrec report: %s: %s at byte %llu\n", path, why,
				(unsigned long long)rec.offset);
			break;
		}
		if (!ret)
			continue;
		if (!n++ && !a->json)
			printf("# run-time histograms of BPF programs (bpfrec stat -b --hist)\n");
		show(h, a->json);
	}
	if (ret < 0 && !why)
		fprintf(stderr, "bpfrec report: %s: %s\n", path, pd_reader_error(r));
	free(h);
	pd_reader_close(r);
	if (ret < 0)
		return BPFREC_EXIT_ERROR;
	return n ? BPFREC_EXIT_OK : REPORT_NO_HIST;
}
