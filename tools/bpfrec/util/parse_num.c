// SPDX-License-Identifier: GPL-2.0
/* The numbers of the commands' options (util/parse_num.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "util/parse_num.h"

int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

int parse_pid(const char *s, pid_t *pid)
{
	unsigned long v;

	if (parse_ulong(s, &v) || !v || v > INT_MAX)
		return -EINVAL;
	*pid = v;
	return 0;
}

int parse_duration(const char *s, unsigned long *sec)
{
	return parse_ulong(s, sec) || !*sec ? -EINVAL : 0;
}

int parse_seconds(const char *s, double min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	/* written so that NaN fails too */
	return errno || end == s || *end || !(*v >= min && *v <= max) ? -EINVAL : 0;
}
