/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events `bpfrec stat -e` counts: names perf users know, to
 * perf_event_attr, and their counters opened on every online CPU (the
 * BPF side reads them with bpf_perf_event_read_value()).
 */
#ifndef BPFREC_STAT_EVENTS_H
#define BPFREC_STAT_EVENTS_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include "bpf_skel/stat_profile.h"

/* what the BPF readers hold */
#define STAT_MAX_EVENTS		STAT_PROFILE_MAX_EVENTS

struct stat_event {
	char name[32];
	struct perf_event_attr attr;
	bool is_time;		/* counts ns: printed as msec */
};

struct stat_events {
	struct stat_event ev[STAT_MAX_EVENTS];
	int nr;
	int nr_cpus;		/* possible: the size of per-CPU arrays */
	int nr_online;
	int *fds;		/* [event * nr_cpus + cpu], -1 where offline */
};

/*
 * Parse "cpu-clock,task-clock" into @es; -EINVAL with one line on stderr
 * naming the event that is unknown.
 */
int stat_events_parse(struct stat_events *es, const char *list);
/*
 * Open every event on every online CPU, system-wide.  An event the
 * machine cannot count gets one line saying so, and an error.
 * Events go to possible CPUs: the kernel says ENODEV for offline ones.
 */
int stat_events_open(struct stat_events *es);
void stat_events_close(struct stat_events *es);
/*
 * @e on each of @nr_cpus (possible) CPUs into @fds, -1 for the offline
 * ones: the number opened, or -errno after one line on stderr.
 */
int stat_event_open_cpus(const struct stat_event *e, int nr_cpus, int *fds);

#endif /* BPFREC_STAT_EVENTS_H */
