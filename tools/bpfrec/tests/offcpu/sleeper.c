// SPDX-License-Identifier: GPL-2.0
/*
 * The off-CPU tests' workload: sleeps N times M ms in sleep_in_known_place()
 * (the tests find it with nm), or with -b BITS once in each of the 2^BITS
 * different user stacks that a() and b() make when they follow the bits
 * of a path, 1 us each: more stacks than the stack map holds without
 * collisions.  Static, not PIE, with frame pointers: the addresses are
 * those of the file, and the user stack unwinds.  The nanosleep is the
 * function's own syscall instruction: libc's wrapper would hide the
 * caller behind a frame without a pointer.
 *
 * It prints how long the sleeps took in all, by its own clock: the off-CPU
 * time to expect when other tasks delay its wakeups.  With -2 a second
 * thread sleeps the same at the same time (its time is not printed), for
 * the tests of -p and -t.
 *
 *   sleeper [-2] [-n TIMES] [-m MS] | -b BITS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

__attribute__((noinline)) void sleep_in_known_place(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
		     : "rcx", "r11", "memory");
	if (ret)
		exit(1);
}

static void b(unsigned int path, int bits);

/* each bit of the path is a call from a() or from b(): another return address */
__attribute__((noinline)) static void a(unsigned int path, int bits)
{
	if (!bits)
		sleep_in_known_place(1);
	else if (path & 1)
		b(path >> 1, bits - 1);
	else
		a(path >> 1, bits - 1);
	asm volatile("");
}

__attribute__((noinline)) static void b(unsigned int path, int bits)
{
	if (!bits)
		sleep_in_known_place(1);
	else if (path & 1)
		b(path >> 1, bits - 1);
	else
		a(path >> 1, bits - 1);
	asm volatile("");
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long times = 10, ms = 100;

/* The sleeps, and how long they took. */
static long long sleeps(void)
{
	long long slept = 0, t;
	long i;

	for (i = 0; i < times; i++) {
		t = now_ns();
		sleep_in_known_place(ms * 1000);
		slept += now_ns() - t;
	}
	return slept;
}

static void *second(void *arg)
{
	sleeps();
	return arg;
}

int main(int argc, char **argv)
{
	long bits = -1, i;
	long long slept;
	pthread_t th;
	int c, two = 0;

	while ((c = getopt(argc, argv, "2n:m:b:")) != -1) {
		if (c == '2')
			two = 1;
		else if (c == 'n')
			times = atol(optarg);
		else if (c == 'm')
			ms = atol(optarg);
		else if (c == 'b')
			bits = atol(optarg);
		else
			return 2;
	}
	if (bits >= 0) {
		for (i = 0; i < 1L << bits; i++)
			a(i, bits);
		return 0;
	}
	if (two && pthread_create(&th, NULL, second, NULL))
		return 1;
	slept = sleeps();
	if (two)
		pthread_join(th, NULL);
	printf("slept %lld ns\n", slept);
	return 0;
}
