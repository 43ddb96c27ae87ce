// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling as perf record does it.  System-wide, each event is opened per
 * CPU; on a process, a thread or the workload, per thread and CPU, the
 * threads of a CPU sharing one ring, and new threads are inherited.  The
 * first sampling event also asks for the task records (MMAP2, FORK,
 * EXIT) that let user addresses be symbolised, a dummy event when
 * --off-cpu is all there is to sample; COMM comes from the side-band
 * event, system-wide.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/sampler.h"
#include "util/task_synth.h"

int sampler_add_spec(struct sampler *s, const char *spec)
{
	if (array_room(&s->specs, &s->cap_specs, s->nr_specs, sizeof(*s->specs)))
		return -ENOMEM;
	s->specs[s->nr_specs++] = spec;
	return 0;
}

int sampler_parse_cpus(struct sampler *s, const char *list)
{
	int n = libbpf_num_possible_cpus();
	unsigned long a, b;
	char *end;

	if (n <= 0)
		return -EINVAL;
	free(s->cpus);
	s->cpus = calloc(n, sizeof(*s->cpus));
	if (!s->cpus)
		return -ENOMEM;
	s->nr_cpus = n;
	do {
		if (*list < '0' || *list > '9')
			return -EINVAL;
		a = b = strtoul(list, &end, 10);
		if (*end == '-') {
			list = end + 1;
			if (*list < '0' || *list > '9')
				return -EINVAL;
			b = strtoul(list, &end, 10);
		}
		if (a > b || b >= (unsigned long)n)
			return -EINVAL;
		while (a <= b)
			s->cpus[a++] = true;
		list = end;
	} while (*list++ == ',');
	return list[-1] ? -EINVAL : 0;
}

static int bad(const char *what)
{
	return errmsg_set(-EINVAL, "%s (see bpfrec record --help)", what);
}

int sampler_check(struct sampler *s, char **cmd)
{
	/* -a with a command: every task while the command runs, as perf */
	int targets = !!s->pid + !!s->tid + (s->system_wide || cmd);
	struct perf_event_attr attr;
	int i, err;

	if (!s->nr_specs && !s->off_cpu && (s->pid || s->tid))
		return bad("-p and -t need something to record of their target: -e EVENT or --off-cpu");
	/*
	 * perf samples its default event when -F, -c or -g asks for samples;
	 * --off-cpu has its stacks: --call-graph dwarf adds the copies to them
	 */
	if (!s->nr_specs && (s->opts.freq || s->opts.period || s->cpus ||
			     (s->opts.callchain && !(s->off_cpu && s->opts.dwarf_size))) &&
	    sampler_add_spec(s, sample_default_event()))
		return -ENOMEM;
	if (s->opts.freq && s->opts.period)
		return bad("-F and -c both set how often to sample: give one");
	if (targets > 1)
		return bad("sample one target: -a, -p PID, -t TID or a command (-a with a command samples every task while it runs)");
	/* -C is system-wide on its CPUs, as perf's */
	if (s->cpus && (s->pid || s->tid))
		return bad("-C samples every task of its CPUs: not with -p or -t");
	if (s->pid && kill(s->pid, 0) && errno == ESRCH)
		return errmsg_set(-EINVAL, "-p %d: no such process", s->pid);
	if (s->tid && kill(s->tid, 0) && errno == ESRCH)
		return errmsg_set(-EINVAL, "-t %d: no such thread", s->tid);
	if (s->nr_specs && sampling_check(&s->opts))
		return -EINVAL;
	/* an unknown event is bad input: found before anything starts */
	for (i = 0; i < s->nr_specs; i++) {
		err = sample_event_attr(s->specs[i], &s->opts, &attr);
		if (err)
			return err;
	}
	return 0;
}

static int resolve_target(struct sampler *s, pid_t workload)
{
	int err;

	if (s->pid) {
		err = task_threads(s->pid, &s->tids, &s->nr_tids);
		if (err == -ESRCH)
			errmsg_set(err, "-p %d: no such process", s->pid);
		return err;
	}
	if (s->tid || workload) {
		s->tids = malloc(sizeof(*s->tids));
		if (!s->tids)
			return -ENOMEM;
		s->tids[0] = s->tid ? s->tid : workload;
		s->nr_tids = 1;
	}
	return 0;
}

/* What every event of the target shares: its scope and its wakeups. */
static void target_attr(const struct sampler *s, struct perf_event_attr *attr,
			const struct evlist *el, pid_t workload)
{
	/* a process's new threads, the workload's children */
	attr->inherit = s->pid || workload;
	attr->watermark = 1;
	attr->wakeup_watermark = el->ring_bytes / 4;
}

/*
 * --off-cpu alone samples from BPF, not from a perf event: a dummy event
 * on the target then asks for the task records, or the mappings made
 * during the recording (the workload's exec first) stay unknown and so do
 * the user frames of its stacks.  perf adds such a tracking event too.
 */
static int open_tracking(const struct sampler *s, struct evlist *el, pid_t workload)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		.disabled = 1,
		.mmap = 1,
		.mmap2 = 1,
		.task = 1,
		/* the clock of the samples and the side-band */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};

	target_attr(s, &attr, el, workload);
	return evlist_add_tasks(el, &attr, "dummy", s->tids, s->nr_tids);
}

int sampler_open(struct sampler *s, struct evlist *el, pid_t workload)
{
	struct perf_event_attr attr;
	int i, err;

	/* -a: the workload is only how long the recording lasts */
	if (s->system_wide || s->cpus)
		workload = 0;
	err = resolve_target(s, workload);
	el->only = s->cpus;
	el->nr_only = s->nr_cpus;
	if (!err && !s->nr_specs && s->off_cpu)
		return open_tracking(s, el, workload);
	for (i = 0; !err && i < s->nr_specs; i++) {
		err = sample_event_attr(s->specs[i], &s->opts, &attr);
		if (err)
			break;
		if (!i) {
			attr.mmap = 1;
			attr.mmap2 = 1;
			attr.task = 1;
		}
		target_attr(s, &attr, el, workload);
		err = evlist_add_tasks(el, &attr, s->specs[i], s->tids, s->nr_tids);
	}
	return err;
}

int sampler_synthesize(struct sampler *s, struct pd_writer *w, const struct pd_sample *t)
{
	int err;

	if (!sampler_takes_samples(s))
		return 0;
	/* a kernel without kallsyms gets no kernel map, as with perf */
	if (kallsyms_copy_read(&s->kallsyms))
		pr_warning("/proc/kallsyms unreadable: kernel frames will not be named\n");
	err = synth_kernel_mmap(w, t, &s->kallsyms);
	/* the workload is still the recorder's copy: named until its exec */
	if (!err && (s->pid || s->tid))
		err = synth_tasks(w, t, s->pid ? &s->pid : &s->tid, 1);
	else if (!err)
		err = synth_tasks(w, t, s->tids, s->nr_tids);
	if (!err)
		err = pd_write_finished_round(w);
	if (err)
		errmsg_set(err, "writing the existing tasks: %s", strerror(-err));
	return err;
}

void sampler_describe(const struct sampler *s)
{
	char how[48], where[48];

	if (!s->nr_specs)
		return;
	if (s->opts.period)
		snprintf(how, sizeof(how), "every %lu events", s->opts.period);
	else if (strchr(s->specs[0], ':'))
		snprintf(how, sizeof(how), "every hit");
	else
		snprintf(how, sizeof(how), "at %lu Hz",
			 s->opts.freq ? s->opts.freq : SAMPLE_DEFAULT_FREQ);
	if (s->pid)
		snprintf(where, sizeof(where), "process %d (%d threads)", s->pid, s->nr_tids);
	else if (s->tid)
		snprintf(where, sizeof(where), "thread %d", s->tid);
	else if (s->tids)
		snprintf(where, sizeof(where), "the command");
	else if (s->cpus)
		snprintf(where, sizeof(where), "the CPUs of -C");
	else
		snprintf(where, sizeof(where), "every CPU");
	pr_info("sampling %s%s %s%s on %s\n", s->specs[0],
		s->nr_specs > 1 ? " and more" : "", how, s->opts.callchain ? " with stacks" : "",
		where);
}

void sampler_free(struct sampler *s)
{
	free(s->specs);
	free(s->tids);
	free(s->cpus);
	kallsyms_copy_free(&s->kallsyms);
	memset(s, 0, sizeof(*s));
}
