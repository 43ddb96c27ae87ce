// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads with known values for the sampling tests and benchmarks.
 *
 *   sample-work busy SEC       spin SEC seconds in busy_inner(), called
 *                              from busy_outer() (frame pointers kept)
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

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

static void busy(double secs)
{
	struct timespec a;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		busy_outer(1000000);
	while (since(&a) < secs);
}

int main(int argc, char **argv)
{
	long i, n;

	if (argc < 3 || (!strcmp(argv[1], "sleep") && argc < 4)) {
		fprintf(stderr, "usage: sample-work busy SEC | getppid N | sleep N MS\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	n = atol(argv[2]);
	if (!strcmp(argv[1], "busy")) {
		busy(atof(argv[2]));
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
