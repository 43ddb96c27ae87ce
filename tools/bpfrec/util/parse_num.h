/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numbers of the commands' options: whole decimal numbers only, no
 * sign, no trailing text, no overflow.  Each returns 0 or -EINVAL; the
 * command says the usage error.
 */
#ifndef BPFREC_PARSE_NUM_H
#define BPFREC_PARSE_NUM_H

#include <sys/types.h>

int parse_ulong(const char *s, unsigned long *v);
/* A process or thread id: 1 to INT_MAX. */
int parse_pid(const char *s, pid_t *pid);
/* --duration SEC: at least one second. */
int parse_duration(const char *s, unsigned long *sec);
/* Seconds with a fraction (top -d): from @min to @max. */
int parse_seconds(const char *s, double min, double max, double *v);

#endif /* BPFREC_PARSE_NUM_H */
