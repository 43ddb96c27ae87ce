// SPDX-License-Identifier: GPL-2.0
/*
 * What every unit test binary shares: TAP-like result lines and their
 * count, a scratch directory, running commands and files around, and
 * the perf.data events most tests write.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tests/unit/unit.h"

static int passed, failed, skipped;
static char dir[128];

/*
 * In $TMPDIR, as mktemp(1) does, else in /tmp.  A binary that fails keeps
 * its directory to be looked at: tests/mutants/run.sh, whose binaries
 * fail on purpose, points TMPDIR into its own scratch directory.
 */
void unit_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(dir, sizeof(dir), "%s/bpfrec-unit-XXXXXX", tmp) >= (int)sizeof(dir)) {
		fprintf(stderr, "TMPDIR is too long: %s\n", tmp);
		exit(1);
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

const char *unit_dir(void)
{
	return dir;
}

int unit_done(void)
{
	if (!failed)
		sh("rm -rf %s", dir);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

bool check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf(" (%s:%d)", file, line);
	putchar('\n');
	/*
	 * Out at once, as the test goes: stdout into a file or a pipe is
	 * buffered, and a sanitizer that ends the binary (a leak found at
	 * exit, an overflow) would discard the lines not yet written, the
	 * failed check's too.
	 */
	fflush(stdout);
	ok ? passed++ : failed++;
	return ok;
}

void skip(const char *what, const char *why)
{
	printf("ok - %s # SKIP %s\n", what, why);
	fflush(stdout);
	skipped++;
}

char *path(const char *name)
{
	static char buf[8][256];
	static int n;
	char *p = buf[n++ % 8];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

size_t file_size(const char *file)
{
	struct stat st;

	return stat(file, &st) ? 0 : st.st_size;
}

void *slurp(const char *file, size_t *len)
{
	int fd = open(file, O_RDONLY);
	void *buf;

	*len = file_size(file);
	buf = malloc(*len);
	if (read(fd, buf, *len) != (ssize_t)*len)
		*len = 0;
	close(fd);
	return buf;
}

/* Run a shell command; its stdout and stderr go to files. */
int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Run @fn(argc, argv) with stdout sent to @out. */
int run_cmd(int (*fn)(int, char **), int argc, char **argv, const char *out)
{
	int saved = dup(1), fd, ret;

	fflush(stdout);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	ret = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return ret;
}

int count_lines(const char *file, const char *needle, char *first, size_t first_len)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (needle && !strstr(line, needle))
			continue;
		if (!n && first)
			snprintf(first, first_len, "%s", line);
		n++;
	}
	fclose(f);
	return n;
}

bool have_perf(const char *what)
{
	if (!access("/usr/bin/perf", X_OK))
		return true;
	skip(what, "/usr/bin/perf not installed");
	return false;
}

struct perf_event_attr sideband_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		.bpf_event = 1,
	};
}

struct pd_writer *one_event_writer(const char *file, const struct perf_event_attr *attr,
				   const __u64 *ids, size_t nr_ids)
{
	struct pd_event ev = { .attr = attr, .name = "bpf-events", .ids = ids,
			       .nr_ids = nr_ids };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct pd_writer *w;

	return pd_writer_open(&w, file, &cfg) ? NULL : w;
}

void nth_line(const char *file, const char *needle, int n, char *line, size_t len)
{
	FILE *f = fopen(file, "r");

	line[0] = 0;
	while (f && n > 0 && fgets(line, len, f))
		if (strstr(line, needle) && !--n)
			break;
	if (n)
		line[0] = 0;
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
}
