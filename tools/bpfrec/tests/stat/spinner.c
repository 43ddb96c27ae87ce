// SPDX-License-Identifier: GPL-2.0
/*
 * A process with an idle thread and a busy one, for the --bpf-counters
 * filter tests: the process (-p) and its busy thread (-t) count about one
 * CPU, its idle main thread (-t) almost nothing.
 *
 *   spinner
 *
 * Prints "pid PID tid TID" (TID: the busy thread), flushed, then spins
 * until killed.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile unsigned long spins;

static void *spin(void *arg)
{
	(void)arg;
	printf("pid %d tid %ld\n", getpid(), syscall(SYS_gettid));
	fflush(stdout);
	for (;;)
		spins++;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spin, NULL)) {
		perror("spinner: pthread_create");
		return 1;
	}
	for (;;)
		pause();
}
