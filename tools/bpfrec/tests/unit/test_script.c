// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what `bpfrec script` shows: full program names (BTF's,
 * else the KSYMBOL record's), the KSYMBOL lines of programs' images
 * folded, the filters (--kinds, --pid, --comm), control characters
 * escaped, lines that fit their width, and the help and error
 * conventions script and report share with every command.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "tests/unit/unit.h"

static const __u64 ids[1] = { 31 };

static const __u8 tag_a[BPF_TAG_SIZE] = { 0xaa, 1, 2, 3, 4, 5, 6, 7 };
static const __u8 tag_b[BPF_TAG_SIZE] = { 0xbb, 1, 2, 3, 4, 5, 6, 7 };
static const __u8 tag_c[BPF_TAG_SIZE] = { 0xcc, 1, 2, 3, 4, 5, 6, 7 };

static struct pd_sample at(__u32 pid, __u64 time)
{
	return (struct pd_sample){ .pid = pid, .tid = pid, .time = time, .id = ids[0] };
}

static void image(struct pd_writer *w, __u32 pid, __u64 time, const char *name, bool gone)
{
	struct pd_sample s = at(pid, time);

	pd_write_ksymbol(w, 0xffffffffc0001000ULL + time, 64, PERF_RECORD_KSYMBOL_TYPE_BPF,
			 gone ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0, name, &s);
}

static void bpf(struct pd_writer *w, __u32 pid, __u64 time, __u16 type, __u32 id, const __u8 *tag)
{
	struct pd_sample s = at(pid, time);

	pd_write_bpf_event(w, type, 0, id, tag, &s);
}

/*
 * Prog 1 (pid 100, "loader"): its info says "handle_exec_lon", BTF
 * "handle_exec_long_name", and its image the 15 characters too (a kernel
 * names the image after BTF, but then only BTF would give the full name
 * here and the test would not tell the two apart).  Prog 2 (pid 200, a comm with an escape
 * sequence): unresolved, its image named "a_long_probe_function".  Prog
 * 3 (pid 100): info "xdp_main", an image of another name (a pairing gone
 * wrong): keeps "xdp_main".  A map of pid 200 made by its thread 201, a
 * trampoline's image, a LOST record.
 */
static void write_file(const char *file)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_writer *w = one_event_writer(file, &attr, ids, 1);
	char *names[] = { "handle_exec_long_name", "helper" };
	struct pd_prog p1 = { .id = 1, .type = BPF_PROG_TYPE_TRACEPOINT,
			      .name = "handle_exec_lon", .nr_func_names = 2,
			      .func_names = names };
	struct pd_prog p3 = { .id = 3, .type = BPF_PROG_TYPE_XDP, .name = "xdp_main" };
	struct pd_sample s;

	if (!w)
		return;
	memcpy(p1.tag, tag_a, BPF_TAG_SIZE);
	memcpy(p3.tag, tag_c, BPF_TAG_SIZE);
	s = at(100, 1);
	pd_write_comm(w, 100, 100, "loader", false, &s);
	s = at(200, 2);
	pd_write_comm(w, 200, 200, "ev\x1b[31mil\x7f", false, &s);
	/* a second thread of process 200, which creates the map */
	s = at(200, 3);
	s.tid = 201;
	pd_write_comm(w, 200, 201, "ev\x1b[31mil\x7f", false, &s);
	image(w, 100, 10, "bpf_prog_aa01020304050607_handle_exec_lon", false);
	bpf(w, 100, 11, PERF_BPF_EVENT_PROG_LOAD, 1, tag_a);
	image(w, 200, 20, "bpf_prog_bb01020304050607_a_long_probe_function", false);
	bpf(w, 200, 21, PERF_BPF_EVENT_PROG_LOAD, 2, tag_b);
	s = at(200, 22);
	s.tid = 201;
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_CREATE, 0, 9, NULL, &s);
	image(w, 100, 30, "bpf_prog_cc01020304050607_something_else", false);
	bpf(w, 100, 31, PERF_BPF_EVENT_PROG_LOAD, 3, tag_c);
	image(w, 100, 40, "bpf_trampoline_6442", false);
	image(w, 200, 50, "bpf_prog_bb01020304050607_a_long_probe_function", true);
	bpf(w, 200, 51, PERF_BPF_EVENT_PROG_UNLOAD, 2, tag_b);
	s = at(100, 60);
	pd_write_lost(w, ids[0], 3, &s);
	pd_writer_add_prog(w, &p1);
	pd_writer_add_prog(w, &p3);
	pd_writer_close(w);
}

static char file[256];

/* `bpfrec script -i file ARGS...` into @out: its exit status. */
static int script(const char *out, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { "script", "-i", file, (char *)a1, (char *)a2, (char *)a3, NULL };
	int argc = 3 + !!a1 + !!a2 + !!a3;

	return run_cmd(cmd_script, argc, argv, path(out));
}

/* The first line of @out holding @needle, without its newline, or "" */
static const char *line_of(const char *out, const char *needle)
{
	static char line[1024];

	line[0] = 0;
	count_lines(path(out), needle, line, sizeof(line));
	line[strcspn(line, "\n")] = 0;
	return line;
}

static void test_names(void)
{
	CHECK(script("names.txt", NULL, NULL, NULL) == 0, "script exits 0");
	CHECK(strstr(line_of("names.txt", " PROG_LOAD         1 "), " handle_exec_long_name "),
	      "prog 1: its BTF name, not the 15 characters of its info: %s",
	      line_of("names.txt", " PROG_LOAD         1 "));
	CHECK(strstr(line_of("names.txt", " PROG_LOAD         2 "), " a_long_probe_function ") &&
	      strstr(line_of("names.txt", " PROG_LOAD         2 "), " unresolved"),
	      "prog 2, unresolved: named from its KSYMBOL record: %s",
	      line_of("names.txt", " PROG_LOAD         2 "));
	CHECK(strstr(line_of("names.txt", " PROG_UNLOAD       2 "), " a_long_probe_function "),
	      "prog 2's unload too, from its unregistering KSYMBOL: %s",
	      line_of("names.txt", " PROG_UNLOAD       2 "));
	CHECK(strstr(line_of("names.txt", " PROG_LOAD         3 "), " xdp_main "),
	      "prog 3: an image name that does not extend its info's is not taken: %s",
	      line_of("names.txt", " PROG_LOAD         3 "));
	CHECK(count_lines(path("names.txt"), " KSYMBOL ", NULL, 0) == 1 &&
	      strstr(line_of("names.txt", " KSYMBOL "), " bpf_trampoline_6442 "),
	      "KSYMBOL: programs' images folded, the trampoline's shown");
	CHECK(script("ksym.txt", "--ksymbol", NULL, NULL) == 0 &&
	      count_lines(path("ksym.txt"), " KSYMBOL ", NULL, 0) == 5,
	      "--ksymbol: all 5 KSYMBOL lines");
	CHECK(script("ksym.json", "--json", NULL, NULL) == 0 &&
	      count_lines(path("ksym.json"), "\"KSYMBOL\"", NULL, 0) == 5 &&
	      count_lines(path("ksym.json"), "\"name\":\"a_long_probe_function\"", NULL, 0) == 2,
	      "--json: every record, prog 2 named on both lines");
}

static void test_escapes(void)
{
	const char *l = line_of("names.txt", " MAP_CREATE ");
	size_t len;
	char *all = slurp(path("names.txt"), &len);

	CHECK(strstr(l, " ev\\x1b[31mil\\x7f "), "a comm's control characters escaped: %s", l);
	CHECK(all && !memchr(all, 0x1b, len) && !memchr(all, 0x7f, len),
	      "no raw control character reaches the output");
	free(all);
	CHECK(script("esc.json", "--json", "--kinds=map", NULL) == 0 &&
	      count_lines(path("esc.json"), "\"comm\":\"ev\\u001b[31mil\\u007f\"", NULL, 0) == 1,
	      "JSON escapes them its way: %s", line_of("esc.json", "MAP_CREATE"));
}

static void test_filters(void)
{
	CHECK(script("k.txt", "--kinds", "prog", NULL) == 0 &&
	      count_lines(path("k.txt"), NULL, NULL, 0) == 5 &&
	      count_lines(path("k.txt"), " PROG_", NULL, 0) == 4,
	      "--kinds prog: the header and the 4 program lines");
	CHECK(script("k2.txt", "--kinds", "map,lost", NULL) == 0 &&
	      count_lines(path("k2.txt"), NULL, NULL, 0) == 3 &&
	      count_lines(path("k2.txt"), " MAP_CREATE ", NULL, 0) == 1 &&
	      count_lines(path("k2.txt"), " LOST ", NULL, 0) == 1,
	      "--kinds map,lost: the map and the LOST line");
	CHECK(script("k3.txt", "--kinds", "ksymbol", NULL) == 0 &&
	      count_lines(path("k3.txt"), " KSYMBOL ", NULL, 0) == 5,
	      "--kinds ksymbol: every KSYMBOL, images included");
	CHECK(script("p.txt", "--pid", "200", NULL) == 0 &&
	      count_lines(path("p.txt"), NULL, NULL, 0) == 4 &&
	      count_lines(path("p.txt"), " 200/200 ", NULL, 0) == 2 &&
	      count_lines(path("p.txt"), " 200/201 ", NULL, 0) == 1,
	      "--pid 200: its 2 program lines and its map, made by its thread 201");
	CHECK(script("p2.txt", "--pid", "100,200", "--kinds=prog") == 0 &&
	      count_lines(path("p2.txt"), " PROG_", NULL, 0) == 4,
	      "--pid 100,200 --kinds prog: 4 lines");
	CHECK(script("c.txt", "--comm", "loader", NULL) == 0 &&
	      count_lines(path("c.txt"), NULL, NULL, 0) == 5 &&
	      count_lines(path("c.txt"), " loader ", NULL, 0) == 4,
	      "--comm loader: progs 1 and 3, the trampoline and LOST");
	CHECK(script("none.txt", "--comm", "nobody", NULL) == 0 &&
	      count_lines(path("none.txt"), NULL, NULL, 0) == 1,
	      "--comm of no task: the header only");
}

static void test_width(void)
{
	FILE *f;
	char line[4096];
	size_t longest = 0, cut = 0;

	CHECK(script("w.txt", "--width", "90", "--ksymbol") == 0, "--width 90 exits 0");
	f = fopen(path("w.txt"), "r");
	while (f && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		longest = n > longest ? n : longest;
		/* a line too long goes on, indented, on the next: nothing is cut */
		cut += !strncmp(line, "    ", 4);
	}
	if (f)
		fclose(f);
	CHECK(longest <= 90 && cut >= 1, "--width 90: no line longer, %zu wrapped", cut);
	CHECK(script("w0.txt", "--width", "0", "--ksymbol") == 0 &&
	      strstr(line_of("w0.txt", " KSYMBOL "), "len=64"),
	      "--width 0: lines whole");
}

/* @fn ARGS... : its status, stdout to @out, stderr to @err. */
static int run_err(int (*fn)(int, char **), char *a1, const char *out, const char *err)
{
	char *argv[] = { fn == cmd_script ? "script" : "report", a1, NULL };
	int saved = dup(2), fd = open(path(err), O_WRONLY | O_CREAT | O_TRUNC, 0600), ret;

	dup2(fd, 2);
	close(fd);
	ret = run_cmd(fn, 2, argv, path(out));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return ret;
}

static void test_help(void)
{
	int (*fns[2])(int, char **) = { cmd_script, cmd_report };
	const char *names[2] = { "script", "report" };
	char want[128];
	int i;

	for (i = 0; i < 2; i++) {
		CHECK(run_err(fns[i], "-h", "h.txt", "h.err") == 0 &&
		      count_lines(path("h.txt"), "Usage: bpfrec ", NULL, 0) == 1 &&
		      count_lines(path("h.txt"), "--usage", NULL, 0) == 1,
		      "%s -h: the help, exit 0", names[i]);
		CHECK(run_err(fns[i], "--usage", "u.txt", "u.err") == 0 &&
		      count_lines(path("u.txt"), "Usage: bpfrec ", NULL, 0) == 1,
		      "%s --usage: the usage, exit 0", names[i]);
		snprintf(want, sizeof(want), "bpfrec %s: bad option '-?' (see bpfrec %s --help)",
			 names[i], names[i]);
		CHECK(run_err(fns[i], "-?", "q.txt", "q.err") == 2 &&
		      count_lines(path("q.err"), NULL, NULL, 0) == 1 &&
		      !strcmp(line_of("q.err", "bpfrec"), want),
		      "%s -?: one line, exit 2: %s", names[i], line_of("q.err", ""));
		/* an argument is the input file, as -i names it */
		snprintf(want, sizeof(want), "bpfrec %s: x: ", names[i]);
		CHECK(run_err(fns[i], "x", "x.txt", "x.err") == 1 &&
		      count_lines(path("x.err"), NULL, NULL, 0) == 1 &&
		      !strncmp(line_of("x.err", "bpfrec"), want, strlen(want)),
		      "%s x: the file x is read: one line, exit 1: %s", names[i],
		      line_of("x.err", ""));
	}
	CHECK(run_err(cmd_script, "--kinds=prog,nope", "k.txt", "k.err") == 2 &&
	      !strcmp(line_of("k.err", "bpfrec"),
		      "bpfrec script: unknown kind 'nope': prog, map, link, btf, ksymbol, lost or output (see bpfrec script --help)"),
	      "--kinds with an unknown kind: one line, exit 2: %s", line_of("k.err", ""));
}

int main(void)
{
	unit_setup();
	snprintf(file, sizeof(file), "%s", path("script.data"));
	write_file(file);
	test_names();
	test_escapes();
	test_filters();
	test_width();
	test_help();
	return unit_done();
}
