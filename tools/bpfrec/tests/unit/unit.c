// SPDX-License-Identifier: GPL-2.0
/*
 * What every unit test binary shares: TAP-like result lines and their
 * count, a scratch directory, and running commands and files around.
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
static char dir[] = "/tmp/bpfrec-unit-XXXXXX";

void unit_setup(void)
{
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
	ok ? passed++ : failed++;
	return ok;
}

void skip(const char *what, const char *why)
{
	printf("ok - %s # SKIP %s\n", what, why);
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
