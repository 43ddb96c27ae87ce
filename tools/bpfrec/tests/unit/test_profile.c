// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the profile of bpfrec report, on a crafted file: folded
 * stacks line by line; BPF code named through the KSYMBOL history (the
 * same address, reused by another program after an unload, gets the new
 * name; after the unload and before the reuse, no name); user code named
 * from this test binary's own ELF symbols through a recorded mapping; a
 * mapped file that does not exist shown by its name; kernel symbols of
 * another boot refused; the table by BPF program; off-CPU time per stack
 * with its total; the flame graph's frames and weights.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "util/fit.h"
#include "util/flamegraph.h"
#include "util/off_cpu_raw.h"
#include "util/profile_print.h"

#define BPF_ADDR	0xffffffffa0000000ULL
#define FAKE_LIB	0x400000ULL

static const __u64 cpu_ids[1] = { 20 }, off_ids[1] = { 21 };

__attribute__((noinline)) int profile_marker(int x)
{
	return x * 3 + 1;
}

/* This binary's mapping holding profile_marker(), from /proc/self/maps. */
static bool own_mapping(struct pd_mmap *m, char *file, size_t len)
{
	__u64 addr = (__u64)(unsigned long)profile_marker, start, end, off;
	char line[512], perms[8], path[400];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %399s", &start, &end, perms, &off,
			   path) != 5 || addr < start || addr >= end)
			continue;
		snprintf(file, len, "%s", path);
		*m = (struct pd_mmap){ .pid = 100, .tid = 100, .start = start, .len = end - start,
				       .pgoff = off, .filename = file };
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static struct pd_sample at(__u64 time, __u64 id)
{
	return (struct pd_sample){ .pid = 100, .tid = 100, .time = time, .id = id };
}

static void sample(struct pd_writer *w, __u64 time, __u64 id, __u64 period,
		   const __u64 *chain, size_t nr)
{
	struct pd_sample s = at(time, id);

	s.ip = chain[1];
	s.period = period;
	s.callchain = chain;
	s.nr_callchain = nr;
	pd_write_sample(w, chain[0] == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER :
			PERF_RECORD_MISC_KERNEL, &s);
}

static bool craft(const char *file)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 250000,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = 1,
	};
	struct pd_event ev[2] = {
		{ .attr = &attr, .name = "cpu-clock", .ids = cpu_ids, .nr_ids = 1 },
		{ .attr = &attr, .name = PROFILE_OFFCPU_EVENT, .ids = off_ids, .nr_ids = 1 },
	};
	struct pd_writer_config cfg = { .events = ev, .nr_events = 2 };
	__u64 marker = (__u64)(unsigned long)profile_marker + 4;
	const __u64 in_bpf[] = { PERF_CONTEXT_KERNEL, BPF_ADDR + 0x10, PERF_CONTEXT_USER,
				 marker, FAKE_LIB + 0x10 };
	const __u64 in_user[] = { PERF_CONTEXT_USER, marker };
	const __u8 tag1[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	const __u8 tag2[8] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	struct pd_mmap kernel = { .pid = -1, .start = 0xffffffff81000000ULL, .len = 0x1000000,
				  .pgoff = 0x1234, .filename = "[kernel.kallsyms]_text" };
	struct pd_mmap lib = { .pid = 100, .tid = 100, .start = FAKE_LIB, .len = 0x100000,
			       .filename = "/nonexistent/libfake.so" };
	struct pd_mmap self;
	struct pd_sample s;
	struct pd_writer *w;
	char exe[400];
	__u64 t;
	int i;

	if (!own_mapping(&self, exe, sizeof(exe)) || pd_writer_open(&w, file, &cfg))
		return false;
	s = at(1, 20);
	pd_write_comm(w, 100, 100, "worker", true, &s);
	s = at(2, 20);
	pd_write_mmap(w, &kernel, PERF_RECORD_MISC_KERNEL, &s);
	pd_write_mmap(w, &lib, PERF_RECORD_MISC_USER, &s);
	pd_write_mmap(w, &self, PERF_RECORD_MISC_USER, &s);
	s = at(3, 20);
	pd_write_ksymbol(w, BPF_ADDR, 0x100, PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
			 "bpf_prog_0123456789abcdef_busy_prog", &s);
	s = at(4, 20);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 77, tag1, &s);
	for (t = 5, i = 0; i < 3; i++)
		sample(w, t++, 20, 250000, in_bpf, 5);
	for (i = 0; i < 2; i++)
		sample(w, t++, 20, 250000, in_user, 2);
	s = at(t++, 20);
	pd_write_ksymbol(w, BPF_ADDR, 0x100, PERF_RECORD_KSYMBOL_TYPE_BPF,
			 PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
			 "bpf_prog_0123456789abcdef_busy_prog", &s);
	sample(w, t++, 20, 250000, in_bpf, 2);
	s = at(t++, 20);
	pd_write_ksymbol(w, BPF_ADDR, 0x80, PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
			 "bpf_prog_fedcba9876543210_other", &s);
	s = at(t++, 20);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 78, tag2, &s);
	sample(w, t++, 20, 250000, in_bpf, 2);
	/* off CPU: two intervals of 100 ms in the same stack */
	for (i = 0; i < 2; i++)
		sample(w, t++, 21, 100000000, in_user, 2);
	return pd_writer_close(w) == 0;
}

/* What @fn prints of @p for @v, as one string (malloc'ed). */
static char *output(int (*fn)(const struct profile *, const struct profile_view *, FILE *),
		    const struct profile *p, const struct profile_view *v)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	fn(p, v, f);
	fclose(f);
	return buf;
}

static void test_folded(const struct profile *p)
{
	struct profile_view v = { .event = profile_cpu_event(p) };
	char *out = output(profile_print_folded, p, &v);

	CHECK(v.event == 0, "the CPU event is cpu-clock (%d)", v.event);
	CHECK(!strcmp(out, "worker;[libfake.so];profile_marker;busy_prog 3\n"
			   "worker;[unknown] 1\n"
			   "worker;other 1\n"
			   "worker;profile_marker 2\n"),
	      "folded stacks, line by line:\n%s", out);
	free(out);
}

static void test_table(const struct profile *p)
{
	struct profile_view v = { .event = 0, .json = true };
	char err[128], *out;

	CHECK(profile_parse_sort(&v, "bpf", err, sizeof(err)) == 0, "--sort bpf parses");
	out = output(profile_print_table, p, &v);
	CHECK(!strcmp(out, "{\"overhead\":42.86,\"samples\":3,\"period\":750000,\"bpf\":\"-\"}\n"
			   "{\"overhead\":42.86,\"samples\":3,\"period\":750000,\"bpf\":\"busy_prog (id 77)\"}\n"
			   "{\"overhead\":14.29,\"samples\":1,\"period\":250000,\"bpf\":\"other (id 78)\"}\n"),
	      "table by BPF program:\n%s", out);
	free(out);
	CHECK(profile_parse_sort(&v, "comm,nope", err, sizeof(err)) &&
	      !strcmp(err, "bad --sort 'comm,nope': keys are comm, dso, sym, bpf, pid"),
	      "an unknown sort key is refused: %s", err);
	CHECK(profile_parse_sort(&v, "comm,", err, sizeof(err)), "a trailing comma is refused");
}

static void test_off_cpu(const struct profile *p)
{
	struct profile_view v = { .event = profile_event(p, PROFILE_OFFCPU_EVENT), .off_cpu = true };
	char *out = output(profile_print_folded, p, &v);

	CHECK(v.event == 1, "the off-CPU event is found (%d)", v.event);
	CHECK(!strcmp(out, "worker;profile_marker 200000000\n"), "off-CPU folded in ns: %s", out);
	free(out);
	out = output(profile_print_stacks, p, &v);
	CHECK(strstr(out, "\n  200.0 ms, 100.00%, 2 intervals: worker\n") &&
	      strstr(out, "\n# total: 200.0 ms off CPU in 2 intervals, 1 stacks\n"),
	      "off-CPU stacks with their total:\n%s", out);
	free(out);
}

static void test_flamegraph(const struct profile *p)
{
	struct profile_view v = { .event = 0 };
	struct folded *lines;
	char *buf = NULL;
	size_t nr, len;
	FILE *f = open_memstream(&buf, &len);

	CHECK(profile_folded(p, &v, &lines, &nr) == 0 && nr == 4, "4 folded stacks");
	CHECK(flamegraph_write(f, lines, nr, "test <&>", "samples") == 0, "flame graph written");
	fclose(f);
	CHECK(strstr(buf, "data-x=\"0\" data-v=\"7\" data-n=\"all\"") != NULL, "root of 7 samples");
	CHECK(strstr(buf, "data-v=\"3\" data-n=\"busy_prog\"><title>busy_prog (3 samples, 42.86%)"),
	      "busy_prog's frame, 3 of 7 samples");
	/* 1180 pixels for 7 samples: 3 samples are 505.71 */
	CHECK(strstr(buf, "width=\"505.71\"") != NULL, "its width is 3/7 of the graph");
	CHECK(strstr(buf, "test &lt;&amp;&gt;") != NULL, "the title is escaped");
	profile_folded_free(lines, nr);
	free(buf);
}

/*
 * The idle task has no COMM record: its samples are swapper's, as perf
 * names them, not "[unknown]"; --sort pid shows pid 0 with that name.
 */
static void test_swapper(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 250000,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
	};
	struct pd_event ev = { .attr = &attr, .name = "cpu-clock", .ids = cpu_ids, .nr_ids = 1 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct profile_view v = { .event = 0, .json = true };
	struct pd_sample s = { .time = 1, .id = 20, .ip = 0xffffffff81000100ULL,
			       .period = 250000 };
	const char *file = path("idle.data");
	struct pd_writer *w;
	struct profile p;
	char err[256], *out;

	if (!CHECK(!pd_writer_open(&w, file, &cfg), "idle: file opened"))
		return;
	pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	if (!CHECK(!pd_writer_close(w), "idle: written") ||
	    !CHECK(profile_read(&p, file, NULL, err, sizeof(err)) == 0, "idle: read: %s", err))
		return;
	profile_parse_sort(&v, "comm,pid", err, sizeof(err));
	out = output(profile_print_table, &p, &v);
	CHECK(!strcmp(out, "{\"overhead\":100.00,\"samples\":1,\"period\":250000,\"comm\":\"swapper\",\"pid\":0}\n"),
	      "the idle task is swapper: %s", out);
	free(out);
	profile_free(&p);
}

/* Names cut in the middle, the cut shown, and as distinct as they were. */
static void test_fit(void)
{
	const char *v[] = { "tracepoint__syscalls__sys_enter_execve",
			    "tracepoint__syscalls__sys_exit_execve", "short" };
	char buf[64];
	int w;

	CHECK(!strcmp(fit_cut(v[0], 16, buf, sizeof(buf)), "tracepo.._execve"),
	      "cut in the middle: %s", buf);
	CHECK(!strcmp(fit_cut(v[2], 16, buf, sizeof(buf)), "short"), "a short name whole");
	w = fit_unique_width(v, 3, 16);
	CHECK(w > 16 && w < (int)strlen(v[1]) &&
	      strcmp(fit_cut(v[0], w, buf, sizeof(buf)), fit_cut(v[1], w, buf + 32, 32)),
	      "the column widened until the two cut names differ (%d): %s, %s", w, buf, buf + 32);
	/* or at 16 columns, the end longer by one: "r_execve" and "t_execve" */
	w = fit_unique_head(v, 3, 16);
	CHECK(w == 6 && !strcmp(fit_cut_at(v[0], 16, w, buf, sizeof(buf)), "tracep..r_execve") &&
	      !strcmp(fit_cut_at(v[1], 16, w, buf + 32, 32), "tracep..t_execve"),
	      "or kept at its width, cut where the names differ (%d): %s, %s", w, buf, buf + 32);
	w = fit_unique_head(v, 3, 8);
	CHECK(w == -1, "no cut of 8 columns tells them apart (%d)", w);
	w = fit_unique_head(v + 1, 2, 16);
	CHECK(w == 7, "names that cut apart: the balanced cut (%d)", w);
}

/*
 * An off-CPU sample's raw data: perf's layout, then the state (what perf 7.2
 * reads, or it rejects the file), and the state alone of older files.
 */
static void test_off_cpu_raw(void)
{
	const __u64 ips[3] = { PERF_CONTEXT_KERNEL, 0xffffffff81000105ULL, 0xffffffff81000200ULL };
	__u64 buf[16];
	__u64 w[8];
	__u32 state = 0, size, old = 2;

	memset(buf, 0xaa, sizeof(buf));
	size = offcpu_raw_fill(buf, 100, 101, 123456789, 3, ips, 77, 4);
	/* perf reads it at offset 4 of the raw field: the words as they are */
	memcpy(w, buf, sizeof(w));
	CHECK(size == 8 * 7 + 4 && (__u32)w[0] == 100 && w[0] >> 32 == 101 &&
	      w[1] == 123456789 && w[2] == 3 && !memcmp(&w[3], ips, sizeof(ips)) && w[6] == 77,
	      "perf's layout: pid, tid, period, nr, ips, cgroup (%u bytes)", size);
	CHECK(offcpu_raw_state(buf, size, &state) && state == 4, "the state after it");
	CHECK(offcpu_raw_state(&old, sizeof(old), &state) && state == 2,
	      "an older file's state alone");
	size = offcpu_raw_fill(buf, 1, 1, 1, 0, NULL, 0, 1);
	CHECK(size == 36 && offcpu_raw_state(buf, size, &state) && state == 1,
	      "no callchain: 36 bytes, the state read");
	CHECK(!offcpu_raw_state(buf, 35, &state) && !offcpu_raw_state(buf, 8, &state) &&
	      !offcpu_raw_state(NULL, 4, &state), "short data is refused");
	w[0] = ~0ULL;
	memcpy((char *)buf + 16, w, sizeof(w[0]));
	CHECK(!offcpu_raw_state(buf, 36, &state), "an nr past the data is refused");
	w[0] = 1;
	memcpy((char *)buf + 16, w, sizeof(w[0]));
	CHECK(!offcpu_raw_state(buf, 43, &state) && offcpu_raw_state(buf, 44, &state),
	      "an nr of 1 needs 44 bytes");
}

int main(void)
{
	struct profile p;
	char err[256];
	const char *file;

	unit_setup();
	file = path("profile.data");
	if (CHECK(craft(file), "crafted %s", file) &&
	    CHECK(profile_read(&p, file, NULL, err, sizeof(err)) == 0, "profile read: %s", err)) {
		CHECK(!p.have_ksyms && strstr(p.ksyms_note, "(0x1234) is not this boot's"),
		      "kernel symbols of another boot refused: %s", p.ksyms_note);
		CHECK(p.event_samples[0] == 7 && p.event_samples[1] == 2, "7 CPU and 2 off-CPU samples");
		test_folded(&p);
		test_table(&p);
		test_off_cpu(&p);
		test_flamegraph(&p);
		profile_free(&p);
	}
	test_swapper();
	test_fit();
	test_off_cpu_raw();
	return unit_done();
}
