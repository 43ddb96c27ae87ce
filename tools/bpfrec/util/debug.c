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
static const char *cmd_name = "bpfrec";

void debug_set_cmd_name(const char *name)
{
	cmd_name = name;
}

const char *debug_cmd_name(void)
{
	return cmd_name;
}

static void say(const char *fmt, va_list ap)
{
	fprintf(stderr, "bpfrec %s: ", cmd_name);
	vfprintf(stderr, fmt, ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 0)
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void pr_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

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

static char msg[512];
static bool kept;

int errmsg_set(int err, const char *fmt, ...)
{
	va_list ap;

	if (kept)
		return err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kept = true;
	return err;
}

const char *errmsg_get(void)
{
	return kept ? msg : NULL;
}

bool errmsg_print(void)
{
	if (!kept)
		return false;
	fprintf(stderr, "bpfrec %s: %s\n", debug_cmd_name(), msg);
	kept = false;
	return true;
}

void errmsg_clear(void)
{
	kept = false;
}
