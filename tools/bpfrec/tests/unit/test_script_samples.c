// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec script on samples: a file of a cpu-clock event, an off-CPU
 * event and a tracepoint, with perf's tracing data (a format and
 * kallsyms), written with the writer and shown by the script command.
 */
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "tests/lib/tracing_data.h"
#include "tests/unit/unit.h"

static const __u64 side_ids[1] = { 100 };
static const __u64 clock_ids[1] = { 200 };
static const __u64 offcpu_ids[1] = { 300 };
static const __u64 tp_ids[1] = { 400 };

#define TP_ID		1234
#define BPF_ADDR	0xffffffffc0001000ULL

static const char tp_format[] =
	TRACING_TP_HEAD
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char name[8];\toffset:12;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long count;\toffset:20;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"value=%d name=%s count=%llu\", REC->value, REC->name, REC->count\n";

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T my_func\n"
	"ffffffff81000200 T other_func\n"
	"ffffffff81000300 T _etext\n";

struct tp_raw {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__s32 value;
	char name[8];
	__u64 count;
} __attribute__((packed));

static int ksymbol(struct pd_writer *w, const char *name, __u64 time)
{
	struct pd_sample s = { .pid = 7, .tid = 7, .time = time, .id = side_ids[0] };

	return pd_write_ksymbol(w, BPF_ADDR, 0x100, PERF_RECORD_KSYMBOL_TYPE_BPF, 0, name, &s);
}

/* @blob_len short of the whole blob: a malformed tracing data */
static int write_file(const char *file, size_t cut)
{
	struct perf_event_attr side = sideband_attr();
	struct perf_event_attr clock = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(clock), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = 1,
	};
	struct perf_event_attr offcpu = clock, tp = clock;
	struct pd_event evs[4] = {
		{ .attr = &side, .name = "bpf-events", .ids = side_ids, .nr_ids = 1 },
		{ .attr = &clock, .name = "cpu-clock", .ids = clock_ids, .nr_ids = 1 },
		{ .attr = &offcpu, .name = "offcpu-time", .ids = offcpu_ids, .nr_ids = 1 },
		{ .attr = &tp, .name = "test:tp", .ids = tp_ids, .nr_ids = 1 },
	};
	struct pd_writer_config cfg = { .events = evs, .nr_events = 4 };
	__u64 user_chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000105ULL,
			       PERF_CONTEXT_USER, 0x401000 };
	__u64 bpf_chain[] = { PERF_CONTEXT_KERNEL, BPF_ADDR + 0x10, 0xffffffff81000203ULL };
	struct tp_raw raw = { .common_type = TP_ID, .value = -3, .name = "abc", .count = 42 };
	struct pd_sample s = { .pid = 7, .tid = 7, .cpu = 1 };
	struct pd_writer *w;
	struct blob b = {};
	void *data;
	int err;

	offcpu.config = PERF_COUNT_SW_BPF_OUTPUT;
	tp.type = PERF_TYPE_TRACEPOINT;
	tp.config = TP_ID;
	tp.sample_type = (tp.sample_type & ~PERF_SAMPLE_CALLCHAIN) | PERF_SAMPLE_RAW;
	tracing_data_craft(&b, tp_format, kallsyms);
	/* the writer takes the malloc()ed buffer */
	data = b.p;
	err = pd_writer_open(&w, file, &cfg);
	if (err) {
		free(data);
		return err;
	}
	pd_writer_give_tracing_data(w, data, b.len - cut);
	/* an off-CPU interval of 123456789 ns, asleep in my_func */
	s.time = 1000;
	s.id = offcpu_ids[0];
	s.ip = 0xffffffff81000105ULL;
	s.period = 123456789;
	s.callchain = user_chain;
	s.nr_callchain = 4;
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	/* CPU samples in a BPF image, before and after another took its place */
	s.id = clock_ids[0];
	s.ip = BPF_ADDR + 0x10;
	s.period = 1000000;
	s.callchain = bpf_chain;
	s.nr_callchain = 3;
	if (!err)
		err = ksymbol(w, "bpf_prog_aaaa_first", 1500);
	s.time = 2000;
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	if (!err)
		err = ksymbol(w, "bpf_prog_bbbb_second", 2500);
	s.time = 3000;
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	s.time = 4000;
	s.id = tp_ids[0];
	s.ip = 0xffffffff81000203ULL;
	s.period = 1;
	s.raw = &raw;
	s.raw_size = sizeof(raw);
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

static void first(const char *file, const char *needle, char *line, size_t len)
{
	line[0] = 0;
	count_lines(file, needle, line, len);
	line[strcspn(line, "\n")] = 0;
}

static void test_script(const char *data)
{
	char file[512], line[1024];
	char *argv[] = { "script", "-i", file, "--json", NULL };
	int ret;

	/* path()'s results are overwritten after a few calls: a copy */
	snprintf(file, sizeof(file), "%s", data);
	ret = run_cmd(cmd_script, 3, argv, path("out.txt"));
	CHECK(ret == 0, "script exits 0 (%d)", ret);
	first(path("out.txt"), " offcpu-time ", line, sizeof(line));
	CHECK(strstr(line, " my_func ") && strstr(line, " kernel ") &&
	      strstr(line, " ip=0xffffffff81000105 off_cpu_ns=123456789"),
	      "off-CPU sample: where, and its time off CPU: %s", line);
	CHECK(count_lines(path("out.txt"), "\tffffffff81000105 my_func+0x5\n", NULL, 0) == 1 &&
	      count_lines(path("out.txt"), "\t          401000 [user]\n", NULL, 0) == 1,
	      "off-CPU stack: the kernel frame by kallsyms, the user one by place");
	CHECK(count_lines(path("out.txt"), "\tffffffffffffff80", NULL, 0) == 0 &&
	      count_lines(path("out.txt"), "\tfffffffffffffe00", NULL, 0) == 0,
	      "no context marker shown as a frame");
	CHECK(count_lines(path("out.txt"), " cpu-clock ", NULL, 0) == 2, "2 cpu-clock samples");
	nth_line(path("out.txt"), " cpu-clock ", 1, line, sizeof(line));
	CHECK(strstr(line, " bpf_prog_aaaa_first ") && strstr(line, " bpf ") &&
	      strstr(line, "period=1000000"), "a sample in a BPF image named by it: %s", line);
	nth_line(path("out.txt"), " cpu-clock ", 2, line, sizeof(line));
	CHECK(strstr(line, " bpf_prog_bbbb_second ") && strstr(line, " bpf "),
	      "the same address later: the newer image's name: %s", line);
	CHECK(count_lines(path("out.txt"), "\tffffffffc0001010 bpf_prog_bbbb_second+0x10\n",
			  NULL, 0) == 1 &&
	      count_lines(path("out.txt"), "\tffffffff81000203 other_func+0x3\n", NULL, 0) == 2,
	      "BPF and kernel frames of the stacks");
	first(path("out.txt"), " tracepoint ", line, sizeof(line));
	CHECK(strstr(line, " test:tp ") && strstr(line, " other_func ") &&
	      strstr(line, " ip=0xffffffff81000203 value=-3 name=abc count=42"),
	      "tracepoint fields, signed, text and number: %s", line);
	ret = run_cmd(cmd_script, 4, argv, path("out.json"));
	first(path("out.json"), "offcpu-time", line, sizeof(line));
	CHECK(ret == 0 && strstr(line, "\"details\":{\"ip\":\"0xffffffff81000105\",\"off_cpu_ns\":123456789}") &&
	      strstr(line, "\"callchain\":[\"my_func+0x5\",\"0x401000\"]}"),
	      "script --json: the sample's stack: %s", line);
	first(path("out.json"), "test:tp", line, sizeof(line));
	CHECK(strstr(line, "\"value\":\"-3\",\"name\":\"abc\",\"count\":42") && !strstr(line, "callchain"),
	      "script --json: tracepoint fields, no stack: %s", line);
}

/* A malformed tracing data costs the fields and kernel names, not the file. */
static void test_malformed(const char *data)
{
	char file[512], line[1024];
	char *argv[] = { "script", "-i", file, NULL };
	int ret;

	snprintf(file, sizeof(file), "%s", data);
	ret = run_cmd(cmd_script, 3, argv, path("cut.txt"));
	CHECK(ret == 0, "script of a file with cut tracing data exits 0 (%d)", ret);
	first(path("cut.txt"), " tracepoint ", line, sizeof(line));
	CHECK(strstr(line, " fields=(no format in the file)"), "its tracepoint without fields: %s",
	      line);
	CHECK(count_lines(path("cut.txt"), "\tffffffff81000105 [kernel]\n", NULL, 0) == 1,
	      "its kernel frames unnamed");
}

/*
 * report names kernel frames from the kallsyms the file kept, whatever
 * the machine reading it has (--kallsyms of an empty file: another
 * machine); a file whose kallsyms cannot be read falls back, and says so.
 */
static void test_report(const char *data, const char *cut)
{
	char file[512], empty[512], line[1024], want[1024], samples[512], cut_file[512];
	char *argv[] = { "report", "-i", file, "--kallsyms", empty, NULL, NULL };
	int ret;

	/* path()'s results are overwritten after a few calls: copies */
	snprintf(samples, sizeof(samples), "%s", data);
	snprintf(cut_file, sizeof(cut_file), "%s", cut);
	snprintf(file, sizeof(file), "%s", data);
	snprintf(empty, sizeof(empty), "%s", path("empty.kallsyms"));
	fclose(fopen(empty, "w"));
	ret = run_cmd(cmd_report, 5, argv, path("report.txt"));
	first(path("report.txt"), "# kernel symbols", line, sizeof(line));
	CHECK(ret == 0 && strstr(line, "# kernel symbols from the kallsyms the file kept (4 symbols of "),
	      "report: kernel symbols from the file, not --kallsyms: %s", line);
	argv[5] = "--folded";
	ret = run_cmd(cmd_report, 6, argv, path("folded.txt"));
	CHECK(ret == 0 && count_lines(path("folded.txt"), ";other_func;bpf_prog_", NULL, 0) == 2,
	      "report --folded: the kernel frame under the BPF samples named other_func");
	snprintf(file, sizeof(file), "%s", cut_file);
	argv[5] = NULL;
	ret = run_cmd(cmd_report, 5, argv, path("report-cut.txt"));
	first(path("report-cut.txt"), "# kernel symbols", line, sizeof(line));
	snprintf(want, sizeof(want),
		 "# kernel symbols not shown: the file's tracing data is malformed; %s: no symbols",
		 empty);
	CHECK(ret == 0 && !strcmp(line, want),
	      "report of cut tracing data: --kallsyms used, and it has no symbols: %s", line);
	CHECK(count_lines(path("report-cut.txt"), "other_func", NULL, 0) == 0,
	      "report of cut tracing data: no kernel frame named");
	snprintf(file, sizeof(file), "%s", samples);
	argv[3] = "--lifecycle";
	argv[4] = NULL;
	ret = run_cmd(cmd_report, 4, argv, path("lifecycle.txt"));
	CHECK(ret == 0 && count_lines(path("lifecycle.txt"), "Objects by kind and type:", NULL, 0) == 1 &&
	      count_lines(path("lifecycle.txt"), "# event: cpu-clock", NULL, 0) == 0,
	      "report --lifecycle of a file with samples: the summary, no profile (%d)", ret);
}

int main(void)
{
	unit_setup();
	if (CHECK(!write_file(path("samples.data"), 0), "a file of samples written"))
		test_script(path("samples.data"));
	if (CHECK(!write_file(path("cut.data"), 20), "a file of cut tracing data written"))
		test_malformed(path("cut.data"));
	test_report(path("samples.data"), path("cut.data"));
	return unit_done();
}
