// SPDX-License-Identifier: GPL-2.0
/*
 * One verbosity for the process, and the one function libbpf prints
 * through: a module may install its own for a while (to keep libbpf
 * quiet, or to keep its last warning), and passes what it is given to
 * debug_libbpf_verbose() so that -v shows everything all the same.
 */
#include <stdio.h>
#include "util/debug.h"

int verbose;

void pr_progress(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 0)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* What the level of -v (or none) shows: 0 warnings, 1 info, 2 debug. */
static bool shown(enum libbpf_print_level level, int v)
{
	return (level == LIBBPF_WARN ? 0 : level == LIBBPF_INFO ? 1 : 2) <= v;
}

int debug_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return shown(level, verbose < 0 ? 0 : verbose) ? vfprintf(stderr, fmt, ap) : 0;
}

int debug_libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return verbose > 0 && shown(level, verbose) ? vfprintf(stderr, fmt, ap) : 0;
}
