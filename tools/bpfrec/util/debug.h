/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much every command says on stderr, as perf's util/debug.h: -q
 * keeps only errors and warnings, -v adds libbpf's informational
 * messages and the verifier's logs that modules keep to themselves by
 * default, -vv libbpf's debug messages.  libbpf prints through one
 * function, debug_libbpf_print(), as libbpf-tools' libbpf_print_fn.
 */
#ifndef BPFREC_DEBUG_H
#define BPFREC_DEBUG_H

#include <stdarg.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

/* -1 with -q, 0 by default, 1 with -v, 2 with -vv */
extern int verbose;

/* A line of progress ("bpfrec record: ..."), silent with -q. */
void pr_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * libbpf's print function, set once by main(): warnings always, info
 * with -v, debug with -vv.
 */
int debug_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap);

/*
 * For a module that silences libbpf while it tries something (and says
 * what failed in one line of its own): what -v still shows of it.
 * Returns what vfprintf() does, 0 when nothing is printed.
 */
int debug_libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap);

#endif /* BPFREC_DEBUG_H */
