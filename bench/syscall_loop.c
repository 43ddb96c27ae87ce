// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_loop: what one cheap syscall costs, for the price a system-wide
 * recorder makes every task of the machine pay (bench/run-syscall-cost.sh).
 *
 * ROUNDS rounds of N getppid() calls; prints the fastest round's
 * nanoseconds per call, in the thread's own CPU time, so that time other
 * tasks take from a busy machine is not counted.
 *
 * Usage: syscall_loop [N [ROUNDS]]     default 200000 calls, 5 rounds
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double best = 0, t0, ns;
	long i;
	int r;

	if (n <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: syscall_loop [N [ROUNDS]]\n");
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		t0 = thread_ns();
		/* the raw syscall: libc may cache getppid() one day */
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		ns = (thread_ns() - t0) / n;
		if (!r || ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	return 0;
}
