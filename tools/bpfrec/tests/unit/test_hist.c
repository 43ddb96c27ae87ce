// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the run-time histograms of a stat file (stat -b --hist
 * -o FILE, util/perf_data/hist.c) and of report showing them
 * (report_hist.c): a file written as stat writes it, with two programs'
 * histograms, read back by report as text (exact percentiles and bars,
 * a name escaped for the terminal) and as JSON (exact buckets); perf stat
 * report still reads the file; and every malformed histogram record,
 * each made by hand, is a one-line error and exit 1, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "tests/unit/unit.h"
#include "util/perf_data/format.h"

/* The counter of stat -o's files: bpfrec's own, one id. */
static const struct perf_event_attr attr = {
	.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, .sample_id_all = 1,
	.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
};
static const __u64 id = 1;

/* A stat file with one count and one round, then what @add writes. */
static bool stat_file(const char *file, int (*add)(struct pd_writer *w))
{
	struct pd_event ev = { .attr = &attr, .name = "runs:prog 42", .ids = &id, .nr_ids = 1 };
	char *argv[] = { "bpfrec", "stat", "-b", "42", "--hist", NULL };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1, .stat = true,
					.argc = 5, .argv = argv };
	struct pd_writer *w;
	int err;

	if (pd_writer_open(&w, file, &cfg))
		return false;
	err = pd_write_stat_config(w, 0);
	if (!err)
		err = pd_write_stat_maps(w, 1, "bpfrec");
	if (!err)
		err = pd_write_stat(w, id, 1000, 5000000, 5000000);
	if (!err)
		err = pd_write_stat_round(w, PD_STAT_ROUND_FINAL, 5000000);
	if (!err && add)
		err = add(w);
	return !pd_writer_close(w) && !err;
}

/*
 * Program 42: 900 runs in the fine bucket [288, 304) ns (82) and 100 in
 * [29696, 30720) (189), the longest 30700 ns; program 7, named with an
 * escape sequence, 3 runs of 5 ns.
 */
static int two_hists(struct pd_writer *w)
{
	static struct pd_hist h;
	int err;

	memset(&h, 0, sizeof(h));
	h.id = 42;
	strcpy(h.name, "stat_target_with_a_long_name");
	h.buckets[82] = 900;
	h.buckets[189] = 100;
	h.max_ns = 30700;
	err = pd_write_hist(w, &h);
	memset(&h, 0, sizeof(h));
	h.id = 7;
	strcpy(h.name, "\x1b[31mevil");
	h.buckets[5] = 3;
	h.max_ns = 5;
	return err ? err : pd_write_hist(w, &h);
}

/* @file has the line @want, whole. */
static bool has_line(const char *file, const char *want)
{
	FILE *f = fopen(file, "r");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strcmp(line, want);
	}
	if (f)
		fclose(f);
	return found;
}

/* A bar of @n '@' of 52, after @head. */
static const char *bar(const char *head, int n)
{
	static char s[128];
	int i, len = snprintf(s, sizeof(s), "%s", head);

	for (i = 0; i < 52; i++)
		s[len++] = i < n ? '@' : ' ';
	s[len++] = '|';
	s[len] = 0;
	return s;
}

static void test_text(void)
{
	char *argv[] = { "report", "-i", path("hist.data"), NULL };
	const char *out = path("hist.txt");

	CHECK(run_cmd(cmd_report, 3, argv, out) == 0, "report of a stat file with histograms exits 0");
	CHECK(has_line(out, "# run-time histograms of BPF programs (bpfrec stat -b --hist)"),
	      "report: the histograms' header");
	CHECK(has_line(out, "prog 42 stat_target_with_a_long_name: 1000 runs, p50 297 ns, p90 304 ns, p99 30612 ns, max 30700 ns"),
	      "report: 1000 runs and the percentiles interpolated in their buckets");
	CHECK(has_line(out, "@ns[stat_target_with_a_long_name]:"), "report: bpftrace's @ns[name]: line");
	CHECK(has_line(out, bar("[256, 512)               900 |", 52)), "report: 900 runs in [256, 512), the longest bar");
	CHECK(has_line(out, bar("[512, 1K)                  0 |", 0)), "report: the empty buckets between are drawn");
	CHECK(has_line(out, bar("[16K, 32K)               100 |", 5)), "report: 100 runs in [16K, 32K), 5/52 of the bar");
	CHECK(count_lines(out, " |", NULL, 0) == 7 + 1, "report: 7 bars for program 42 and 1 for program 7");
	CHECK(has_line(out, "prog 7 \\x1b[31mevil: 3 runs, p50 5 ns, p90 5 ns, p99 5 ns, max 5 ns"),
	      "report: a name's escape sequence shown escaped");
	CHECK(count_lines(out, "\x1b", NULL, 0) == 0, "report: no raw escape reaches the terminal");
}

static void test_json(void)
{
	char *argv[] = { "report", "-i", path("hist.data"), "--json", NULL };
	const char *out = path("hist.json");

	CHECK(run_cmd(cmd_report, 4, argv, out) == 0, "report --json exits 0");
	CHECK(has_line(out, "{\"id\":42,\"name\":\"stat_target_with_a_long_name\",\"runs\":1000,\"p50_ns\":297,\"p90_ns\":304,\"p99_ns\":30612,\"max_ns\":30700,\"buckets_ns\":{\"256\":900,\"16384\":100}}"),
	      "report --json: program 42's runs, percentiles and log2 buckets");
	CHECK(has_line(out, "{\"id\":7,\"name\":\"\\u001b[31mevil\",\"runs\":3,\"p50_ns\":5,\"p90_ns\":5,\"p99_ns\":5,\"max_ns\":5,\"buckets_ns\":{\"4\":3}}"),
	      "report --json: program 7, its name escaped as JSON");
	CHECK(count_lines(out, NULL, NULL, 0) == 2, "report --json: one line per histogram");
}

/* The raw histogram record being tested. */
static __u8 raw[512];

static int put_raw(struct pd_writer *w)
{
	return pd_write_raw(w, (const struct perf_event_header *)raw);
}

/*
 * A histogram record of @nr buckets, @size bytes in its header: @b[i]
 * the bucket and @r[i] its runs.
 */
static void craft(__u32 nr, __u16 size, const __u32 *b, const __u64 *r, bool name_ok)
{
	struct perf_event_header h = { .type = PD_RECORD_FACTS, .size = size };
	__u32 magic = 0x48465042, i;

	memset(raw, 0, sizeof(raw));
	memcpy(raw, &h, sizeof(h));
	memcpy(raw + 8, &magic, 4);
	memcpy(raw + 12, &nr, 4);
	raw[16] = 9;		/* id 9 */
	memset(raw + 32, 'a', name_ok ? 8 : 128);
	for (i = 0; i < nr && 160 + 16 * (i + 1) <= sizeof(raw); i++) {
		memcpy(raw + 160 + 16 * i, &b[i], 4);
		memcpy(raw + 160 + 16 * i + 8, &r[i], 8);
	}
}

static void bad(const char *what, __u32 nr, __u16 size, const __u32 *b, const __u64 *r,
		bool name_ok)
{
	char *argv[] = { "report", "-i", path("bad.data"), NULL };
	const char *out = path("bad.txt");

	craft(nr, size, b, r, name_ok);
	if (!CHECK(stat_file(path("bad.data"), put_raw), "%s: the file is written", what))
		return;
	CHECK(run_cmd(cmd_report, 3, argv, out) == BPFREC_EXIT_ERROR && file_size(out) == 0,
	      "%s: report exits 1 and shows nothing", what);
}

static void test_malformed(void)
{
	/* three each: the record that claims a third bucket reads one */
	const __u32 ok[3] = { 3, 4, 5 }, range[3] = { PD_HIST_BUCKETS }, order[3] = { 4, 3 },
		    same[3] = { 4, 4 };
	const __u64 runs[3] = { 1, 1, 1 }, huge[3] = { 1ULL << 63, 1ULL << 63 }, none[3] = { 0 };

	/* the well-formed one, as the others are made */
	craft(2, 160 + 32, ok, runs, true);
	CHECK(stat_file(path("good.data"), put_raw), "a hand-made histogram: written");
	{
		char *argv[] = { "report", "-i", path("good.data"), "--json", NULL };

		CHECK(run_cmd(cmd_report, 4, argv, path("good.json")) == 0 &&
		      has_line(path("good.json"), "{\"id\":9,\"name\":\"aaaaaaaa\",\"runs\":2,\"p50_ns\":4,\"p90_ns\":5,\"p99_ns\":5,\"max_ns\":0,\"buckets_ns\":{\"2\":1,\"4\":1}}"),
		      "a hand-made histogram: read as made");
	}
	bad("a bucket out of range", 1, 160 + 16, range, runs, true);
	bad("buckets out of order", 2, 160 + 32, order, runs, true);
	bad("a bucket twice", 2, 160 + 32, same, runs, true);
	bad("a bucket without runs", 1, 160 + 16, ok, none, true);
	bad("runs that overflow 64 bits", 2, 160 + 32, ok, huge, true);
	bad("more buckets than the record holds", 3, 160 + 32, ok, runs, true);
	bad("fewer buckets than the record holds", 1, 160 + 32, ok, runs, true);
	bad("shorter than the fixed part", 0, 24, ok, runs, true);
	bad("a name without its NUL", 2, 160 + 32, ok, runs, false);
}

int main(void)
{
	char cmd[512];

	unit_setup();
	if (CHECK(stat_file(path("hist.data"), two_hists), "a stat file with two histograms: written")) {
		test_text();
		test_json();
		if (have_perf("perf stat report of a file with histograms")) {
			snprintf(cmd, sizeof(cmd), "perf stat report -i %s >%s 2>&1", path("hist.data"),
				 path("perf.txt"));
			CHECK(sh("%s", cmd) == 0 && count_lines(path("perf.txt"), " 1000      runs:prog 42 ", NULL, 0) == 1,
			      "perf stat report skips the histograms and shows the count");
		}
	}
	test_malformed();
	return unit_done();
}
