// SPDX-License-Identifier: GPL-2.0
/* `bpfrec stat -b`: see stat_profile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/bpf_resolve.h"
#include "util/debug.h"
#include "util/mono_clock.h"
#include "util/stat_hist.h"
#include "util/stat_profile.h"
#include "bpf_skel/stat_profile.skel.h"

bool stat_profile_can_use_stats(const struct stat_events *es)
{
	int i;

	for (i = 0; i < es->nr; i++)
		if (!es->ev[i].is_time)
			return false;
	return es->nr > 0;
}

/* The main function's name from program @id's BTF: 0 or -errno. */
static int btf_name(__u32 id, char *name, size_t size)
{
	struct pd_prog p = {};
	int err = resolve_prog(id, &p);

	if (!err && (!p.nr_func_names || !p.func_names[0][0]))
		err = -ENOENT;
	if (!err)
		snprintf(name, size, "%s", p.func_names[0]);
	pd_prog_free_arrays(&p);
	return err;
}

/*
 * Whether @t can be counted, and its name: 0 or one line on stderr.  The
 * run time stats take any program; a trampoline needs the target's BTF
 * and cannot attach to another tracing program.
 */
static int check_target(struct stat_target *t, bool by_stats)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char name[sizeof(t->name)];
	int err;

	if (bpf_obj_get_info_by_fd(t->fd, &info, &len)) {
		err = -errno;
		return errmsg_set(err, "-b: program %u: %s", t->id, strerror(-err));
	}
	t->type = info.type;
	t->base_ns = info.run_time_ns;
	t->base_cnt = info.run_cnt;
	snprintf(name, sizeof(name), "%s", info.name);
	if (by_stats) {
		if (info.btf_id && info.nr_func_info)
			btf_name(t->id, name, sizeof(name));
	} else if (info.type == BPF_PROG_TYPE_TRACING) {
		return errmsg_set(-EINVAL, "-b: program %u (%s) is a tracing program: fentry/fexit cannot attach to another one",
				  t->id, info.name);
	} else if (!info.btf_id || !info.nr_func_info) {
		return errmsg_set(-EINVAL, "-b: program %u (%s) has no BTF: fentry/fexit need its function's BTF to attach",
				  t->id, info.name);
	} else {
		err = btf_name(t->id, name, sizeof(name));
		if (err)
			return errmsg_set(err, "-b: program %u (%s): reading its BTF function name: %s",
					  t->id, info.name, strerror(-err));
	}
	memcpy(t->name, name, sizeof(name));
	snprintf(t->who, sizeof(t->who), "prog %u %s", t->id, name);
	return 0;
}

static int set_events(struct stat_profile_bpf *skel, const struct stat_events *es)
{
	int i, cpu, err;

	for (i = 0; i < es->nr; i++) {
		for (cpu = 0; cpu < es->nr_cpus; cpu++) {
			__u32 key = i * es->nr_cpus + cpu;
			int fd = es->fds[key];

			if (fd < 0)
				continue;
			err = bpf_map_update_elem(bpf_map__fd(skel->maps.events), &key, &fd, BPF_ANY);
			if (err)
				return -errno;
		}
	}
	return 0;
}

/* Software events are never multiplexed: their times would only cost. */
static __u32 timed_events(const struct stat_events *es)
{
	__u32 mask = 0;
	int i;

	for (i = 0; i < es->nr; i++)
		if (es->ev[i].attr.type != PERF_TYPE_SOFTWARE)
			mask |= 1U << i;
	return mask;
}

static int load(struct stat_target *t, const struct stat_events *es)
{
	struct stat_profile_bpf *skel = stat_profile_bpf__open();
	int err;

	if (!skel)
		return -errno;
	t->skel = skel;
	skel->rodata->nr_events = es->nr;
	skel->rodata->nr_cpus = es->nr_cpus;
	skel->rodata->timed_events = timed_events(es);
	skel->rodata->hist = t->hist != NULL;
	err = bpf_map__set_max_entries(skel->maps.events, es->nr * es->nr_cpus);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.on_entry, t->fd, t->name);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.on_exit, t->fd, t->name);
	if (!err)
		err = stat_profile_bpf__load(skel);
	if (!err)
		err = set_events(skel, es);
	if (!err)
		err = stat_profile_bpf__attach(skel);
	return err;
}

static int attach(struct stat_target *t, const struct stat_events *es)
{
	libbpf_print_fn_t old;
	int err;

	/* libbpf's lines would come before ours: ours says it all */
	old = libbpf_set_print(debug_libbpf_verbose);
	err = load(t, es);
	libbpf_set_print(old);
	if (err == -EPERM || err == -EACCES)
		return errmsg_set(err, "-b: this kernel refuses BPF trampolines (fentry/fexit: %s), which -b needs",
				  strerror(-err));
	if (err)
		return errmsg_set(err, "-b: attaching to program %u (%s): %s", t->id, t->name,
				  strerror(-err));
	return 0;
}

/* On before the targets' first readings: runs before are not ours. */
static int enable_stats(struct stat_profile *sp)
{
	int err;

	sp->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (sp->stats_fd >= 0)
		return 0;
	err = -errno;
	return errmsg_set(err, "-b: turning the BPF run time stats on: %s", strerror(-err));
}

int stat_profile_open(struct stat_profile *sp, const __u32 *ids, int nr,
		      struct stat_events *es)
{
	int i, err = 0;

	sp->es = es;
	sp->stats_fd = -1;
	if (sp->by_stats)
		err = enable_stats(sp);
	else if (!(sp->percpu = calloc(es->nr_cpus, sizeof(*sp->percpu))))
		err = -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		struct stat_target *t = &sp->t[sp->nr++];

		t->id = ids[i];
		t->fd = bpf_prog_get_fd_by_id(t->id);
		if (t->fd < 0) {
			err = -errno;
			if (err == -ENOENT)
				errmsg_set(err, "-b: no BPF program with id %u", t->id);
			else
				errmsg_set(err, "-b: program %u: %s", t->id, strerror(-err));
			break;
		}
		if (sp->hist && !(t->hist = calloc(STAT_HIST_BUCKETS, sizeof(*t->hist)))) {
			err = -ENOMEM;
			break;
		}
		err = check_target(t, sp->by_stats);
		if (!err && !sp->by_stats)
			err = attach(t, es);
		if (!err && sp->by_stats) {
			close(t->fd);
			t->fd = -1;
		}
	}
	sp->start_ns = mono_ns();
	return err;
}

/* Through a trampoline: the targets' state, summed over the CPUs. */
static int read_percpu(struct stat_profile *sp, struct stat_target *t, __u64 elapsed)
{
	__u32 key = 0, timed = timed_events(sp->es);
	int cpu, e;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.state), &key, sp->percpu))
		return -errno;
	memset(t->total, 0, sizeof(t->total));
	t->runs = 0;
	if (t->hist)
		memset(t->hist, 0, STAT_HIST_BUCKETS * sizeof(*t->hist));
	t->max = 0;
	for (cpu = 0; cpu < sp->es->nr_cpus; cpu++) {
		const struct stat_profile_cpu *c = &sp->percpu[cpu];
		int b;

		t->runs += c->runs;
		for (b = 0; t->hist && b < STAT_HIST_BUCKETS; b++)
			t->hist[b] += c->hist[b];
		if (c->max > t->max)
			t->max = c->max;
		for (e = 0; e < sp->es->nr; e++) {
			t->total[e].counter += c->accum[e].counter;
			t->total[e].enabled += c->accum[e].enabled;
			t->total[e].running += c->accum[e].running;
		}
	}
	for (e = 0; e < sp->es->nr; e++) {
		if (timed & (1U << e))
			continue;
		t->total[e].enabled = elapsed;
		t->total[e].running = elapsed;
	}
	return 0;
}

/* From the run time stats: every event is the time the runs took. */
static int read_stats(struct stat_profile *sp, struct stat_target *t, __u64 elapsed)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int e, fd, err = 0;

	if (t->gone)
		return 0;
	fd = bpf_prog_get_fd_by_id(t->id);
	if (fd < 0 && errno == ENOENT) {
		t->gone = true;
		return 0;
	}
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	close(fd);
	/* an id is not given again soon, but a program of another type is another */
	if (!err && info.type != t->type)
		t->gone = true;
	if (err || t->gone)
		return err;
	t->runs = info.run_cnt - t->base_cnt;
	for (e = 0; e < sp->es->nr; e++)
		t->total[e] = (struct bpf_perf_event_value){
			.counter = info.run_time_ns - t->base_ns,
			.enabled = elapsed,
			.running = elapsed,
		};
	return 0;
}

int stat_profile_read(struct stat_profile *sp)
{
	__u64 elapsed = mono_ns() - sp->start_ns;
	int i, err;

	for (i = 0; i < sp->nr; i++) {
		err = sp->by_stats ? read_stats(sp, &sp->t[i], elapsed) :
				     read_percpu(sp, &sp->t[i], elapsed);
		if (err)
			return err;
	}
	return 0;
}

int stat_profile_alive(const struct stat_profile *sp)
{
	int i, n = 0;

	for (i = 0; i < sp->nr; i++)
		n += !sp->t[i].gone;
	return n;
}

int stat_profile_counts(struct stat_profile *sp, bool total, struct stat_count *c)
{
	int i, e, n = 0;

	for (i = 0; i < sp->nr; i++) {
		struct stat_target *t = &sp->t[i];

		if (t->gone_shown)
			continue;
		for (e = 0; e < sp->es->nr; e++, n++) {
			static const struct bpf_perf_event_value zero;

			c[n] = (struct stat_count){
				.ev = &sp->es->ev[e],
				.who = t->who,
				.runs = t->runs - (total ? 0 : t->shown_runs),
				.has_runs = true,
			};
			stat_value_sub(&c[n].v, &t->total[e], total ? &zero : &t->shown[e]);
			t->shown[e] = t->total[e];
		}
		t->shown_runs = t->runs;
	}
	return n;
}

void stat_profile_close(struct stat_profile *sp)
{
	int i;

	for (i = 0; i < sp->nr; i++) {
		stat_profile_bpf__destroy(sp->t[i].skel);
		free(sp->t[i].hist);
		sp->t[i].hist = NULL;
		if (sp->t[i].fd >= 0)
			close(sp->t[i].fd);
	}
	if (sp->stats_fd >= 0)
		close(sp->stats_fd);
	free(sp->percpu);
	sp->nr = 0;
	sp->stats_fd = -1;
	sp->percpu = NULL;
}

void stat_profile_print_hist(const struct stat_profile *sp, FILE *f, bool json)
{
	int i;

	for (i = 0; i < sp->nr; i++) {
		const struct stat_target *t = &sp->t[i];

		if (!t->hist)
			continue;
		if (json)
			stat_hist_json(f, t->id, t->name, t->hist, t->max);
		else
			stat_hist_print(f, t->who, t->name, t->hist, t->max);
	}
}
