// SPDX-License-Identifier: GPL-2.0
/*
 * A plain perf stat session, no BPF: the reference the --bpf-counters
 * tests compare with, and the peer of the shared-counters benchmark.
 *
 *   perf-count -e EVENT (-a | -C CPU | -p TID) [-I MSEC]
 *
 * Opens EVENT (cpu-clock, task-clock or page-faults) on every online CPU
 * (-a), on one CPU (-C) or on thread TID, prints "ready N" (the perf events it opened,
 * flushed), reads them every MSEC milliseconds as a perf stat -I session
 * would, and at SIGINT or SIGTERM prints "count N", the total, and exits.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#define MAX_CPUS	1024

static const struct {
	const char *name;
	__u64 config;
} events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_event(__u64 config, int tid, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
	};

	return syscall(__NR_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static unsigned long long sum(const int *fds, int n)
{
	unsigned long long total = 0, v;
	int i;

	for (i = 0; i < n; i++)
		if (read(fds[i], &v, sizeof(v)) == sizeof(v))
			total += v;
	return total;
}

int main(int argc, char **argv)
{
	static int fds[MAX_CPUS];
	int opt, i, n = 0, tid = -1, all = 0, cpu = -1;
	unsigned long interval = 0;
	const char *ev = NULL;
	__u64 config = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	while ((opt = getopt(argc, argv, "e:aC:p:I:")) != -1) {
		switch (opt) {
		case 'e': ev = optarg; break;
		case 'a': all = 1; break;
		case 'C': cpu = atoi(optarg); break;
		case 'p': tid = atoi(optarg); break;
		case 'I': interval = strtoul(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	for (i = 0; ev && i < (int)(sizeof(events) / sizeof(events[0])); i++)
		if (!strcmp(ev, events[i].name))
			break;
	if (!ev || i == (int)(sizeof(events) / sizeof(events[0])) ||
	    all + (cpu >= 0) + (tid > 0) != 1)
		goto usage;
	config = events[i].config;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (all) {
		for (i = 0; i < MAX_CPUS && i < sysconf(_SC_NPROCESSORS_CONF); i++) {
			fds[n] = open_event(config, -1, i);
			if (fds[n] >= 0)
				n++;
			else if (errno != ENODEV)	/* ENODEV: offline */
				goto fail;
		}
	} else {
		fds[n] = open_event(config, cpu >= 0 ? -1 : tid, cpu);
		n += fds[n] >= 0;
	}
	if (!n)
		goto fail;
	printf("ready %d\n", n);
	fflush(stdout);
	while (!stop) {
		if (interval) {
			usleep(interval * 1000);
			sum(fds, n);
		} else {
			pause();
		}
	}
	printf("count %llu\n", sum(fds, n));
	return 0;
fail:
	fprintf(stderr, "perf-count: opening %s: %s\n", ev, strerror(errno));
	return 1;
usage:
	fprintf(stderr, "usage: perf-count -e cpu-clock|task-clock|page-faults (-a | -C CPU | -p TID) [-I MSEC]\n");
	return 2;
}
