// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of the unwinding tests: sleeps N times M ms (10 x 100 ms
 * by default) in wait_for_tick(), through libc's nanosleep(), built as a
 * Debian user builds it (-O2, PIE, no frame pointers) against Debian's
 * glibc, which has none either.  A frame-pointer walk from inside libc
 * loses wait_for_tick(); the tests check that --call-graph dwarf names it.
 *
 *   libc-sleeper [-n TIMES] [-m MS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int wait_for_tick(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	int ret = nanosleep(&ts, NULL);

	/* work after the call: no tail call, the frame stays */
	return ret ? -1 : (int)ts.tv_sec;
}

int main(int argc, char **argv)
{
	long times = 10, ms = 100;
	int c, i;

	while ((c = getopt(argc, argv, "n:m:")) != -1) {
		if (c == 'n')
			times = atol(optarg);
		else if (c == 'm')
			ms = atol(optarg);
		else
			return 2;
	}
	for (i = 0; i < times; i++)
		if (wait_for_tick(ms) < 0)
			return 1;
	return 0;
}
