// SPDX-License-Identifier: GPL-2.0
/* The events of `bpfrec stat -e`: see stat_events.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "util/debug.h"
#include "util/perf_event.h"
#include "util/stat_events.h"

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
	bool is_time;
} known[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false },
};

#define NR_KNOWN (sizeof(known) / sizeof(known[0]))

static int add(struct stat_events *es, const char *name, size_t len)
{
	struct stat_event *e;
	size_t i;

	for (i = 0; i < NR_KNOWN; i++)
		if (strlen(known[i].name) == len && !strncmp(known[i].name, name, len))
			break;
	if (i == NR_KNOWN)
		return errmsg_set(-EINVAL, "unknown event '%.*s' (known: cpu-clock, task-clock, context-switches, cpu-migrations, page-faults, cycles, instructions, branches, branch-misses, cache-references, cache-misses)",
				  (int)len, name);
	if (es->nr == STAT_MAX_EVENTS)
		return errmsg_set(-E2BIG, "at most %d events", STAT_MAX_EVENTS);
	e = &es->ev[es->nr++];
	snprintf(e->name, sizeof(e->name), "%s", known[i].name);
	memset(&e->attr, 0, sizeof(e->attr));
	e->attr.size = sizeof(e->attr);
	e->attr.type = known[i].type;
	e->attr.config = known[i].config;
	e->is_time = known[i].is_time;
	return 0;
}

int stat_events_parse(struct stat_events *es, const char *list)
{
	const char *p = list, *comma;
	int err;

	do {
		comma = strchr(p, ',');
		err = add(es, p, comma ? (size_t)(comma - p) : strlen(p));
		if (err)
			return err;
		p = comma + 1;
	} while (comma);
	return 0;
}

int stat_event_open_cpus(const struct stat_event *e, int nr_cpus, int *fds)
{
	struct perf_event_attr attr = e->attr;
	int cpu, fd, online = 0;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		fds[cpu] = -1;
		fd = perf_event_open(&attr, -1, cpu);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0) {
			int err = -errno;

			if (err == -ENOENT || err == -EOPNOTSUPP)
				errmsg_set(err, "this machine cannot count %s (%s: no such counter, no hardware PMU?)",
					   e->name, strerror(-err));
			else if (err == -EACCES || err == -EPERM)
				errmsg_set(err, "no permission to count %s system-wide: run as root or grant CAP_PERFMON",
					   e->name);
			else
				errmsg_set(err, "opening %s on cpu %d: %s", e->name, cpu, strerror(-err));
			while (cpu--)
				if (fds[cpu] >= 0)
					close(fds[cpu]);
			return err;
		}
		fds[cpu] = fd;
		online++;
	}
	return online;
}

int stat_events_open(struct stat_events *es)
{
	int i, err;

	es->nr_cpus = libbpf_num_possible_cpus();
	if (es->nr_cpus < 0)
		return es->nr_cpus;
	es->fds = malloc(sizeof(*es->fds) * es->nr * es->nr_cpus);
	if (!es->fds)
		return -ENOMEM;
	for (i = 0; i < es->nr * es->nr_cpus; i++)
		es->fds[i] = -1;
	for (i = 0; i < es->nr; i++) {
		err = stat_event_open_cpus(&es->ev[i], es->nr_cpus, es->fds + i * es->nr_cpus);
		if (err < 0)
			return err;
		es->nr_online = err;
	}
	return 0;
}

void stat_events_close(struct stat_events *es)
{
	int i;

	for (i = 0; es->fds && i < es->nr * es->nr_cpus; i++)
		if (es->fds[i] >= 0)
			close(es->fds[i]);
	free(es->fds);
	es->fds = NULL;
}
