// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the time-ordered reader (pd_ordered): records of CPUs
 * drained one after another come out in time order, round by round,
 * with no more than two rounds in memory; a record older than what was
 * delivered is counted as late; a file without rounds is held within
 * the byte budget, its older half delivered when it is full.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "util/perf_data/perf_data.h"

static const __u64 ids[2] = { 10, 11 };

static struct pd_writer *open_writer(const char *file)
{
	struct perf_event_attr attr = sideband_attr();

	return one_event_writer(file, &attr, ids, 2);
}

/* A PROG_LOAD whose program id is its time, so the order shows in the ids. */
static void put(struct pd_writer *w, __u64 time)
{
	struct pd_sample s = { .pid = 1, .tid = 1, .time = time, .cpu = time % 2,
			       .id = ids[time % 2] };

	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, time, NULL, &s);
}

static __u64 budget;		/* of the reads to come, 0 for the default */

/* The program ids of @file in delivery order, as "a,b,c". */
static int read_order(const char *file, char *buf, size_t len, struct pd_ordered_stats *st)
{
	char err[256];
	struct pd_reader *r = pd_reader_open(file, err, sizeof(err));
	struct pd_ordered *o;
	struct pd_record rec;
	size_t pos = 0;
	int ret;

	buf[0] = 0;
	if (!r)
		return -1;
	o = pd_ordered_new(r);
	if (budget)
		pd_ordered_set_budget(o, budget);
	while ((ret = pd_ordered_next(o, &rec)) > 0)
		pos += snprintf(buf + pos, len - pos, "%s%u", pos ? "," : "", rec.bpf.id);
	pd_ordered_stats(o, st);
	pd_ordered_free(o);
	pd_reader_close(r);
	return ret;
}

static void test_rounds(void)
{
	struct pd_writer *w = open_writer(path("rounds.data"));
	struct pd_ordered_stats st;
	char order[256];

	if (!CHECK(w, "writer opens rounds.data"))
		return;
	/* CPU 1's ring drained before CPU 0's: 30 comes before 10 and 20 */
	put(w, 30);
	put(w, 10);
	put(w, 20);
	pd_write_finished_round(w);
	/* 25 happened during the first drain: older than the round's 30 */
	put(w, 25);
	put(w, 40);
	put(w, 35);
	pd_write_finished_round(w);
	put(w, 50);
	put(w, 45);
	pd_writer_close(w);
	CHECK(read_order(path("rounds.data"), order, sizeof(order), &st) == 0 &&
	      !strcmp(order, "10,20,25,30,35,40,45,50"),
	      "records delivered in time order across rounds: %s", order);
	CHECK(st.rounds == 3 && st.max_queued == 6 && st.late == 0,
	      "3 flushes, at most the 6 records of two rounds held, none late "
	      "(%llu, %llu, %llu)", (unsigned long long)st.rounds,
	      (unsigned long long)st.max_queued, (unsigned long long)st.late);
}

static void test_late(void)
{
	struct pd_writer *w = open_writer(path("late.data"));
	struct pd_ordered_stats st;
	char order[256];

	if (!CHECK(w, "writer opens late.data"))
		return;
	put(w, 20);
	put(w, 10);
	pd_write_finished_round(w);
	put(w, 30);
	pd_write_finished_round(w);
	/* older than 10 and 20, which went out at the round before */
	put(w, 5);
	put(w, 40);
	pd_writer_close(w);
	CHECK(read_order(path("late.data"), order, sizeof(order), &st) == 0 &&
	      !strcmp(order, "10,20,5,30,40"),
	      "a record older than what was delivered comes next: %s", order);
	CHECK(st.late == 1, "and is counted late (%llu)", (unsigned long long)st.late);
}

/* 1000 rounds of 10 records: memory is two rounds, not the file. */
static void test_bounded(void)
{
	struct pd_writer *w = open_writer(path("long.data"));
	struct pd_ordered_stats st;
	static char order[65536];
	int round, i, sorted = 1;
	char *p;
	long prev = -1;

	if (!CHECK(w, "writer opens long.data"))
		return;
	for (round = 0; round < 1000; round++) {
		/* each round's records arrive newest first */
		for (i = 9; i >= 0; i--)
			put(w, 2 + round * 10 + i);
		pd_write_finished_round(w);
	}
	pd_writer_close(w);
	CHECK(read_order(path("long.data"), order, sizeof(order), &st) == 0,
	      "10000 records read");
	for (p = order, i = 0; *p; i++) {
		long v = strtol(p, &p, 10);

		sorted &= v > prev;
		prev = v;
		p += *p == ',';
	}
	CHECK(i == 10000 && sorted, "all 10000 in time order (%d)", i);
	CHECK(st.max_queued <= 20, "at most two rounds held: %llu records",
	      (unsigned long long)st.max_queued);
}

/*
 * 1000 records and no round end (a crafted file, a decompression bomb):
 * a budget of about 20 records' bytes (a record of at most 64 bytes
 * here, 64 of bookkeeping) makes it deliver the older half each time it
 * is full: never more than a few records over 20 wait.
 */
static void test_budget(void)
{
	struct pd_writer *w = open_writer(path("noround.data"));
	struct pd_ordered_stats st;
	static char order[16384];
	int i, n = 0;
	char *p;

	if (!CHECK(w, "writer opens noround.data"))
		return;
	for (i = 0; i < 1000; i++)
		put(w, 2 + (i ^ 1));
	pd_writer_close(w);
	budget = 20 * (64 + 64);
	CHECK(read_order(path("noround.data"), order, sizeof(order), &st) == 0,
	      "1000 records without a round end read within a budget");
	budget = 0;
	for (p = order; *p; n++) {
		strtol(p, &p, 10);
		p += *p == ',';
	}
	CHECK(n == 1000 && st.max_queued <= 24 && st.forced >= 80,
	      "all delivered (%d), at most 24 held (%llu), %llu flushes forced by the budget",
	      n, (unsigned long long)st.max_queued, (unsigned long long)st.forced);
	CHECK(!strncmp(order, "2,3,4,5,6,7,8,9,10,11,", 22),
	      "each half delivered in time order: %.40s", order);
}

/* A round that ends before any record came: nothing queued yet (UBSan). */
static void test_round_first(void)
{
	struct pd_writer *w = open_writer(path("first.data"));
	struct pd_ordered_stats st;
	char order[256];

	if (!CHECK(w, "writer opens first.data"))
		return;
	pd_write_finished_round(w);
	put(w, 20);
	put(w, 10);
	pd_writer_close(w);
	CHECK(read_order(path("first.data"), order, sizeof(order), &st) == 0 &&
	      !strcmp(order, "10,20"), "a round ended before the first record: %s", order);
}

int main(void)
{
	unit_setup();
	test_round_first();
	test_rounds();
	test_late();
	test_bounded();
	test_budget();
	return unit_done();
}
