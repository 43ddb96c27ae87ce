// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what keeps bpfrec, run as root, safe from what it did not
 * make: output files created beside their name and renamed over it
 * (util/out_file.c: a link at the name is not followed, the previous file
 * is kept as NAME.old, an aborted file leaves the name as it was), and
 * text from a file escaped for a terminal (util/printable.c: C0 and C1
 * controls, raw or in UTF-8, and bytes that are not UTF-8), tracepoint
 * field names from a file's formats escaped before script shows them
 * (util/trace_fields.c), and a file cut short by someone else while it
 * is read (an error, not SIGBUS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include "tests/unit/unit.h"
#include "util/out_file.h"
#include "util/printable.h"
#include "util/trace_fields.h"

static void put_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool has(const char *name, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(name, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return !strcmp(buf, text);
}

static void test_out_file(void)
{
	char *name = path("out.data"), *old = path("out.data.old"), *target = path("target");
	struct out_file f;
	struct stat st;
	char partial[4096];

	put_file(target, "target");
	if (!CHECK(!symlink(target, name), "a link planted at out.data"))
		return;
	CHECK(!out_file_open(&f, name, NULL) && f.fd >= 0, "out.data opened");
	snprintf(partial, sizeof(partial), "%s", out_file_partial(&f));
	CHECK(!strncmp(partial, name, strlen(name)) && strstr(partial, ".partial."),
	      "written as %s until the end", partial);
	CHECK(!fstat(f.fd, &st) && (st.st_mode & 07777) == 0600, "mode 0600 (%o)",
	      st.st_mode & 07777);
	CHECK(write(f.fd, "new", 3) == 3, "written");
	CHECK(!out_file_commit(&f, true), "renamed over out.data");
	CHECK(has(target, "target"), "the link's target untouched");
	CHECK(!lstat(name, &st) && S_ISREG(st.st_mode) && has(name, "new"),
	      "out.data is the new file");
	CHECK(!lstat(old, &st) && S_ISLNK(st.st_mode), "the link kept as out.data.old");
	CHECK(access(partial, F_OK), "no partial file left");

	CHECK(!out_file_open(&f, name, NULL), "out.data opened again");
	CHECK(write(f.fd, "lost", 4) == 4, "written");
	out_file_abort(&f);
	CHECK(has(name, "new") && !lstat(old, &st) && S_ISLNK(st.st_mode),
	      "aborted: out.data and out.data.old as they were");

	/* a name that went elsewhere while written: not renamed */
	CHECK(!out_file_open(&f, name, NULL), "out.data opened a third time");
	snprintf(partial, sizeof(partial), "%s", out_file_partial(&f));
	unlink(partial);
	put_file(partial, "planted");
	CHECK(out_file_commit(&f, true) == -ESTALE && has(name, "new"),
	      "a partial name replaced by another file: not renamed over out.data");
	unlink(partial);
	out_file_abort(&f);
}

static void test_printable(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain name", "plain name" },
		{ "\033[2J", "\\x1b[2J" },
		{ "a\\b", "a\\\\b" },
		{ "\x9b" "31m", "\\x9b31m" },			/* C1 CSI, raw */
		{ "\xc2\x9b" "31m", "\\xc2\\x9b31m" },		/* C1 CSI in UTF-8 */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },		/* UTF-8 kept */
		{ "\xe2\x82\xac", "\xe2\x82\xac" },		/* the euro sign */
		{ "\xc3", "\\xc3" },				/* cut short */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },		/* a surrogate */
		{ "\xff", "\\xff" },
		{ "a\x7f" "b", "a\\x7fb" },			/* DEL */
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(!strcmp(printable(cases[i].in, buf, sizeof(buf)), cases[i].out),
		      "printable of case %zu: %s", i, buf);
	CHECK(!strcmp(printable(NULL, buf, sizeof(buf)), ""), "NULL is empty");
	CHECK(!strcmp(printable("\xc3\xa9\xc3\xa9", buf, 4), "\xc3\xa9"),
	      "a character is never cut in two: %s", buf);
}

/*
 * A tracepoint field named with ESC and a C1 control (CSI in UTF-8): its
 * name is escaped as script shows it.  libtraceevent 1.7 drops a format
 * whose names hold control bytes (it takes any other text, in quotes,
 * through __attribute__("...")), and another version may take them: the
 * name is set in the parsed format here, as such a version leaves it.
 */
static void test_field_name(void)
{
	static const char format[] =
		"name: tp\n"
		"ID: 1234\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\n"
		"\tfield:unsigned int placeholder;\toffset:4;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[4];\toffset:8;\tsize:4;\tsigned:0;\n"
		"\n"
		"print fmt: \"comm=%s\", REC->comm\n";
	static const char named[] = "\033[2J\xc2\x9bx";
	const __u8 raw[12] = { 0xd2, 0x04, 0, 0, 42, 0, 0, 0, 'a', 'b', 'c', 0 };
	struct tep_handle *tep = tep_alloc();
	struct tep_format_field *field;
	struct tep_event *ev;
	struct trace_field f[4];
	char buf[256], shown[128];
	int n;

	if (!CHECK(tep && !tep_parse_event(tep, format, strlen(format), "test"),
		   "the format parsed"))
		goto out;
	ev = tep_find_event(tep, 1234);
	field = ev ? tep_find_field(ev, "placeholder") : NULL;
	if (!CHECK(field, "its field 'placeholder' found"))
		goto out;
	free(field->name);
	field->name = field->alias = strdup(named);
	n = trace_fields_decode(tep, 1234, raw, sizeof(raw), f, 4, buf, sizeof(buf));
	CHECK(n == 2, "two fields decoded (%d)", n);
	if (n == 2) {
		CHECK(!strcmp(f[0].name, "\\x1b[2J\\xc2\\x9bx") && f[0].is_num && f[0].num == 42,
		      "the field named with escapes shown escaped (here escaped again): '%s'=%llu",
		      printable(f[0].name, shown, sizeof(shown)), (unsigned long long)f[0].num);
		CHECK(!strcmp(f[1].name, "comm") && !strcmp(f[1].text, "abc"),
		      "the next field as it is: %s=%s", f[1].name, f[1].text);
	}
out:
	if (tep)
		tep_free(tep);
}

/* 2000 records, the file cut to 4 KiB after the first is read. */
static void test_cut_while_read(void)
{
	struct perf_event_attr attr = sideband_attr();
	static const __u64 ids[1] = { 10 };
	char *name = path("cut.data"), err[256];
	struct pd_writer *w = one_event_writer(name, &attr, ids, 1);
	struct pd_record rec;
	struct pd_reader *r;
	int i, ret;

	if (!CHECK(w, "writer opens cut.data"))
		return;
	for (i = 0; i < 2000; i++) {
		struct pd_sample s = { .pid = 1, .tid = 1, .time = i + 1, .id = ids[0] };

		pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, i + 1, NULL, &s);
	}
	pd_writer_close(w);
	r = pd_reader_open(name, err, sizeof(err));
	if (!CHECK(r, "cut.data opened: %s", r ? "" : err))
		return;
	CHECK(pd_reader_next(r, &rec) == 1, "the first record read");
	CHECK(!truncate(name, 4096), "the file cut to 4 KiB under the reader");
	for (i = 0; (ret = pd_reader_next(r, &rec)) > 0; i++)
		;
	CHECK(ret < 0 && strstr(pd_reader_error(r), "cut short while it was read"),
	      "reading on ends in an error after %d records: %s", i, pd_reader_error(r));
	pd_reader_close(r);
}

int main(void)
{
	unit_setup();
	test_out_file();
	test_printable();
	test_field_name();
	test_cut_while_read();
	return unit_done();
}
