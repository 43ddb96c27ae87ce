// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of samples and of files with many events: every sample
 * field written and read back, a sample cut at every byte refused by the
 * name of the field it ends in, records told apart by their event, and
 * Linux perf reading a file of a side-band event, a cpu-clock sampling
 * event with callchains and a bpf-output event with raw data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "util/perf_data/perf_data.h"

/* ---- every field of a sample ---------------------------------------- */

#define ALL_FIELDS	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
			 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |	\
			 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |		\
			 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |			\
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |		\
			 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |		\
			 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |		\
			 PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* The fields of ALL_FIELDS in the kernel's order, as the decoder names them. */
static const char *const field_order[] = {
	"IDENTIFIER", "IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU", "PERIOD",
	"READ", "CALLCHAIN", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "AUX",
};

static const __u64 all_ids[2] = { 500, 501 };
static const __u64 group_values[] = {
	/* { value, id, lost } of two counters */
	111, 500, 0, 222, 777, 3,
};
static const __u64 callchain[] = {
	PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, PERF_CONTEXT_USER, 0x401000,
};
static const char raw[] = "raw data of 21 bytes";
static const struct perf_branch_entry branches[2] = {
	{ .from = 0x401000, .to = 0x402000, .mispred = 1 },
	{ .from = 0x402010, .to = 0x401008, .predicted = 1, .cycles = 12 },
};
static const __u64 regs_user[3] = { 1, 2, 3 };	/* mask 0x7 */
static const __u64 regs_intr[2] = { 0xaa, 0xbb };	/* mask 0x300 */
static const char stack[] = "sixteen bytes!!";
static const char aux[8] = "auxdata";

static struct perf_event_attr all_fields_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		.sample_type = ALL_FIELDS,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0x7,
		.sample_regs_intr = 0x300,
		.sample_stack_user = sizeof(stack),
		.sample_id_all = 1,
	};
}

static struct pd_sample all_fields_sample(void)
{
	return (struct pd_sample){
		.id = all_ids[1], .ip = 0xffffffff81000010ULL, .pid = 42, .tid = 43,
		.time = 123456789, .addr = 0xdead0000, .stream_id = 9, .cpu = 1,
		.period = 100000,
		.read = { .time_enabled = 1000, .time_running = 900, .nr = 2,
			  .values = group_values },
		.nr_callchain = 4, .callchain = callchain,
		.raw_size = sizeof(raw), .raw = raw,
		.nr_branches = 2, .branch_hw_idx = 5, .branches = branches,
		.regs_user_abi = PERF_SAMPLE_REGS_ABI_64, .regs_user = regs_user,
		.stack_user_size = sizeof(stack), .stack_user = stack,
		.stack_user_dyn_size = 10,
		.weight = 0x0003000200000001ULL, .data_src = 0x1234,
		.transaction = 0x5678,
		.regs_intr_abi = PERF_SAMPLE_REGS_ABI_64, .regs_intr = regs_intr,
		.phys_addr = 0x1000, .cgroup = 77, .data_page_size = 4096,
		.code_page_size = 2097152, .aux_size = sizeof(aux), .aux = aux,
	};
}

static bool same_sample(const struct perf_event_attr *attr, const struct pd_sample *s)
{
	struct pd_read_value v0, v1;

	pd_read_value(attr, s, 0, &v0);
	pd_read_value(attr, s, 1, &v1);
	return s->id == 501 && s->ip == 0xffffffff81000010ULL && s->pid == 42 &&
	       s->tid == 43 && s->time == 123456789 && s->addr == 0xdead0000 &&
	       s->stream_id == 9 && s->cpu == 1 && s->period == 100000 &&
	       s->read.time_enabled == 1000 && s->read.time_running == 900 &&
	       s->read.nr == 2 && v0.value == 111 && v0.id == 500 && v0.lost == 0 &&
	       v1.value == 222 && v1.id == 777 && v1.lost == 3 &&
	       s->nr_callchain == 4 && !memcmp(s->callchain, callchain, sizeof(callchain)) &&
	       /* 4 + 21 bytes padded to 32: the size counts the padding */
	       s->raw_size == 28 && !memcmp(s->raw, raw, sizeof(raw)) &&
	       !((const char *)s->raw)[27] &&
	       s->nr_branches == 2 && s->branch_hw_idx == 5 &&
	       !memcmp(s->branches, branches, sizeof(branches)) &&
	       s->regs_user_abi == PERF_SAMPLE_REGS_ABI_64 &&
	       !memcmp(s->regs_user, regs_user, sizeof(regs_user)) &&
	       s->stack_user_size == 16 && !memcmp(s->stack_user, stack, 16) &&
	       s->stack_user_dyn_size == 10 && s->weight == 0x0003000200000001ULL &&
	       s->data_src == 0x1234 && s->transaction == 0x5678 &&
	       s->regs_intr_abi == PERF_SAMPLE_REGS_ABI_64 &&
	       !memcmp(s->regs_intr, regs_intr, sizeof(regs_intr)) &&
	       s->phys_addr == 0x1000 && s->cgroup == 77 && s->data_page_size == 4096 &&
	       s->code_page_size == 2097152 && s->aux_size == 8 && !memcmp(s->aux, aux, 8);
}

static struct pd_reader *open_ok(const char *file)
{
	char err[256] = "";
	struct pd_reader *r = pd_reader_open(file, err, sizeof(err));

	CHECK(r, "open %s%s%s", file, r ? "" : ": ", err);
	return r;
}

/* The first record of @type in @file, copied whole to @buf. */
static bool first_record(const char *file, __u32 type, void *buf, size_t len)
{
	struct pd_reader *r = open_ok(file);
	const __u8 *p;
	struct pd_record rec;
	size_t n;
	bool found = false;

	if (!r)
		return false;
	while (!found && pd_reader_next(r, &rec) > 0)
		found = rec.type == type;
	pd_reader_close(r);
	p = slurp(file, &n);
	if (found && rec.offset + rec.size <= n && rec.size <= len)
		memcpy(buf, p + rec.offset, rec.size);
	free((void *)p);
	return found;
}

static void test_every_field(void)
{
	struct perf_event_attr attr = all_fields_attr();
	struct pd_event ev = { .attr = &attr, .name = "all-fields", .ids = all_ids, .nr_ids = 2 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct pd_sample s = all_fields_sample(), got;
	static __u64 rec[1024];
	struct perf_event_header *h = (void *)rec;
	struct pd_reader *r;
	struct pd_record pr;
	struct pd_writer *w;
	const char *why, *last = NULL;
	size_t len, cut, nr_why = 0;
	bool order_ok = true, all_refused = true;

	if (!CHECK(!pd_writer_open(&w, path("all.data"), &cfg), "writer opens all.data"))
		return;
	CHECK(pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s) == 0, "every field written");
	s.id = 999;
	CHECK(pd_write_sample(w, 0, &s) == -EINVAL, "a sample of an unknown id is refused");
	CHECK(pd_writer_close(w) == 0, "all.data closed");

	r = open_ok(path("all.data"));
	if (!r)
		return;
	CHECK(pd_reader_next(r, &pr) == 1 && pr.type == PERF_RECORD_SAMPLE &&
	      pr.misc == PERF_RECORD_MISC_KERNEL && pr.event == 0 && pr.has_sample &&
	      same_sample(&attr, &pr.sample),
	      "every field of the sample read back as written");
	CHECK(pd_reader_info(r)->first_sample_time == 123456789,
	      "SAMPLE_TIME from the sample's TIME");
	pd_reader_close(r);

	/* Cut the body at every length: each cut ends in a field, in order. */
	if (!CHECK(first_record(path("all.data"), PERF_RECORD_SAMPLE, rec, sizeof(rec)),
		   "the sample's bytes"))
		return;
	len = h->size - sizeof(*h);
	CHECK(!pd_sample_decode(&attr, h + 1, len, &got, &why) && same_sample(&attr, &got),
	      "the whole body decodes (%zu bytes)", len);
	for (cut = 0; cut < len; cut++) {
		why = NULL;
		if (!pd_sample_decode(&attr, h + 1, cut, &got, &why)) {
			all_refused = false;
			continue;
		}
		if (last && !strcmp(last, why))
			continue;
		if (nr_why >= sizeof(field_order) / sizeof(field_order[0]) ||
		    strcmp(why, field_order[nr_why]))
			order_ok = false;
		last = why;
		nr_why++;
	}
	CHECK(all_refused, "every body cut short is refused");
	CHECK(order_ok && nr_why == 24,
	      "the cuts end in the 24 fields in the kernel's order (%zu, last %s)",
	      nr_why, last ? last : "-");
}

/* A single counter: its times sit inside its block, before id and lost. */
static void test_single_read(void)
{
	static const __u64 ids[1] = { 600 };
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_READ,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID |
			       PERF_FORMAT_LOST,
	};
	/* identifier, time, then the block: value, enabled, id, lost */
	const __u64 body[] = { 600, 7, 5000, 60, 31, 2 };
	struct pd_event ev = { .attr = &attr, .name = "one", .ids = ids, .nr_ids = 1 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct pd_sample s;
	struct pd_read_value v;
	struct pd_record rec;
	struct pd_reader *r;
	struct pd_writer *w;
	const char *why;

	CHECK(!pd_sample_decode(&attr, body, sizeof(body), &s, &why) && s.time == 7 &&
	      s.read.nr == 1 && s.read.time_enabled == 60,
	      "single counter: time and enabled decoded");
	pd_read_value(&attr, &s, 0, &v);
	CHECK(v.value == 5000 && v.id == 31 && v.lost == 2,
	      "single counter: value 5000, id 31, lost 2 (%llu, %llu, %llu)",
	      (unsigned long long)v.value, (unsigned long long)v.id,
	      (unsigned long long)v.lost);
	CHECK(pd_sample_decode(&attr, body, sizeof(body) - 8, &s, &why) == -EINVAL &&
	      !strcmp(why, "READ"), "single counter without its lost word: READ");

	/* written from the decoded sample, read back the same */
	pd_sample_decode(&attr, body, sizeof(body), &s, &why);
	if (!CHECK(!pd_writer_open(&w, path("one.data"), &cfg), "writer opens one.data"))
		return;
	pd_write_sample(w, 0, &s);
	pd_writer_close(w);
	r = open_ok(path("one.data"));
	if (!r)
		return;
	CHECK(pd_reader_next(r, &rec) == 1 && rec.size == 8 + sizeof(body) &&
	      !memcmp(rec.sample.read.values, body + 2, 4 * sizeof(__u64)),
	      "single counter: written back byte for byte");
	pd_reader_close(r);
}

/* ---- a file of three events ------------------------------------------ */

static const __u64 sb_ids[2] = { 2000, 2001 };
static const __u64 clk_ids[2] = { 2010, 2011 };
static const __u64 out_ids[2] = { 2020, 2021 };
static const __u64 chain[] = {
	PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, 0xffffffff81000020ULL,
	PERF_CONTEXT_USER, 0x401000, 0x401100,
};
static const char output[] = "bpf-output payload";

/* What the three events have in common: the clock and the sample_id. */
static struct perf_event_attr base_attr(__u32 config)
{
	struct perf_event_attr attr = sideband_attr();

	attr.config = config;
	attr.bpf_event = 0;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	return attr;
}

static int write_three(const char *file, struct perf_event_attr attrs[3])
{
	struct pd_event evs[3] = {
		{ .attr = &attrs[0], .name = "dummy:u", .ids = sb_ids, .nr_ids = 2 },
		{ .attr = &attrs[1], .name = "cpu-clock", .ids = clk_ids, .nr_ids = 2 },
		{ .attr = &attrs[2], .name = "bpf-output", .ids = out_ids, .nr_ids = 2 },
	};
	char *argv[] = { "bpfrec", "record" };
	struct pd_writer_config cfg = { .events = evs, .nr_events = 3, .argc = 2, .argv = argv };
	struct pd_sample s = { .pid = 4242, .tid = 4242, .cpu = 0 };
	/* as perf record synthesises it: where the kernel's symbols are */
	const struct pd_mmap kernel = {
		.pid = -1, .start = 0xffffffff81000000ULL, .len = 0x1000000,
		.pgoff = 0xffffffff81000000ULL, .filename = "[kernel.kallsyms]_text",
	};
	struct pd_writer *w;
	int i, err;

	attrs[0] = base_attr(PERF_COUNT_SW_DUMMY);
	attrs[0].bpf_event = attrs[0].ksymbol = attrs[0].comm = 1;
	attrs[1] = base_attr(PERF_COUNT_SW_CPU_CLOCK);
	attrs[1].sample_period = 1000000;
	attrs[1].sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	attrs[2] = base_attr(PERF_COUNT_SW_BPF_OUTPUT);
	attrs[2].sample_period = 1;
	attrs[2].sample_type |= PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	err = pd_writer_open(&w, file, &cfg);
	if (err)
		return err;
	s.id = sb_ids[0];
	pd_write_mmap(w, &kernel, PERF_RECORD_MISC_KERNEL, &s);
	s.time = 1000;
	pd_write_comm(w, 4242, 4242, "loader", true, &s);
	s.time = 2000;
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 77, NULL, &s);
	for (i = 0; i < 3; i++) {
		s.id = clk_ids[i % 2];
		s.cpu = i % 2;
		s.time = 3000 + i * 1000;
		s.ip = chain[1];
		s.period = 1000000;
		s.nr_callchain = 6;
		s.callchain = chain;
		pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	}
	s = (struct pd_sample){ .pid = 4242, .tid = 4242, .cpu = 1, .id = out_ids[1],
				.time = 7000, .period = 1, .raw_size = sizeof(output),
				.raw = output };
	pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	pd_write_finished_round(w);
	return pd_writer_close(w);
}

static void test_three_events(void)
{
	struct perf_event_attr attrs[3];
	const struct pd_file_info *in;
	struct pd_record rec;
	struct pd_reader *r;
	int n = 0, per_event[3] = { 0 }, other = 0;
	bool chain_ok = true, raw_ok = false;
	struct timespec before, now;

	/* the clock data is taken between these two times, however slow the machine */
	clock_gettime(CLOCK_REALTIME, &before);
	CHECK(write_three(path("three.data"), attrs) == 0, "three events written");
	r = open_ok(path("three.data"));
	if (!r)
		return;
	in = pd_reader_info(r);
	CHECK(in->nr_events == 3 && !strcmp(in->events[0].name, "dummy:u") &&
	      !strcmp(in->events[1].name, "cpu-clock") &&
	      !strcmp(in->events[2].name, "bpf-output"),
	      "three events, named by HEADER_EVENT_DESC");
	CHECK(in->events[1].nr_ids == 2 && in->events[1].ids[1] == 2011 &&
	      in->events[1].attr.sample_type == attrs[1].sample_type &&
	      in->events[1].attr.sample_period == 1000000 &&
	      in->events[2].attr.config == PERF_COUNT_SW_BPF_OUTPUT,
	      "each event's attr and ids");
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK(in->has_clock_data && in->clockid == CLOCK_MONOTONIC && in->clock_res_ns == 1 &&
	      in->clock_tod_ns / 1000000000 >= (__u64)before.tv_sec &&
	      in->clock_tod_ns / 1000000000 <= (__u64)now.tv_sec && in->clock_ref_ns > 0,
	      "CLOCKID 1 ns and CLOCK_DATA: monotonic, reference times of now");
	while (pd_reader_next(r, &rec) > 0) {
		n++;
		if (rec.type == PD_RECORD_FINISHED_ROUND)
			continue;
		if (rec.event < 0 || rec.event > 2) {
			other++;
			continue;
		}
		per_event[rec.event]++;
		if (rec.event == 1)
			chain_ok &= rec.sample.nr_callchain == 6 && rec.sample.callchain[4] == 0x401000 &&
				    rec.sample.period == 1000000;
		if (rec.event == 2)
			raw_ok = rec.sample.raw_size == 20 && !strcmp(rec.sample.raw, output) &&
				 rec.sample.time == 7000 && rec.sample.cpu == 1;
	}
	CHECK(n == 8 && !other && per_event[0] == 3 && per_event[1] == 3 && per_event[2] == 1,
	      "8 records: 3 side-band, 3 cpu-clock, 1 bpf-output (%d: %d, %d, %d)", n,
	      per_event[0], per_event[1], per_event[2]);
	CHECK(chain_ok, "cpu-clock samples: callchain of 6 and period");
	CHECK(raw_ok, "bpf-output sample: raw data, time, cpu");
	pd_reader_close(r);
}

/* Lines of @file: "" when none. */
static bool empty(const char *file)
{
	return count_lines(file, NULL, NULL, 0) == 0;
}

static void test_perf_reads_three(void)
{
	char line[1024];
	int ret;

	if (!have_perf("perf reads a file of three events"))
		return;
	ret = sh("/usr/bin/perf script -i %s >%s 2>%s", path("three.data"),
		 path("three-script.out"), path("three-script.err"));
	CHECK(ret == 0 && empty(path("three-script.err")),
	      "perf script: exit 0, nothing on stderr");
	CHECK(count_lines(path("three-script.out"), " cpu-clock:", NULL, 0) == 3,
	      "perf script: the 3 cpu-clock samples");
	count_lines(path("three-script.out"), "ffffffff81000020", line, sizeof(line));
	CHECK(count_lines(path("three-script.out"), "ffffffff81000020", NULL, 0) == 3 &&
	      count_lines(path("three-script.out"), "401100", NULL, 0) == 3,
	      "perf script: every callchain, kernel and user part: %s", line);
	CHECK(count_lines(path("three-script.out"), " bpf-output:", NULL, 0) == 1,
	      "perf script: the bpf-output sample");
	count_lines(path("three-script.out"), "bpf-output payload", line, sizeof(line));
	CHECK(strstr(line, "bpf-output payload"), "perf script: the raw data: %s", line);

	ret = sh("/usr/bin/perf report --stdio -i %s >%s 2>%s", path("three.data"),
		 path("three-report.out"), path("three-report.err"));
	CHECK(ret == 0 && empty(path("three-report.err")),
	      "perf report --stdio: exit 0, nothing on stderr");
	count_lines(path("three-report.out"), "# Samples: 3  of event 'cpu-clock'", line,
		    sizeof(line));
	CHECK(line[0], "perf report: 3 samples of cpu-clock");
	CHECK(count_lines(path("three-report.out"), "# Samples: 1  of event 'bpf-output'",
			  NULL, 0) == 1, "perf report: 1 sample of bpf-output");

	ret = sh("/usr/bin/perf report --header-only -i %s >%s 2>%s", path("three.data"),
		 path("three-header.out"), path("three-header.err"));
	CHECK(ret == 0 && empty(path("three-header.err")),
	      "perf report --header-only: exit 0, nothing on stderr");
	CHECK(count_lines(path("three-header.out"), "# event : name = ", NULL, 0) == 3,
	      "perf report --header-only: 3 events");
	CHECK(count_lines(path("three-header.out"), "# clockid: monotonic (1)", NULL, 0) == 1 &&
	      count_lines(path("three-header.out"), "# reference time: ", NULL, 0) == 1,
	      "perf report --header-only: clock and reference time");
	CHECK(!count_lines(path("three-header.out"), "arn", NULL, 0),
	      "perf report --header-only: no warning in the output");
}

int main(void)
{
	unit_setup();
	test_every_field();
	test_single_read();
	test_three_events();
	test_perf_reads_three();
	return unit_done();
}
