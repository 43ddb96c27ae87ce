// SPDX-License-Identifier: GPL-2.0
/*
 * The columns of `bpfrec script` when a name is long: a profiler that
 * sampled a kernel function of a long name must not push the details of
 * the programs' lines out of the width.  The file holds cpu-clock
 * samples in functions of names over 100 characters (named by --kallsyms) and
 * the PROG_LOAD and PROG_UNLOAD lines of a storm, with the details perf's
 * files give them; script into a file fits its columns to 160.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "tests/unit/unit.h"

static const __u64 side_ids[1] = { 100 };
static const __u64 clock_ids[1] = { 200 };

#define NR_PROGS	12
#define FIRST_ID	1498713

/*
 * Two names of over 100 characters alike but for a word 14 to 16 characters
 * from their end, which a cut kept balanced at the width left to names
 * (28 here) hides, and a short name.
 */
#define LONG_HEAD	"a_kernel_function_whose_name_is_long_enough_to_fill_" \
			"a_column_of_any_terminal_or_pipe_"
#define LONG_A		LONG_HEAD "one_then_its_end"
#define LONG_B		LONG_HEAD "two_then_its_end"

static char kallsyms_file[512], data_file[512];

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T " LONG_A "\n"
	"ffffffff81000200 T " LONG_B "\n"
	"ffffffff81000300 T short_func\n"
	"ffffffff81000400 T _etext\n";

static int write_file(const char *file)
{
	struct perf_event_attr side = sideband_attr();
	struct perf_event_attr clock = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(clock), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
	};
	struct pd_event evs[2] = {
		{ .attr = &side, .name = "bpf-events", .ids = side_ids, .nr_ids = 1 },
		{ .attr = &clock, .name = "cpu-clock", .ids = clock_ids, .nr_ids = 1 },
	};
	struct pd_writer_config cfg = { .events = evs, .nr_events = 2 };
	const __u64 ips[3] = { 0xffffffff81000105ULL, 0xffffffff81000205ULL,
			       0xffffffff81000305ULL };
	struct pd_sample s = { .pid = 12509, .tid = 12509, .cpu = 0 };
	__u8 tag[BPF_TAG_SIZE] = { 0x59, 0xf4, 0xa9, 0x31 };
	struct pd_prog p = { .type = BPF_PROG_TYPE_SOCKET_FILTER, .jited_len = 23,
			     .xlated_len = 16 };
	struct pd_writer *w;
	int err, i;

	err = pd_writer_open(&w, file, &cfg);
	if (err)
		return err;
	s.id = side_ids[0];
	s.time = 26716349000000ULL;
	err = pd_write_comm(w, s.pid, s.tid, "storm", true, &s);
	for (i = 0; !err && i < NR_PROGS; i++) {
		s.time += 1000;
		s.id = clock_ids[0];
		s.ip = ips[i % 3];
		s.period = 250000;
		err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
		s.id = side_ids[0];
		s.time += 1000;
		tag[7] = i;
		if (!err)
			err = pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, FIRST_ID + i, tag, &s);
		s.time += 1000;
		if (!err)
			err = pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_UNLOAD, 0, FIRST_ID + i, tag,
						 &s);
		/* half of them described as perf describes them, half unresolved */
		if (!err && i % 2) {
			p.id = FIRST_ID + i;
			snprintf(p.name, sizeof(p.name), "zs%d", i);
			memcpy(p.tag, tag, BPF_TAG_SIZE);
			err = pd_writer_add_prog(w, &p);
		}
	}
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

/* `bpfrec script -i FILE --kallsyms K [ARG]` into @out: its exit status. */
static int script(const char *out, const char *arg)
{
	char *argv[] = { "script", "-i", data_file, "--kallsyms", kallsyms_file, (char *)arg,
			 NULL };

	return run_cmd(cmd_script, arg ? 6 : 5, argv, path(out));
}

/* The name column of a sample's line: its seventh field. */
static void seventh(const char *line, char *field, size_t len)
{
	char a[7][256];

	field[0] = 0;
	if (sscanf(line, "%255s %255s %255s %255s %255s %255s %255s", a[0], a[1], a[2], a[3], a[4],
		   a[5], a[6]) == 7)
		snprintf(field, len, "%s", a[6]);
}

static void test_pipe(void)
{
	char line[1024], a[256], b[256], hdr[1024];
	int i, longer = 0, progs = 0;
	FILE *f;

	CHECK(script("pipe.txt", NULL) == 0, "script into a file exits 0");
	f = fopen(path("pipe.txt"), "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strstr(line, " PROG_"))
			continue;
		progs++;
		if (strlen(line) > 160) {
			longer++;
			if (longer == 1)
				fprintf(stderr, "  first longer (%zu): %s\n", strlen(line), line);
		}
	}
	if (f)
		fclose(f);
	CHECK(progs == 2 * NR_PROGS && longer == 0,
	      "into a pipe: the programs' lines within 160 columns, details whole (%d of %d longer)",
	      longer, progs);
	nth_line(path("pipe.txt"), "DETAILS", 1, hdr, sizeof(hdr));
	CHECK(strstr(hdr, "DETAILS") &&
	      strstr(hdr, "DETAILS") - hdr + strlen(" jited=23 xlated=16") <= 160,
	      "the header leaves the details their room: DETAILS at %ld",
	      strstr(hdr, "DETAILS") ? (long)(strstr(hdr, "DETAILS") - hdr) : -1L);
	nth_line(path("pipe.txt"), " cpu-clock ", 1, line, sizeof(line));
	seventh(line, a, sizeof(a));
	nth_line(path("pipe.txt"), " cpu-clock ", 2, line, sizeof(line));
	seventh(line, b, sizeof(b));
	CHECK(strstr(a, "..") && !strncmp(a, "a_kernel", 8) &&
	      !strcmp(a + strlen(a) - 8, "_its_end") && strlen(a) < strlen(LONG_A),
	      "a long symbol cut in its middle, its start and end kept: %s", a);
	CHECK(strcmp(a, b) && strlen(a) == strlen(b),
	      "two long symbols alike but for a word stay distinct: %s, %s", a, b);
	nth_line(path("pipe.txt"), " cpu-clock ", 3, line, sizeof(line));
	CHECK(strstr(line, " short_func "), "a short symbol whole: %s", line);
	for (i = 1; i <= 2; i++) {
		nth_line(path("pipe.txt"), " cpu-clock ", i, line, sizeof(line));
		CHECK(strstr(line, " ip=0xffffffff81000") && strstr(line, " period=250000"),
		      "a sample's details whole: %s", line);
	}
}

static void test_wide(void)
{
	char line[1024];

	CHECK(script("wide.txt", "--wide") == 0, "script --wide exits 0");
	nth_line(path("wide.txt"), " cpu-clock ", 1, line, sizeof(line));
	CHECK(strstr(line, " " LONG_A " "), "--wide: the long symbol whole: %s", line);
	nth_line(path("wide.txt"), " cpu-clock ", 2, line, sizeof(line));
	CHECK(strstr(line, " " LONG_B " "), "--wide: the other too: %s", line);
	CHECK(script("layout.json", "--json") == 0 &&
	      count_lines(path("layout.json"), "\"name\":\"" LONG_A "\"", NULL, 0) == NR_PROGS / 3 &&
	      count_lines(path("layout.json"), "\"event\":\"PROG_LOAD\"", NULL, 0) == NR_PROGS,
	      "--json: names whole, every program");
}

int main(void)
{
	FILE *f;

	unit_setup();
	snprintf(kallsyms_file, sizeof(kallsyms_file), "%s", path("long.kallsyms"));
	snprintf(data_file, sizeof(data_file), "%s", path("long.data"));
	f = fopen(kallsyms_file, "w");
	if (CHECK(f && fputs(kallsyms, f) >= 0 && !fclose(f), "a kallsyms of long names written") &&
	    CHECK(!write_file(data_file), "a file of samples and programs written")) {
		test_pipe();
		test_wide();
	}
	return unit_done();
}
