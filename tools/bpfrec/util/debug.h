/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command says on stderr, as perf's util/debug.h: how much
 * (-q keeps only errors and warnings, -v adds libbpf's informational
 * messages and the verifier's logs that modules keep to themselves by
 * default, -vv libbpf's debug messages), the lines of util/ with the
 * command's name, and the errors util/ builds for the command to print.
 * libbpf prints through one function, debug_libbpf_print(), as
 * libbpf-tools' libbpf_print_fn.
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
 * The name of the command that runs ("record"), set as it parses its
 * options, for the lines util/ says: "bpfrec record: ...".
 */
void debug_set_cmd_name(const char *name);
const char *debug_cmd_name(void);
/* A line of progress of util/, after "bpfrec CMD: ", silent with -q. */
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning of util/ (the command goes on), after "bpfrec CMD: ". */
void pr_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/*
 * Errors are built in util/ and printed once by the command, as perf's
 * util/ builds its messages (evlist__strerror_open()) and its builtins
 * print them.  A function of util/ that fails returns its negative errno
 * through errmsg_set(), which keeps the message; the command prints it
 * with its name ("bpfrec record: ...") by errmsg_print().  One command
 * runs per process and stops at its first error: the first message is
 * kept until it is printed, so that what went wrong first is what is
 * said.
 *
 * errmsg_set() keeps the message of @fmt unless one is kept already, and returns @err
 * (a negative errno).  An argument that needs errno must have saved it
 * first: the call may change it.
 */
int errmsg_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message kept, or NULL. */
const char *errmsg_get(void);
/* Prints the message kept as "bpfrec CMD: MSG" and forgets it; false if none. */
bool errmsg_print(void);
/* Forgets the message kept: the command handled the error (a fallback). */
void errmsg_clear(void);

#endif /* BPFREC_DEBUG_H */
