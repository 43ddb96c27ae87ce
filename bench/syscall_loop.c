// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_loop: what one cheap syscall costs, for the price a system-wide
 * recorder makes every task of the machine pay (bench/run-syscall-cost.sh).
 *
 * ROUNDS rounds of N getppid() calls. With the clock "cpu" (the default)
 * it prints the fastest round's nanoseconds per call, in the thread's own
 * CPU time, so that time other tasks take from a busy machine is not
 * counted. With "wall" it prints the wall time per call of all the rounds
 * together: what a user who times the loop sees, preemptions included.
 *
 * Usage: syscall_loop [N [ROUNDS [cpu|wall]]]   default 200000 5 cpu
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mono_clock.h"
#include "util/syscall_cost.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	const char *mode = argc > 3 ? argv[3] : "cpu";
	double best, start;

	if (n <= 0 || rounds <= 0 || (strcmp(mode, "cpu") && strcmp(mode, "wall"))) {
		fprintf(stderr, "usage: syscall_loop [N [ROUNDS [cpu|wall]]]\n");
		return 2;
	}
	start = (double)mono_ns();
	best = syscall_cost_ns(n, rounds);
	if (!strcmp(mode, "wall"))
		best = ((double)mono_ns() - start) / ((double)n * rounds);
	printf("%.1f\n", best);
	return 0;
}
