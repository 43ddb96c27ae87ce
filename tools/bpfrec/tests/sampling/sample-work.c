// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads with known values for the sampling tests and benchmarks.
 *
 *   sample-work busy SEC       spin for SEC seconds of CPU time in
 *                              busy_inner(), called from busy_outer()
 *                              (frame pointers kept): as many samples on
 *                              a loaded host as on an idle one
 *   sample-work loops N        call busy_outer() N times (a fixed work, for
 *                              benchmarks), then print "elapsed S cpu S":
 *                              its wall-clock and CPU seconds
 *   sample-work getppid N      call getppid() N times
 *   sample-work sleep N MS     sleep MS milliseconds N times
 *
 * Prints "pid P" first and flushes, so a test knows whose samples to
 * count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

static volatile unsigned long sink;

/* a frame of its own (a local on the stack): the walk finds its caller */
__attribute__((noinline)) void busy_inner(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc += i * 7;
	sink += acc;
}

/* not a tail call: busy_outer stays on the stack */
__attribute__((noinline)) void busy_outer(unsigned long n)
{
	busy_inner(n);
	sink++;
}

static double since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return (b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

static double wall_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

static void busy(double secs)
{
	struct timespec a;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		busy_outer(1000000);
	while (since(&a) < secs);
}

int main(int argc, char **argv)
{
	long i, n;

	if (argc < 3 || (!strcmp(argv[1], "sleep") && argc < 4)) {
		fprintf(stderr, "usage: sample-work busy SEC | loops N | getppid N | sleep N MS\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	n = atol(argv[2]);
	if (!strcmp(argv[1], "busy")) {
		busy(atof(argv[2]));
	} else if (!strcmp(argv[1], "loops")) {
		struct timespec a;
		struct rusage ru;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++)
			busy_outer(1000000);
		getrusage(RUSAGE_SELF, &ru);
		printf("elapsed %.6f cpu %.6f\n", wall_since(&a),
		       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	} else if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			getppid();
	} else if (!strcmp(argv[1], "sleep")) {
		for (i = 0; i < n; i++)
			usleep(atol(argv[3]) * 1000);
	} else {
		fprintf(stderr, "sample-work: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}
