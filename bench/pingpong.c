// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch ping-pong: two threads pass a byte back and forth over
 * two pipes for SEC seconds; prints the round trips per second.  Every
 * round trip is two sleeps and two wakeups: what an off-CPU profiler
 * pays for on every switch (bench/run-offcpu.sh), and where the leader
 * and followers of --bpf-counters run (bench/stat-guest.sh).
 *
 *   pingpong [SEC]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && c)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double sec = argc > 1 ? atof(argv[1]) : 2, start, t;
	unsigned long n = 0;
	pthread_t th;
	char c = 1;

	if (pipe(ping) || pipe(pong) || pthread_create(&th, NULL, echo, NULL))
		return 1;
	start = now();
	do {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		if (!(++n & 1023))
			t = now();
		else
			t = start;
	} while (t - start < sec);
	c = 0;
	if (write(ping[1], &c, 1) != 1)
		return 1;
	pthread_join(th, NULL);
	printf("%.0f\n", n / (now() - start));
	return 0;
}
