// SPDX-License-Identifier: GPL-2.0
/*
 * Event names to attrs.  Software events always exist; a hardware event
 * is probed on the recorder itself, because a machine without a PMU (a
 * VM, this project's hosts) refuses it only when it is opened, and the
 * answer is then a line that says so instead of an errno per CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "util/debug.h"
#include "util/perf_event.h"
#include "util/sample_events.h"
#include "util/tracefs.h"

struct named_event {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct named_event named[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NR_NAMED	(sizeof(named) / sizeof(named[0]))

static int read_ulong(const char *path, unsigned long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int sampling_check(const struct sampling *o)
{
	unsigned long max;

	if (!o->freq || read_ulong("/proc/sys/kernel/perf_event_max_sample_rate", &max))
		return 0;
	if (o->freq > max)
		return errmsg_set(-EINVAL, "-F %lu is above the kernel's maximum of %lu Hz (kernel.perf_event_max_sample_rate) (see bpfrec record --help)",
				  o->freq, max);
	return 0;
}

/* The id of tracepoint SUBSYS:NAME, from tracefs. */
static int tracepoint_id(const char *spec, __u64 *id)
{
	const char *colon = strchr(spec, ':'), *dir;
	char path[512];
	unsigned long v;
	int err;

	/* no path tricks: a name is a directory of events/, no more */
	if (colon == spec || !colon[1] || strchr(colon + 1, ':') || strchr(spec, '/') ||
	    spec[0] == '.' || colon[1] == '.') {
		return errmsg_set(-EINVAL, "'%s' is not a tracepoint name, SUBSYS:NAME is (see bpfrec record --help)",
				  spec);
	}
	dir = tracefs_dir();
	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dir, (int)(colon - spec), spec,
		 colon + 1);
	err = read_ulong(path, &v);
	if (err == -ENOENT) {
		return errmsg_set(-EINVAL, "unknown tracepoint '%s' (no %s; see %s/available_events)",
				  spec, path, dir);
	}
	if (err)
		return errmsg_set(err, "reading %s: %s", path, strerror(-err));
	*id = v;
	return 0;
}

/* A hardware event opened on ourselves: whether the machine counts it. */
static int probe_hardware(const char *spec, struct perf_event_attr *attr)
{
	int fd = perf_event_open(attr, 0, -1);
	int err = -errno;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		return errmsg_set(-EOPNOTSUPP, "event '%s' is not countable here: no hardware PMU (a VM?); sample cpu-clock instead",
				  spec);
	return errmsg_set(err, "opening event '%s': %s", spec, strerror(-err));
}

int sampling_parse_call_graph(const char *arg, struct sampling *o)
{
	unsigned long long size = SAMPLE_DWARF_DEFAULT;
	char *end;

	if (!strcmp(arg, "fp")) {
		o->callchain = true;
		o->dwarf_size = 0;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return -EINVAL;
	if (arg[5]) {
		if (arg[6] < '0' || arg[6] > '9')
			return -EINVAL;
		errno = 0;
		size = strtoull(arg + 6, &end, 10);
		if (errno || *end || !size || size > SAMPLE_DWARF_MAX)
			return -EINVAL;
	}
	o->callchain = true;
	o->dwarf_size = (size + 7) & ~7ULL;
	return 0;
}

int sample_event_attr(const char *spec, const struct sampling *o,
		      struct perf_event_attr *attr)
{
	size_t i;
	int err;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->callchain)
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->dwarf_size) {
		/* perf's x86-64 user registers: all but DS, ES, FS, GS */
		attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->sample_regs_user = 0xff0fffULL;
		attr->sample_stack_user = o->dwarf_size;
	}
	/* the side-band event's clock: samples and BPF records line up */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	if (strchr(spec, ':')) {
		err = tracepoint_id(spec, &attr->config);
		if (err)
			return err;
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->sample_type |= PERF_SAMPLE_RAW;
		/* every hit, as perf: a frequency means nothing for a tracepoint */
		attr->sample_period = o->period ? o->period : 1;
		return 0;
	}
	for (i = 0; i < NR_NAMED && strcmp(named[i].name, spec); i++)
		;
	if (i == NR_NAMED)
		return errmsg_set(-EINVAL, "unknown event '%s' (bpfrec record --help lists them)", spec);
	attr->type = named[i].type;
	attr->config = named[i].config;
	if (o->period) {
		attr->sample_period = o->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq ? o->freq : SAMPLE_DEFAULT_FREQ;
	}
	return attr->type == PERF_TYPE_HARDWARE ? probe_hardware(spec, attr) : 0;
}

const char *sample_default_event(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_kernel = 1,
	};
	int fd = perf_event_open(&attr, 0, -1);

	if (fd < 0)
		return "cpu-clock";
	close(fd);
	return "cycles";
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directories of @dir matching @pattern, sorted: an array of strings to free. */
static int glob_dir(const char *dir, const char *pattern, char ***out, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL, **nv;
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR || fnmatch(pattern, de->d_name, 0))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			goto nomem;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	*out = v;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	while (n--)
		free(v[n]);
	free(v);
	return -ENOMEM;
}

static void free_names(char **v, size_t n)
{
	while (n--)
		free(v[n]);
	free(v);
}

int sample_event_glob(const char *spec, int (*fn)(const char *name, void *ctx), void *ctx)
{
	const char *colon = strchr(spec, ':'), *dir;
	char path[512], name[512], sub[256], **subs, **evs;
	size_t nr_subs, nr_evs, i, j, found = 0;
	int err;

	if (!colon || !strpbrk(spec, "*?["))
		return fn(spec, ctx);
	if (colon == spec || colon - spec >= (long)sizeof(sub) || strchr(spec, '/'))
		return errmsg_set(-EINVAL, "'%s' is not a tracepoint name, SUBSYS:NAME is (see bpfrec record --help)",
				  spec);
	dir = tracefs_dir();
	if (!dir)
		return -ENOENT;
	snprintf(sub, sizeof(sub), "%.*s", (int)(colon - spec), spec);
	snprintf(path, sizeof(path), "%s/events", dir);
	err = glob_dir(path, sub, &subs, &nr_subs);
	for (i = 0; !err && i < nr_subs; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", dir, subs[i]);
		err = glob_dir(path, colon + 1, &evs, &nr_evs);
		for (j = 0; !err && j < nr_evs; j++, found++) {
			snprintf(name, sizeof(name), "%s:%s", subs[i], evs[j]);
			err = fn(name, ctx);
		}
		if (!err)
			free_names(evs, nr_evs);
	}
	free_names(subs, nr_subs);
	if (!err && !found)
		return errmsg_set(-EINVAL, "no tracepoint matches '%s' (see %s/available_events)", spec,
				  dir);
	return err;
}
