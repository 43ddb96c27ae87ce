// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of the wakers test: a consumer thread (named "consumer")
 * blocks N times (10 by default) in consume_known() on read() of a pipe,
 * through libc; a producer thread ("producer") sleeps M ms (50 by
 * default) and then wakes it by write() from produce_known().  The two
 * take turns: the producer waits for the consumer's acknowledgement on a
 * second pipe before its next sleep, so every blocked read is ended by
 * produce_known()'s write.  Built without frame pointers, like
 * libc-sleeper.
 *
 *   wake-pair [-n TIMES] [-m MS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int data[2], ack[2];
static long times = 10, ms = 50;

__attribute__((noinline)) int consume_known(void)
{
	char c;
	int ret = read(data[0], &c, 1);

	return ret == 1 ? c : -1;
}

__attribute__((noinline)) int produce_known(char c)
{
	int ret = write(data[1], &c, 1);

	return ret == 1 ? 0 : -1;
}

static void *producer(void *arg)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	char c;
	long i;

	(void)arg;
	pthread_setname_np(pthread_self(), "producer");
	for (i = 0; i < times; i++) {
		nanosleep(&ts, NULL);
		if (produce_known('x') || read(ack[0], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long i;
	int c;

	while ((c = getopt(argc, argv, "n:m:")) != -1) {
		if (c == 'n')
			times = atol(optarg);
		else if (c == 'm')
			ms = atol(optarg);
		else
			return 2;
	}
	if (pipe(data) || pipe(ack))
		return 1;
	pthread_setname_np(pthread_self(), "consumer");
	if (pthread_create(&t, NULL, producer, NULL))
		return 1;
	for (i = 0; i < times; i++)
		if (consume_known() != 'x' || write(ack[1], "a", 1) != 1)
			return 1;
	pthread_join(t, NULL);
	return 0;
}
