// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of the wall-clock test: N rounds (5 by default) of 100 ms
 * busy in spin_known() (by its clock, so a preemption is off-CPU time in
 * the same function) and 100 ms asleep in nap_known() through libc's
 * nanosleep().  Built without frame pointers, like libc-sleeper.  It
 * prints "wall NS": the time from the start of the first round to the
 * end of the last, by CLOCK_MONOTONIC (the clock of the recording).
 *
 *   busy-nap [-n ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the clock is read once in 4096 rounds of work: few samples land in the vDSO */
__attribute__((noinline)) unsigned long spin_known(long long ns)
{
	long long end = now_ns() + ns;
	unsigned long x = 1;
	int i;

	do {
		for (i = 0; i < 4096; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	} while (now_ns() < end);
	return x;
}

__attribute__((noinline)) int nap_known(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	int ret = nanosleep(&ts, NULL);

	return ret ? -1 : (int)ts.tv_sec;
}

int main(int argc, char **argv)
{
	long rounds = argc == 3 && !strcmp(argv[1], "-n") ? atol(argv[2]) : 5;
	unsigned long x = 0;
	long long start;
	long i;

	start = now_ns();
	for (i = 0; i < rounds; i++) {
		x += spin_known(100000000);
		if (nap_known(100) < 0)
			return 1;
	}
	printf("wall %lld\n", now_ns() - start);
	return x == 42;
}
