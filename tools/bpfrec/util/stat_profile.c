// SPDX-License-Identifier: GPL-2.0
/* `bpfrec stat -b`: see stat_profile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/bpf_resolve.h"
#include "util/stat_profile.h"
#include "bpf_skel/stat_profile.skel.h"

/* The target's main function name from its BTF; 0 or one line on stderr. */
static int check_target(struct stat_target *t, int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct pd_prog p = {};
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "bpfrec stat: -b: program %u: %s\n", t->id, strerror(errno));
		return -errno;
	}
	t->type = info.type;
	if (info.type == BPF_PROG_TYPE_TRACING) {
		fprintf(stderr, "bpfrec stat: -b: program %u (%s) is a tracing program: fentry/fexit cannot attach to another one\n",
			t->id, info.name);
		return -EINVAL;
	}
	if (!info.btf_id || !info.nr_func_info) {
		fprintf(stderr, "bpfrec stat: -b: program %u (%s) has no BTF: fentry/fexit need its function's BTF to attach\n",
			t->id, info.name);
		return -EINVAL;
	}
	err = resolve_prog(t->id, &p);
	if (!err && (!p.nr_func_names || !p.func_names[0][0]))
		err = -ENOENT;
	if (err) {
		fprintf(stderr, "bpfrec stat: -b: program %u (%s): reading its BTF function name: %s\n",
			t->id, info.name, strerror(-err));
		pd_prog_free_arrays(&p);
		return err;
	}
	snprintf(t->name, sizeof(t->name), "%s", p.func_names[0]);
	snprintf(t->who, sizeof(t->who), "prog %u %s", t->id, t->name);
	pd_prog_free_arrays(&p);
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

static int load(struct stat_target *t, int fd, const struct stat_events *es)
{
	struct stat_profile_bpf *skel = stat_profile_bpf__open();
	int err;

	if (!skel)
		return -errno;
	t->skel = skel;
	skel->rodata->nr_events = es->nr;
	skel->rodata->nr_cpus = es->nr_cpus;
	err = bpf_map__set_max_entries(skel->maps.events, es->nr * es->nr_cpus);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.on_entry, fd, t->name);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.on_exit, fd, t->name);
	if (!err)
		err = stat_profile_bpf__load(skel);
	if (!err)
		err = set_events(skel, es);
	if (!err)
		err = stat_profile_bpf__attach(skel);
	return err;
}

int stat_profile_open(struct stat_profile *sp, const __u32 *ids, int nr,
		      struct stat_events *es)
{
	libbpf_print_fn_t old;
	int i, fd, err = 0;

	sp->es = es;
	sp->percpu = calloc(es->nr_cpus, sizeof(*sp->percpu));
	if (!sp->percpu)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		struct stat_target *t = &sp->t[sp->nr++];

		t->id = ids[i];
		fd = bpf_prog_get_fd_by_id(t->id);
		if (fd < 0) {
			err = -errno;
			if (errno == ENOENT)
				fprintf(stderr, "bpfrec stat: -b: no BPF program with id %u\n", t->id);
			else
				fprintf(stderr, "bpfrec stat: -b: program %u: %s\n", t->id,
					strerror(errno));
			break;
		}
		err = check_target(t, fd);
		if (!err) {
			/* libbpf's lines would come before ours: ours says it all */
			old = libbpf_set_print(NULL);
			err = load(t, fd, es);
			libbpf_set_print(old);
			if (err == -EPERM || err == -EACCES)
				fprintf(stderr, "bpfrec stat: -b: this kernel refuses BPF trampolines (fentry/fexit: %s), which -b needs\n",
					strerror(-err));
			else if (err)
				fprintf(stderr, "bpfrec stat: -b: attaching to program %u (%s): %s\n",
					t->id, t->name, strerror(-err));
		}
		close(fd);
	}
	return err;
}

/* Sum of the per-CPU values of @key in per-CPU array @map_fd. */
static int sum_cpus(struct stat_profile *sp, int map_fd, __u32 key, size_t size,
		    struct bpf_perf_event_value *sum)
{
	int cpu;

	if (bpf_map_lookup_elem(map_fd, &key, sp->percpu))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < sp->es->nr_cpus; cpu++) {
		if (size == sizeof(__u64)) {
			sum->counter += ((__u64 *)sp->percpu)[cpu];
			continue;
		}
		sum->counter += sp->percpu[cpu].counter;
		sum->enabled += sp->percpu[cpu].enabled;
		sum->running += sp->percpu[cpu].running;
	}
	return 0;
}

int stat_profile_read(struct stat_profile *sp)
{
	struct bpf_perf_event_value runs;
	int i, e, err;

	for (i = 0; i < sp->nr; i++) {
		struct stat_target *t = &sp->t[i];

		err = sum_cpus(sp, bpf_map__fd(t->skel->maps.runs), 0, sizeof(__u64), &runs);
		for (e = 0; !err && e < sp->es->nr; e++)
			err = sum_cpus(sp, bpf_map__fd(t->skel->maps.accum), e,
				       sizeof(t->total[e]), &t->total[e]);
		if (err)
			return err;
		t->runs = runs.counter;
	}
	return 0;
}

int stat_profile_counts(struct stat_profile *sp, bool total, struct stat_count *c)
{
	int i, e, n = 0;

	for (i = 0; i < sp->nr; i++) {
		struct stat_target *t = &sp->t[i];

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

	for (i = 0; i < sp->nr; i++)
		stat_profile_bpf__destroy(sp->t[i].skel);
	free(sp->percpu);
	sp->nr = 0;
	sp->percpu = NULL;
}
