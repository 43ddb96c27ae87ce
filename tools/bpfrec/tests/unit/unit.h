/* SPDX-License-Identifier: GPL-2.0 */
/* The harness of the unit test binaries (tests/unit/unit.c). */
#ifndef BPFREC_TESTS_UNIT_H
#define BPFREC_TESTS_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include "util/perf_data/perf_data.h"

/* One result line, "ok - ..." or "not ok - ... (file:line)"; returns @cond. */
#define CHECK(cond, ...) check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
bool check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void skip(const char *what, const char *why);

/*
 * A scratch directory in $TMPDIR (else /tmp), removed by unit_done() when
 * every check passed.
 */
void unit_setup(void);
const char *unit_dir(void);
/* @name in the scratch directory; the last 8 results stay valid. */
char *path(const char *name);
/* Prints the counts; the exit status of the binary. */
int unit_done(void);

size_t file_size(const char *file);
/* The whole of @file, malloc'ed; *len is 0 when it could not be read. */
void *slurp(const char *file, size_t *len);
/* Run a shell command built from @fmt; returns system()'s status. */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run @fn(argc, argv) with stdout sent to @out. */
int run_cmd(int (*fn)(int, char **), int argc, char **argv, const char *out);
/* Lines of @file holding @needle (all with NULL); the first one to @first. */
int count_lines(const char *file, const char *needle, char *first, size_t first_len);

/* Whether Linux perf is installed; when not, @what is skipped, saying so. */
bool have_perf(const char *what);

/* The side-band event of a recording: dummy, with IDENTIFIER, TID, TIME, CPU. */
struct perf_event_attr sideband_attr(void);
/* A writer of @file with the one event @attr of @nr_ids ids; NULL on failure. */
struct pd_writer *one_event_writer(const char *file, const struct perf_event_attr *attr,
				   const __u64 *ids, size_t nr_ids);

/* The @n-th line (from 1) of @file holding @needle into @line, or "". */
void nth_line(const char *file, const char *needle, int n, char *line, size_t len);

#endif /* BPFREC_TESTS_UNIT_H */
