/* SPDX-License-Identifier: GPL-2.0 */
/* The perf_event_open() syscall, as bpfrec opens every event: close-on-exec, no group. */
#ifndef BPFREC_PERF_EVENT_H
#define BPFREC_PERF_EVENT_H

#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* @attr on task @pid (-1: every task) and @cpu (-1: every CPU); an fd, or -1 with errno. */
static inline int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

#endif /* BPFREC_PERF_EVENT_H */
