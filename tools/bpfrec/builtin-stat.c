// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec stat: count with BPF.  Options are parsed here and the mode's
 * pieces of util/ do the work; the loop is the same for every mode:
 * read at each interval (-I) and at the end, until Ctrl-C, the duration,
 * or the workload's exit.  Signals arrive on a signalfd so the last
 * reading is always printed from the main loop.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "builtin.h"
#include "util/cmd_loop.h"
#include "util/debug.h"
#include "util/mono_clock.h"
#include "util/parse_num.h"
#include "util/stat_bperf.h"
#include "util/stat_events.h"
#include "util/stat_print.h"
#include "util/stat_profile.h"
#include "util/stat_progs.h"
#include "util/stat_record.h"
#include "util/workload.h"

enum stat_mode { MODE_NONE, MODE_ALL_PROGS, MODE_PROFILE, MODE_BPERF };

#define DEFAULT_EVENTS	"cpu-clock"

struct opts {
	enum stat_mode mode;
	__u32 ids[STAT_MAX_TARGETS];
	int nr_ids;
	struct stat_events es;		/* -e, parsed */
	struct stat_bperf bperf;	/* --bpf-counters: filter and keys parsed */
	const char *filter_opt;		/* the one of -a -C -p -t -G given */
	char *filter_arg;
	bool json;
	bool idle;
	bool trampoline;		/* -b: never from the run time stats */
	bool hist;			/* -b --hist: run time distributions */
	enum sp_sort sort;
	unsigned long interval_ms;
	unsigned long duration;
	const char *output;		/* -o: perf.data of the counts */
	char **cmd;
};

static const char doc[] =
"Count with BPF.\n"
"\n"
"-b ID[,ID...]: what BPF programs cost per run; per target: counts, runs,\n"
"cost per run, its BTF name.  Time (cpu-clock, task-clock, the default) comes\n"
"from the kernel's BPF run time stats, on only while bpfrec runs (through\n"
"BPF_ENABLE_STATS): no trampoline, any target, and two clock reads per run\n"
"of every BPF program meanwhile.  Other events, or --trampoline, are read by\n"
"fentry and fexit programs attached to each target on entry and exit, which\n"
"needs a kernel that allows BPF trampolines and targets with BTF.\n"
"\n"
"--bpf-counters: count events (-e) with counters shared by every bpfrec\n"
"session on the machine: one perf event per CPU for each distinct event, read\n"
"by a BPF leader program at every context switch, which keeps per-CPU\n"
"totals.  A session of everything (-a, the default) or of CPUs (-C) reads\n"
"those totals and costs nothing per switch; one of processes (-p, or the\n"
"command run), threads (-t) or cgroups (-G, per cgroup) adds what its\n"
"filter selects with a follower program after the leader, which needs BPF\n"
"trampolines.  The leaders are registered in a BPF filesystem, mounted on\n"
"/sys/fs/bpf when missing.\n"
"\n"
"--all-progs: run count, run time, time per run and CPU share of every BPF\n"
"program on the machine, from the kernel's BPF run time stats, turned on\n"
"only while bpfrec runs (through BPF_ENABLE_STATS, never the sysctl).\n"
"Programs loaded and freed between two intervals are shown too, with what\n"
"they cost; the loader of the programs loaded while bpfrec runs is named.\n"
"CPU % is of one CPU.  Programs that did not run are left out unless\n"
"--idle.  Without -I, one table over the whole run.\n"
"\n"
"The run ends at Ctrl-C, after DURATION seconds, or when CMD exits.\n"
"\n"
"EXAMPLES:\n"
"    bpfrec stat -b 42,43 -e cpu-clock,instructions -I 1000\n"
"    bpfrec stat -b 42 --json -- ./traffic      # while ./traffic runs\n"
"    bpfrec stat -b 42 -e cpu-clock,page-faults 5  # through a trampoline\n"
"    bpfrec stat -b 42 --hist --duration 5      # how its runs' times spread\n"
"    bpfrec stat --bpf-counters -e cpu-clock -a -I 1000\n"
"    bpfrec stat --bpf-counters -e task-clock -G system.slice,user.slice 5\n"
"    bpfrec stat --bpf-counters -p 1234 --json\n"
"    bpfrec stat --all-progs 10                  # 10 seconds, one table\n"
"    bpfrec stat --all-progs -I 1000 --json      # JSON lines every second\n"
"    bpfrec stat --all-progs --sort runs -- ./loader\n"
"    bpfrec stat --all-progs -o stat.data 10 && perf stat report -i stat.data\n";

enum {
	OPT_ALL_PROGS = 0x100,
	OPT_JSON,
	OPT_SORT,
	OPT_IDLE,
	OPT_DURATION,
	OPT_BPERF,
	OPT_REGISTRY,
	OPT_TRAMPOLINE,
	OPT_HIST,
};

static const struct argp_option options[] = {
	{ "bpf-prog", 'b', "ID[,ID...]", 0, "Profile these BPF programs (at most 32)", 0 },
	{ "event", 'e', "EVENT[,EVENT...]", 0, "Events to count (default " DEFAULT_EVENTS ")", 0 },
	{ "trampoline", OPT_TRAMPOLINE, NULL, 0,
	  "-b: read time through fentry/fexit too, not from the run time stats", 0 },
	{ "hist", OPT_HIST, NULL, 0,
	  "-b: each run's time as a log2 histogram with p50/p90/p99/max, through fentry/fexit on the targets only", 0 },
	{ "bpf-counters", OPT_BPERF, NULL, 0, "Count with counters shared by all sessions", 0 },
	{ "all-cpus", 'a', NULL, 0, "--bpf-counters: the whole machine (default)", 0 },
	{ "cpu", 'C', "CPUS", 0, "--bpf-counters: these CPUs only (0,2-3)", 0 },
	{ "pid", 'p', "PID[,PID...]", 0, "--bpf-counters: these processes only", 0 },
	{ "tid", 't', "TID[,TID...]", 0, "--bpf-counters: these threads only", 0 },
	{ "cgroup", 'G', "CGROUP[,...]", 0,
	  "--bpf-counters: per cgroup (paths under /sys/fs/cgroup)", 0 },
	{ "bpf-registry", OPT_REGISTRY, "DIR", 0,
	  "--bpf-counters: registry directory on a bpffs (default " BPERF_DEFAULT_DIR ")", 0 },
	{ "all-progs", OPT_ALL_PROGS, NULL, 0, "The cost of every BPF program", 0 },
	{ "interval-print", 'I', "MSEC", 0, "Print every MSEC milliseconds (at least 10)", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line", 0 },
	{ "sort", OPT_SORT, "KEY", 0,
	  "--all-progs order: time (default), runs, avg, id, name", 0 },
	{ "idle", OPT_IDLE, NULL, 0, "--all-progs: show programs that did not run too", 0 },
	{ "output", 'o', "FILE", 0,
	  "Also write the counts to FILE, as perf stat record does", 0 },
	{ "duration", OPT_DURATION, "SEC", 0, "Stop after SEC seconds (or DURATION)", 0 },
	{},
};

static int parse_sort(const char *arg, enum sp_sort *sort)
{
	static const char *const keys[] = {
		[SP_SORT_TIME] = "time", [SP_SORT_RUNS] = "runs", [SP_SORT_AVG] = "avg",
		[SP_SORT_ID] = "id", [SP_SORT_NAME] = "name",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strcmp(arg, keys[i])) {
			*sort = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "42,43": ids of at most STAT_MAX_TARGETS distinct programs, none 0. */
static error_t parse_ids(struct argp_state *state, struct opts *o, const char *arg)
{
	const char *p = arg;
	unsigned long v;
	char *end;
	int i;

	do {
		if (*p < '0' || *p > '9')
			return cmd_usage_error(state, "-b wants program ids like 42,43, not '%s'", arg);
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > UINT32_MAX || (*end && *end != ','))
			return cmd_usage_error(state, "-b wants program ids like 42,43, not '%s'", arg);
		for (i = 0; i < o->nr_ids; i++)
			if (o->ids[i] == v)
				return cmd_usage_error(state, "-b lists a program twice: '%s'", arg);
		if (o->nr_ids == STAT_MAX_TARGETS)
			return cmd_usage_error(state, "-b: too many programs, at most 32: '%s'", arg);
		o->ids[o->nr_ids++] = v;
		p = end + 1;
	} while (*end);
	return 0;
}

/* -C 0,2-3 / -p 1,2 / -t 3: numbers and (for -C) ranges. */
static error_t parse_keys(struct argp_state *state, struct opts *o, const char *arg, bool ranges)
{
	const char *p = arg;
	unsigned long a, b;
	char *end;

	do {
		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		if (ranges && *end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || b < a || b > UINT32_MAX || (!ranges && !a))
			goto bad;
		for (; a <= b; a++)
			if (stat_bperf_add_key(&o->bperf, a))
				return cmd_usage_error(state, "too many CPUs or ids, at most 1024: '%s'", arg);
		p = end + 1;
	} while (*end);
	return 0;
bad:
	return cmd_usage_error(state, "-%s wants %s, not '%s'", o->filter_opt,
			       ranges ? "CPUs like 0,2-3" : "ids like 1234,1240", arg);
}

/* One filter per session: the counters then mean one thing. */
static error_t set_filter(struct argp_state *state, struct opts *o, const char *opt,
			  enum bperf_filter f, char *arg)
{
	if (o->filter_opt && strcmp(o->filter_opt, opt))
		return cmd_usage_error(state, "-%s and -%s: give one of them", o->filter_opt, opt);
	o->filter_opt = opt;
	o->filter_arg = arg;
	o->bperf.filter = f;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;
	error_t err;

	switch (key) {
	case OPT_BPERF:
		o->mode = MODE_BPERF;
		break;
	case OPT_REGISTRY:
		o->bperf.dir = arg;
		break;
	case OPT_TRAMPOLINE:
		o->trampoline = true;
		break;
	case OPT_HIST:
		/* the run time stats give a mean only: a trampoline times each run */
		o->hist = true;
		o->trampoline = true;
		break;
	case 'a':
		return set_filter(state, o, "a", BPERF_FILTER_GLOBAL, NULL);
	case 'C':
		err = set_filter(state, o, "C", BPERF_FILTER_CPU, arg);
		return err ? err : parse_keys(state, o, arg, true);
	case 'p':
		err = set_filter(state, o, "p", BPERF_FILTER_TGID, arg);
		return err ? err : parse_keys(state, o, arg, false);
	case 't':
		err = set_filter(state, o, "t", BPERF_FILTER_TID, arg);
		return err ? err : parse_keys(state, o, arg, false);
	case 'G':
		/* resolved once the options are known good */
		return set_filter(state, o, "G", BPERF_FILTER_CGROUP, arg);
	case 'b':
		o->mode = MODE_PROFILE;
		return parse_ids(state, o, arg);
	case 'e':
		/* stat_events_parse() built the line that says which event is wrong */
		return stat_events_parse(&o->es, arg) ? cmd_usage_built() : 0;
	case OPT_ALL_PROGS:
		o->mode = MODE_ALL_PROGS;
		break;
	case 'I':
		if (parse_ulong(arg, &o->interval_ms) || o->interval_ms < 10)
			return cmd_usage_error(state, "-I wants milliseconds, at least 10, not '%s'", arg);
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_SORT:
		if (parse_sort(arg, &o->sort))
			return cmd_usage_error(state, "unknown sort key '%s': time, runs, avg, id or name", arg);
		break;
	case OPT_IDLE:
		o->idle = true;
		break;
	case 'o':
		if (!*arg || !strcmp(arg, "-"))
			return cmd_usage_error(state, "-o wants a file name, not '%s'", arg);
		o->output = arg;
		break;
	case OPT_DURATION:
		if (parse_duration(arg, &o->duration))
			return cmd_usage_error(state, "invalid duration '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		/* DURATION, alone; after '--' (or any other word) the workload */
		if (state->next == state->argc && strcmp(state->argv[state->next - 2], "--") &&
		    !parse_ulong(arg, &o->duration)) {
			if (!o->duration)
				return cmd_usage_error(state, "invalid duration '%s'", arg);
			break;
		}
		o->cmd = state->argv + state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (cmd_help_shown())
			break;
		if (o->mode == MODE_NONE)
			return cmd_usage_error(state, "say what to count: -b ID, --bpf-counters or --all-progs");
		if (o->filter_opt && o->mode != MODE_BPERF)
			return cmd_usage_error(state, "-%s filters --bpf-counters only", o->filter_opt);
		if (o->filter_opt && o->cmd)
			return cmd_usage_error(state, "-%s and a command: the command's process is the filter",
					       o->filter_opt);
		if (o->hist && o->mode != MODE_PROFILE)
			return cmd_usage_error(state, "--hist is for -b");
		if (o->trampoline && o->mode != MODE_PROFILE)
			return cmd_usage_error(state, "--trampoline is for -b");
		if (o->es.nr && o->mode == MODE_ALL_PROGS)
			return cmd_usage_error(state, "--all-progs counts runs and run time, not events: no -e");
		if (o->cmd && o->duration)
			return cmd_usage_error(state, "a duration and a command: give one of them");
		break;
	case ARGP_KEY_ERROR:
		return cmd_bad_option(state);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct stat_run {
	struct opts o;
	struct stat_print pr;
	struct stat_progs progs;
	struct stat_events es;
	struct stat_profile prof;
	__u64 last_read;		/* -b by the stats: when the totals were read */
	struct stat_count *counts;
	struct workload wl;
	struct stat_record rec;		/* -o */
	int argc;
	char **argv;
	struct cmd_loop loop;
	__u64 start, last;		/* CLOCK_MONOTONIC ns */
};

/* -o, counts: the session's totals so far (perf stat report takes the deltas). */
static int record_counts(struct stat_run *r, __u64 now)
{
	static const struct perf_event_attr runs_attr = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
	};
	bool bperf = r->o.mode == MODE_BPERF;
	const struct stat_count *c = r->counts;
	char name[160];
	int n, i, k, err = 0;

	n = bperf ? stat_bperf_counts(&r->o.bperf, true, r->counts) :
		    stat_profile_counts(&r->prof, true, r->counts);
	for (i = 0; !err && i < n; i++, c++) {
		snprintf(name, sizeof(name), c->who ? "%s:%s" : "%s", c->ev->name, c->who);
		k = stat_record_counter(&r->rec, 2 * i, name, &c->ev->attr);
		err = k < 0 ? k : stat_record_value(&r->rec, k, c->v.counter, c->v.enabled,
						    c->v.running);
		if (err || !c->has_runs)
			continue;
		snprintf(name, sizeof(name), "runs:%s", c->who ? c->who : "");
		k = stat_record_counter(&r->rec, 2 * i + 1, name, &runs_attr);
		err = k < 0 ? k : stat_record_value(&r->rec, k, c->runs, c->v.enabled,
						    c->v.running);
	}
	return err ? err : stat_record_round(&r->rec, now - r->start);
}

/* The time is taken after the reading: the counts are up to then. */
/*
 * -b by the run time stats: the targets unloaded since the last reading,
 * said once each; their counts stop there.  None left: the session ends.
 */
static void say_gone(struct stat_run *r)
{
	struct stat_target *t;
	int i;

	for (i = 0; i < r->prof.nr; i++) {
		t = &r->prof.t[i];
		if (!t->gone || t->gone_said)
			continue;
		fprintf(stderr, "bpfrec stat: -b: program %u (%s) was unloaded: counted until %.3f s, its last runs since then not\n",
			t->id, t->name, (r->last_read - r->start) / 1e9);
		t->gone_said = true;
	}
	if (r->prof.nr && !stat_profile_alive(&r->prof))
		r->loop.stop = true;
}

/* Refresh -b's totals by the stats: an unload loses no more than REFRESH_MS. */
static int refresh(void *ctx)
{
	struct stat_run *r = ctx;
	int err;

	if (r->o.mode != MODE_PROFILE || !r->prof.by_stats)
		return 0;
	err = stat_profile_read(&r->prof);
	if (err) {
		fprintf(stderr, "bpfrec stat: reading the counts: %s\n", strerror(-err));
		return err;
	}
	say_gone(r);
	r->last_read = mono_ns();
	return 0;
}

static int show_counts(struct stat_run *r, bool total, __u64 *now)
{
	bool bperf = r->o.mode == MODE_BPERF;
	int err = bperf ? stat_bperf_read(&r->o.bperf) : stat_profile_read(&r->prof), n, i;

	if (err) {
		fprintf(stderr, "bpfrec stat: reading the counts: %s\n", strerror(-err));
		return err;
	}
	*now = mono_ns();
	if (!bperf)
		say_gone(r);
	n = bperf ? stat_bperf_counts(&r->o.bperf, total, r->counts) :
		    stat_profile_counts(&r->prof, total, r->counts);
	/* an unloaded target's last counts are shown once; none left, no lines */
	for (i = 0; !bperf && i < r->prof.nr; i++)
		r->prof.t[i].gone_shown |= r->prof.t[i].gone;
	if (!bperf)
		r->last_read = *now;
	if (!n)
		return 0;
	stat_print_counts(&r->pr, (*now - r->start) / 1e9, total ? *now - r->start : *now - r->last,
			  r->counts, n);
	return r->o.output ? record_counts(r, *now) : 0;
}

/*
 * -o, --all-progs: each program is two counters, its runs and its run
 * time, totals since bpfrec first saw it; first sight and final counts
 * are its PROG_LOAD and PROG_UNLOAD.
 */
static int record_prog(struct stat_run *r, const struct sp_prog *p, __u64 now, __u64 wall)
{
	static const struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
	};
	struct pd_prog f = { .id = p->id, .type = p->type, .load_time = p->load_time,
			     .origin = p->loader };
	char name[SP_NAME_LEN + 32];
	int k, err = 0;

	if (p->born) {
		memcpy(f.tag, p->tag, sizeof(f.tag));
		/* the 16-byte name the kernel keeps; the counters carry the full one */
		memcpy(f.name, p->name, sizeof(f.name) - 1);
		err = stat_record_prog(&r->rec, &f);
		if (!err)
			err = stat_record_bpf(&r->rec, PERF_BPF_EVENT_PROG_LOAD, p->id, p->tag, now);
	}
	if (!err && p->state == SP_FREED)
		err = stat_record_bpf(&r->rec, PERF_BPF_EVENT_PROG_UNLOAD, p->id, p->tag, now);
	/* what the printed table leaves out (idle programs) the file does too */
	if (err || (p->cnt == p->base_cnt && !r->o.idle))
		return err;
	snprintf(name, sizeof(name), "%s[%u]:runs", p->name, p->id);
	k = stat_record_counter(&r->rec, (__u64)p->id << 1, name, &attr);
	err = k < 0 ? k : stat_record_value(&r->rec, k, p->cnt - p->base_cnt, wall, wall);
	if (err)
		return err;
	snprintf(name, sizeof(name), "%s[%u]:run_ns", p->name, p->id);
	k = stat_record_counter(&r->rec, (__u64)p->id << 1 | 1, name, &attr);
	return k < 0 ? k : stat_record_value(&r->rec, k, p->ns - p->base_ns, wall, wall);
}

static int record_progs(struct stat_run *r, __u64 now)
{
	__u64 wall = now > r->start ? now - r->start : 1;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < r->progs.nr; i++)
		if (r->progs.p[i].id && r->progs.p[i].state != SP_GONE)
			err = record_prog(r, &r->progs.p[i], now, wall);
	return err ? err : stat_record_round(&r->rec, wall);
}

/* Read and print: one interval, or (@final without -I) the whole run. */
static int show(struct stat_run *r, bool final)
{
	__u64 now = mono_ns();
	bool total = final && !r->o.interval_ms;
	struct sp_row *rows;
	size_t nr;
	int err;

	if (r->o.mode != MODE_ALL_PROGS) {
		err = show_counts(r, total, &now);
		r->last = now;
		return err;
	}
	err = stat_progs_read(&r->progs, final);
	if (!err)
		err = stat_progs_rows(&r->progs, total, r->o.idle, r->o.sort, &rows, &nr);
	if (err) {
		fprintf(stderr, "bpfrec stat: reading BPF program stats: %s\n", strerror(-err));
		return err;
	}
	stat_print_progs(&r->pr, (now - r->start) / 1e9, total ? now - r->start : now - r->last,
			 rows, nr);
	free(rows);
	if (r->o.output) {
		err = record_progs(r, now);
		if (err) {
			fprintf(stderr, "bpfrec stat: keeping the counts for %s: %s\n",
				r->o.output, strerror(-err));
			return err;
		}
	}
	stat_progs_next_interval(&r->progs);
	r->last = now;
	return 0;
}

/* Ctrl-C, SIGTERM, or the workload's exit end the run. */
static int on_signal(void *ctx, int signo)
{
	struct stat_run *r = ctx;

	if (signo != SIGCHLD)
		r->loop.stop = true;
	else if (r->wl.pid > 0 && !workload_reap(&r->wl, false))
		r->loop.stop = true;
	return 0;
}

static int on_interval(void *ctx)
{
	return show(ctx, false);
}

/* Watch who owns the perf events of --bpf-counters counter @i, if not us. */
static int watch_owner(struct stat_run *r, int i)
{
	int fd = stat_bperf_owner_fd(&r->o.bperf, i);

	return fd < 0 ? 0 : cmd_loop_add_fd(&r->loop, fd, i);
}

/* The owner of counter @i's perf events exited: take them over before the counts suffer. */
static int owner_gone(void *ctx, unsigned int i)
{
	struct stat_run *r = ctx;
	int err = stat_bperf_owner_gone(&r->o.bperf, i);

	if (!err)
		err = watch_owner(r, i);
	if (err)
		fprintf(stderr, "bpfrec stat: taking over the perf events of %s: %s\n",
			r->o.bperf.c[i].ev->name, strerror(-err));
	return err;
}

/* How often -b reads the stats of its targets, between prints too. */
#define REFRESH_MS	100

static const struct cmd_loop_ops loop_ops = {
	.signal = on_signal,
	.interval = on_interval,
	.fd = owner_gone,
	.wake = refresh,
};

static int open_bperf(struct stat_run *r)
{
	struct stat_bperf *b = &r->o.bperf;
	char *name, *save;
	int i, err;

	if (!b->dir)
		b->dir = BPERF_DEFAULT_DIR;
	if (r->o.cmd) {
		/* forked and held: its pid is known before it runs */
		b->filter = BPERF_FILTER_TGID;
		stat_bperf_add_key(b, r->wl.pid);
	}
	if (b->filter == BPERF_FILTER_CGROUP) {
		for (name = strtok_r(r->o.filter_arg, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			err = stat_bperf_add_cgroup(b, name);
			if (err)
				return err;
		}
	}
	/* the events are the leaders': this session opens none of its own */
	err = stat_bperf_open(b, &r->es);
	for (i = 0; !err && i < b->nr; i++)
		err = watch_owner(r, i);
	return err;
}

static int open_mode(struct stat_run *r)
{
	int err;

	if (r->o.mode == MODE_ALL_PROGS)
		return stat_progs_open(&r->progs);
	r->es = r->o.es;
	if (!r->es.nr && stat_events_parse(&r->es, DEFAULT_EVENTS))
		return -EINVAL;
	r->prof.by_stats = r->o.mode == MODE_PROFILE && !r->o.trampoline &&
			   stat_profile_can_use_stats(&r->es);
	r->prof.hist = r->o.hist;
	if (r->o.mode == MODE_PROFILE && !r->prof.by_stats) {
		err = stat_events_open(&r->es);
		if (err)
			return err;
	}
	r->counts = calloc((STAT_MAX_TARGETS + BPERF_MAX_CGROUPS) * r->es.nr, sizeof(*r->counts));
	if (!r->counts)
		return -ENOMEM;
	if (r->o.mode == MODE_PROFILE)
		return stat_profile_open(&r->prof, r->o.ids, r->o.nr_ids, &r->es);
	return open_bperf(r);
}

static int run(struct stat_run *r)
{
	int err;

	err = cmd_loop_init(&r->loop, CMD_LOOP_SIGCHLD, &loop_ops, r);
	if (err) {
		fprintf(stderr, "bpfrec stat: %s\n", strerror(-err));
		return err;
	}
	if (r->o.cmd) {
		err = workload_prepare(&r->wl, r->o.cmd);
		if (err)
			return err;
	}
	err = open_mode(r);
	if (err)
		return err;
	r->start = r->last = r->last_read = mono_ns();
	/* intervals and duration count from the start of counting */
	err = cmd_loop_arm(&r->loop, r->o.duration, r->o.interval_ms);
	if (err) {
		fprintf(stderr, "bpfrec stat: timers: %s\n", strerror(-err));
		return err;
	}
	if (r->o.cmd && workload_start(&r->wl)) {
		fprintf(stderr, "bpfrec stat: starting %s: %s\n", r->o.cmd[0], strerror(errno));
		return -ECHILD;
	}
	r->loop.timeout_ms = r->prof.by_stats ? REFRESH_MS : -1;
	err = cmd_loop_run(&r->loop);
	if (r->loop.wait_failed)
		fprintf(stderr, "bpfrec stat: epoll_wait: %s\n", strerror(-err));
	/*
	 * With -I, the intervals were shown: when the targets were all
	 * unloaded, no last one of what remains (a few ms without runs)
	 */
	if (!err && !(r->o.interval_ms && r->prof.nr && !stat_profile_alive(&r->prof)))
		err = show(r, true);
	if (!err && r->o.hist)
		stat_profile_print_hist(&r->prof, stdout, r->o.json);
	if (!err && r->o.output)
		err = stat_record_write(&r->rec, r->o.output, r->argc, r->argv);
	if (!err && r->progs.lost)
		fprintf(stderr, "bpfrec stat: LOST the final counts of %llu freed programs\n",
			(unsigned long long)r->progs.lost);
	return err;
}

static void cleanup(struct stat_run *r)
{
	workload_abort(&r->wl);
	stat_progs_close(&r->progs);
	stat_profile_close(&r->prof);
	stat_bperf_close(&r->o.bperf);
	stat_events_close(&r->es);
	stat_record_free(&r->rec);
	free(r->counts);
	cmd_loop_close(&r->loop);
}

int cmd_stat(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, "[DURATION | -- CMD [ARGS]]", doc,
				   cmd_help_children, NULL, NULL };
	struct stat_run r = {
		.wl = { .go_fd = -1, .exec_fd = -1 },
		.progs = { .stats_fd = -1 },
		.prof = { .stats_fd = -1 },
		.loop = CMD_LOOP_INIT,
		.argc = argc,
		.argv = argv,
	};
	char target[256];
	int err;

	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &r.o);
	if (err)
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	snprintf(target, sizeof(target), r.o.cmd ? "while '%s' ran" : "system wide",
		 r.o.cmd ? r.o.cmd[0] : "");
	r.rec.interval_ms = r.o.interval_ms;
	r.pr = (struct stat_print){
		.f = stdout,
		.json = r.o.json,
		.interval = r.o.interval_ms,
		.target = target,
	};
	err = run(&r);
	/* what util/ built of the error, once */
	if (err)
		errmsg_print();
	if (r.o.cmd && !err && r.wl.pid > 0)
		workload_reap(&r.wl, true);
	cleanup(&r);
	if (err)
		return BPFREC_EXIT_ERROR;
	return r.o.cmd ? r.wl.status : BPFREC_EXIT_OK;
}
