/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling part of `bpfrec record`: the events of -e other than
 * bpf-events, on the target of -a, -p, -t or the workload, and what a
 * sampled file needs besides the samples (the tasks and mappings that
 * existed before, the kernel's map).
 */
#ifndef BPFREC_SAMPLER_H
#define BPFREC_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "util/kallsyms_copy.h"
#include "util/sample_events.h"
#include "util/perf_data/perf_data.h"

struct evlist;

struct sampler {
	const char **specs;		/* -e, in order */
	int nr_specs;
	size_t cap_specs;
	struct sampling opts;		/* -F, -c, -g */
	pid_t pid;			/* -p, 0 when not given */
	pid_t tid;			/* -t, 0 when not given */
	bool system_wide;		/* -a */
	bool *cpus;			/* -C, by CPU number; NULL: every CPU */
	int nr_cpus;
	bool off_cpu;			/* --off-cpu samples the target too */
	pid_t *tids;			/* the threads sampled; NULL: every task */
	int nr_tids;
	struct kallsyms_copy kallsyms;	/* read at the start, for the kernel map */
};

int sampler_add_spec(struct sampler *s, const char *spec);
/* -C "0,2-3": 0, or -EINVAL for a list of no possible CPU, -ENOMEM. */
int sampler_parse_cpus(struct sampler *s, const char *list);
/* Whether the file gets samples (-e, --off-cpu): their tasks, maps, kallsyms. */
static inline bool sampler_takes_samples(const struct sampler *s)
{
	return s->nr_specs || s->off_cpu;
}
/*
 * The options agree with each other and with @cmd (the workload, or
 * NULL), and -p or -t with an event or --off-cpu: one line printed and
 * -EINVAL when they do not.
 */
int sampler_check(struct sampler *s, char **cmd);
/*
 * Open the events on @el for the target (its threads are off-CPU's
 * too); @workload is the pid of the
 * workload held before its exec (0 without one).  Returns 0 or a negative
 * errno with one line printed; -EINVAL and -EOPNOTSUPP come from bad
 * input (sample_event_attr()).
 */
int sampler_open(struct sampler *s, struct evlist *el, pid_t workload);
/*
 * Before the events are enabled, in a round of their own: the kernel's
 * map, and the tasks and mappings of the target, with @t's time and id.
 */
int sampler_synthesize(struct sampler *s, struct pd_writer *w, const struct pd_sample *t);
/* One line on stderr: what is sampled, how often, where. */
void sampler_describe(const struct sampler *s);
void sampler_free(struct sampler *s);

#endif /* BPFREC_SAMPLER_H */
