// SPDX-License-Identifier: GPL-2.0
/*
 * The off-CPU sampler (util/off_cpu.h).  The BPF side sends a direct
 * interval through a bpf-output event on every CPU; that event is the
 * file's offcpu-time: opened with RAW samples (the kernel copies what BPF
 * sent), described in the file with the layout of the samples written in
 * its name, perf's off-CPU layout.  A stack is read from the stack map
 * once per sample that names it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/capture.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/kallsyms_copy.h"
#include "util/mono_clock.h"
#include "util/off_cpu.h"
#include "util/off_cpu_raw.h"
#include "util/parse_num.h"
#include "util/perf_data/perf_data.h"
#include "bpf_skel/off_cpu.h"
#include "bpf_skel/off_cpu.skel.h"

/* perf's off-CPU sample layout; CGROUP when a cgroup is asked for */
#define OFFCPU_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			    PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

#define MAX_THRESH_NS	(3600ULL * 1000000000)	/* an hour */
/*
 * The stacks "spilled" holds: a quarter of the slots (the stack map takes
 * most stacks; 4096 stacks in 16384 slots spill about 500), and at least
 * 1024, so that a stack map of a few slots still works.
 */
#define OFFCPU_SPILL_MIN	1024

void off_cpu_opts_default(struct off_cpu_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->thresh_ns = OFFCPU_DEFAULT_THRESH_NS;
	o->states = OFFCPU_S | OFFCPU_D;
	o->threads = OFFCPU_USER_THREADS;
	o->stack_slots = OFFCPU_STACK_SLOTS;
}

int off_cpu_parse_slots(const char *s, __u32 *slots)
{
	unsigned long n;

	if (parse_ulong(s, &n) || !n || n > OFFCPU_STACK_SLOTS_MAX)
		return -EINVAL;
	*slots = n;
	return 0;
}

/*
 * perf 6.16 took milliseconds (it took microseconds before): a plain number
 * is milliseconds, a decimal fraction allowed ("0.5"), and a unit suffix
 * (ns, us, ms, s) says otherwise.  Integer arithmetic only: "0.1" is
 * 100000 ns exactly.
 */
int off_cpu_parse_thresh(const char *s, __u64 *ns)
{
	static const struct { const char *name; __u64 ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	__u64 unit = 1000000, whole = 0, frac = 0, scale = 1;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > MAX_THRESH_NS)
			return -EINVAL;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		/* nine digits are a nanosecond of a second: the rest cannot count */
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale < 1000000000) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
		}
	}
	if (*p) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		unit = units[i].ns;
	}
	if (whole > MAX_THRESH_NS / unit)
		return -EINVAL;
	*ns = whole * unit + frac * unit / scale;
	return *ns > MAX_THRESH_NS ? -EINVAL : 0;
}

int off_cpu_parse_states(const char *s, __u32 *states)
{
	static const char letters[] = "RSDTI";
	const char *l;

	*states = 0;
	for (; *s; s++) {
		if (*s == ',')
			continue;
		l = strchr(letters, *s);
		if (!l)
			return -EINVAL;
		*states |= 1U << (l - letters);
	}
	return *states ? 0 : -EINVAL;
}

int off_cpu_parse_threads(const char *s, __u32 *threads)
{
	if (!strcmp(s, "user"))
		*threads = OFFCPU_USER_THREADS;
	else if (!strcmp(s, "kernel"))
		*threads = OFFCPU_KERNEL_THREADS;
	else if (!strcmp(s, "all"))
		*threads = OFFCPU_USER_THREADS | OFFCPU_KERNEL_THREADS;
	else
		return -EINVAL;
	return 0;
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1. */
static void cgroup2_root(char *root, size_t len)
{
	char dir[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	snprintf(root, len, "/sys/fs/cgroup");
	while (f && fscanf(f, "%*s %4095s %63s %*[^\n]", dir, type) == 2) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* A cgroup v2 directory, by path or relative to where cgroup v2 is mounted. */
static int open_cgroup(const char *name)
{
	char path[4096], root[4096] = "";
	struct statfs sf;
	int fd;

	if (name[0] != '/')
		cgroup2_root(root, sizeof(root));
	snprintf(path, sizeof(path), "%s%s%s", root, root[0] ? "/" : "", name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && !fstatfs(fd, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC)
		return fd;
	if (fd >= 0)
		close(fd);
	return errmsg_set(-EINVAL, "--off-cpu-cgroup: '%s' is not a cgroup v2 directory (see bpfrec record --help)",
			  path);
}

/*
 * The leading frames of the sampler's own handler (the tracepoint's run and
 * iterator functions) left out of the @n kernel frames at @ips, so that the
 * file shows where the task waits, to perf too: the frames that remain.
 */
static int drop_own_frames(struct off_cpu *oc, __u64 *ips, int n)
{
	const struct kallsyms_copy *k = oc->o.kallsyms;
	const struct ksym *s;
	int i = 0;

	if (!oc->ksyms_tried) {
		oc->ksyms_tried = true;
		/* without symbols the frames stay: the readers leave them out */
		if (k && k->len && ksyms_parse(&oc->ksyms, k->text, k->len))
			memset(&oc->ksyms, 0, sizeof(oc->ksyms));
	}
	while (i < n && (s = ksyms_find(&oc->ksyms, ips[i])) && ksym_profiler_frame(s->name))
		i++;
	if (i == n)
		return n;
	memmove(ips, ips + i, (n - i) * sizeof(*ips));
	return n - i;
}

/*
 * The frames of stack @id, innermost first, after a context mark: entries
 * used, 0 without.  Ids from OFFCPU_SPILL_ID up are in "spilled".
 */
static int read_stack(struct off_cpu *oc, __s32 id, __u64 mark, __u64 *chain)
{
	struct offcpu_spilled sp;
	__u32 key = id;
	int n = 0;

	if (id < 0)
		return 0;
	if (key >= OFFCPU_SPILL_ID) {
		if (bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.spilled), &key, &sp))
			return 0;
		memcpy(chain + 1, sp.ips, sizeof(sp.ips));
	} else if (bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.stacks), &key, chain + 1)) {
		return 0;
	}
	while (n < OFFCPU_MAX_FRAMES && chain[1 + n])
		n++;
	if (mark == PERF_CONTEXT_KERNEL)
		n = drop_own_frames(oc, chain + 1, n);
	if (!n)
		return 0;
	chain[0] = mark;
	return n + 1;
}

/* -EFAULT: nothing to unwind (a kernel thread's user stack); the others lost one. */
static bool stack_lost(__s32 id)
{
	return id < 0 && id != -EFAULT;
}

/* The user registers and stack of @s from copy @u (NULL, or empty: none). */
static void put_ustack(struct off_cpu *oc, struct pd_sample *s, const struct offcpu_ustack *u)
{
	if (!u || !u->size || u->size > OFFCPU_STACK_MAX)
		return;
	s->regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_user = u->regs;
	s->stack_user = u->data;
	s->stack_user_size = u->size;
	s->stack_user_dyn_size = u->size;
	oc->ustacks++;
}

/*
 * --wakers: the waker of the interval of @k, as a sample of offcpu-waker
 * written just before the interval's (the reader joins them by the woken
 * thread, ADDR, and the time): the waker's pid and tid, its stacks, its
 * name in RAW (it may be a process the recording has no COMM of).
 */
static int write_waker(struct off_cpu *oc, const struct offcpu_key *k, __u64 time,
		       __u64 period, __u32 cpu, const struct offcpu_ustack *wu)
{
	__u64 chain[2 * (1 + OFFCPU_MAX_FRAMES)];
	struct pd_sample s = {
		.pid = k->waker_tgid, .tid = k->waker_pid, .time = time, .cpu = cpu,
		.id = oc->waker_id, .period = period, .addr = k->pid, .callchain = chain,
		.raw = k->waker_comm, .raw_size = sizeof(k->waker_comm),
	};
	int nk;

	nk = read_stack(oc, k->waker_kstack, PERF_CONTEXT_KERNEL, chain);
	s.nr_callchain = nk + read_stack(oc, k->waker_ustack, PERF_CONTEXT_USER, chain + nk);
	if (s.nr_callchain)
		s.ip = chain[1];
	put_ustack(oc, &s, wu);
	oc->wakers++;
	return pd_write_sample(oc->w, nk ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, &s);
}

/*
 * @u: the copy of the user registers and stack (--call-graph dwarf), or
 * NULL: the sample then says it has none (ABI NONE, no stack), as the
 * kernel does for a thread without a user side; @wu the waker's.  RAW
 * repeats the sample in perf's off-CPU layout, which recent perf reads in
 * place of the sample's fields, and ends with the state the thread left
 * the CPU in (util/off_cpu_raw.h).
 */
static int write_interval(struct off_cpu *oc, const struct offcpu_key *k, __u64 time,
			  __u64 period, __u32 cpu, __u64 id, const struct offcpu_ustack *u,
			  const struct offcpu_ustack *wu)
{
	__u64 chain[2 * (1 + OFFCPU_MAX_FRAMES)];
	__u64 raw[OFFCPU_RAW_WORDS(2 * (1 + OFFCPU_MAX_FRAMES)) + 1];
	struct pd_sample s = {
		.pid = k->tgid, .tid = k->pid, .time = time, .cpu = cpu, .id = id,
		.period = period, .cgroup = k->cgroup, .callchain = chain, .raw = raw,
	};
	int nk, err;

	if (oc->o.wakers && k->waker_comm[0]) {
		err = write_waker(oc, k, time, period, cpu, wu);
		if (err)
			return err;
	}
	nk = read_stack(oc, k->kstack, PERF_CONTEXT_KERNEL, chain);
	s.nr_callchain = nk + read_stack(oc, k->ustack, PERF_CONTEXT_USER, chain + nk);
	if (s.nr_callchain)
		s.ip = chain[1];
	s.raw_size = offcpu_raw_fill(raw, s.pid, s.tid, period, s.nr_callchain, chain,
				     k->cgroup, k->state);
	put_ustack(oc, &s, u);
	if (stack_lost(k->kstack) || stack_lost(k->ustack))
		oc->no_stack++;
	oc->total_ns += period;
	/* the cpumode of IP, the innermost frame */
	return pd_write_sample(oc->w, nk ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, &s);
}

/* What the BPF side sent, or the rings' LOST records: written in the event's name. */
static int on_record(void *ctx, const struct ring *r, const struct perf_event_header *h)
{
	const __u64 *lost = (const void *)(h + 1);
	const __u32 *raw_size = (const void *)(h + 1);
	struct off_cpu *oc = ctx;
	struct offcpu_ustack *copy, *wcopy;
	struct offcpu_direct d;
	size_t ulen;
	struct pd_sample s = { .id = r->id, .cpu = r->cpu };

	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 2 * sizeof(*lost)) {
		oc->lost += lost[1];
		s.time = mono_ns();
		return pd_write_lost(oc->w, r->id, lost[1], &s);
	}
	/* u32 size, then the data: at offset 4, copied out to be aligned */
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 4 + sizeof(d) ||
	    *raw_size < sizeof(d))
		return 0;
	memcpy(&d, raw_size + 1, sizeof(d));
	ulen = *raw_size - sizeof(d);
	copy = d.flags & OFFCPU_F_WAKER ? oc->wcopy : oc->ucopy;
	if (!(d.flags & OFFCPU_F_USTACK) || !copy || ulen < offsetof(struct offcpu_ustack, data) ||
	    ulen > sizeof(*copy) || h->size < sizeof(*h) + 4 + *raw_size) {
		copy = NULL;
	} else {
		/* the copy as it was cut: its size says how much data came */
		memcpy(copy, (const char *)(raw_size + 1) + sizeof(d), ulen);
		if (copy->size > ulen - offsetof(struct offcpu_ustack, data))
			copy->size = 0;
	}
	if (d.flags & OFFCPU_F_WAKER) {
		/* for the interval sent next, on the same CPU */
		oc->wcopy_time = copy ? d.time : 0;
		oc->wcopy_tid = d.key.pid;
		return 0;
	}
	oc->direct++;
	wcopy = oc->wcopy_time && oc->wcopy_time == d.time && oc->wcopy_tid == d.key.pid ?
		oc->wcopy : NULL;
	oc->wcopy_time = 0;
	return write_interval(oc, &d.key, d.time, d.period, d.cpu, r->id, copy, wcopy);
}

static int add_event(struct off_cpu *oc, struct evlist *el)
{
	struct perf_event_attr attr;
	int i, fd = bpf_map__fd(oc->skel->maps.out), err;

	/* on the side-band's clock, bpf_ktime_get_ns(): the intervals' */
	evlist_bpf_output_attr(&attr, el->ring_bytes, PERF_SAMPLE_RAW);
	err = evlist_add(el, &attr, OFFCPU_EVENT);
	if (err)
		return err;
	oc->ev = el->ev[el->nr_ev - 1];
	oc->ev->drain = on_record;
	oc->ev->drain_ctx = oc;
	/* the kernel keeps the attr it opened; the file's describes our samples */
	oc->ev->attr.sample_type = OFFCPU_SAMPLE_TYPE | PERF_SAMPLE_RAW |
				   (oc->o.cgroup ? PERF_SAMPLE_CGROUP : 0);
	if (oc->o.ustack_size) {
		/* perf --call-graph dwarf's fields: its reader unwinds them too */
		oc->ev->attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		oc->ev->attr.sample_regs_user = OFFCPU_REGS_MASK;
		oc->ev->attr.sample_stack_user = oc->o.ustack_size;
	}
	if (oc->o.wakers) {
		/* the wakers' samples: written by the recorder alone, an id of its own */
		attr = oc->ev->attr;
		attr.sample_type = (attr.sample_type & ~(PERF_SAMPLE_CGROUP | PERF_SAMPLE_RAW)) |
				   PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW;
		oc->waker_id = oc->ev->ids[0] | 1ULL << 62;
		err = evlist_add_file_only(el, &attr, OFFCPU_WAKER_EVENT, oc->waker_id);
		if (err)
			return err;
	}
	for (i = 0; i < oc->ev->nr; i++) {
		if (bpf_map_update_elem(fd, &oc->ev->rings[i].cpu, &oc->ev->rings[i].fd, BPF_ANY)) {
			int err = -errno;

			return errmsg_set(err, "wiring the off-CPU output of CPU %d: %s",
					  oc->ev->rings[i].cpu, strerror(-err));
		}
	}
	return 0;
}

static int load(struct off_cpu *oc)
{
	struct off_cpu_bpf *skel;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return errmsg_set(-EOPNOTSUPP, "--off-cpu needs the kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)");
	skel = off_cpu_bpf__open();
	if (!skel) {
		err = -errno;
		return errmsg_set(err, "opening the off-CPU sampler: %s", strerror(-err));
	}
	oc->skel = skel;
	skel->rodata->thresh_ns = oc->o.thresh_ns;
	skel->rodata->states = oc->o.states;
	skel->rodata->threads = oc->o.threads;
	skel->rodata->has_pid = oc->o.workload || oc->o.nr_pids;
	skel->rodata->has_tid = oc->o.nr_tids;
	skel->rodata->has_cgroup = oc->o.cgroup;
	skel->rodata->follow_forks = skel->rodata->has_pid;
	skel->rodata->ustack_size = oc->o.ustack_size;
	skel->rodata->wakers = oc->o.wakers;
	bpf_map__set_max_entries(skel->maps.stacks, oc->o.stack_slots);
	bpf_map__set_max_entries(skel->maps.spilled, oc->o.stack_slots / 4 < OFFCPU_SPILL_MIN ?
				 OFFCPU_SPILL_MIN : oc->o.stack_slots / 4);
	/* no copies: no memory for them either */
	if (!oc->o.ustack_size)
		bpf_map__set_max_entries(skel->maps.agg_ucopies, 1);
	if (!oc->o.ustack_size || !oc->o.wakers)
		bpf_map__set_max_entries(skel->maps.agg_wcopies, 1);
	if (!oc->o.wakers)
		bpf_program__set_autoload(skel->progs.on_waking, false);
	if (!skel->rodata->has_pid)
		bpf_program__set_autoload(skel->progs.on_newtask, false);
	err = off_cpu_bpf__load(skel);
	if (err == -EPERM || err == -EACCES)
		return errmsg_set(err, "no permission to load the off-CPU sampler: run as root or grant CAP_BPF and CAP_PERFMON");
	if (err)
		return errmsg_set(err, "loading the off-CPU sampler (tp_btf on sched_switch): %s",
				  strerror(-err));
	return 0;
}

int off_cpu_check(const struct off_cpu_opts *o)
{
	int fd;

	if (o->ustack_size > OFFCPU_STACK_MAX)
		return errmsg_set(-EINVAL, "--off-cpu copies at most %d bytes of user stack, not %u (see bpfrec record --help)",
				  OFFCPU_STACK_MAX, o->ustack_size);
	fd = o->cgroup ? open_cgroup(o->cgroup) : -1;

	if (fd < 0)
		return o->cgroup ? fd : 0;
	close(fd);
	return 0;
}

int off_cpu_open(struct off_cpu *oc, const struct off_cpu_opts *o, struct evlist *el)
{
	int err;

	memset(oc, 0, sizeof(*oc));
	oc->o = *o;
	oc->cgroup_fd = -1;
	if (o->ustack_size) {
		oc->ucopy = malloc(sizeof(*oc->ucopy));
		oc->wcopy = malloc(sizeof(*oc->wcopy));
		if (!oc->ucopy || !oc->wcopy) {
			off_cpu_close(oc);
			return -ENOMEM;
		}
	}
	if (o->cgroup) {
		oc->cgroup_fd = open_cgroup(o->cgroup);
		if (oc->cgroup_fd < 0)
			return oc->cgroup_fd;
	}
	err = load(oc);
	if (!err)
		err = add_event(oc, el);
	if (err)
		off_cpu_close(oc);
	return err;
}

static int filter_add(struct bpf_map *map, const pid_t *ids, int nr)
{
	__u8 one = 1;
	__u32 id;
	int i;

	for (i = 0; i < nr; i++) {
		id = ids[i];
		if (bpf_map_update_elem(bpf_map__fd(map), &id, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

int off_cpu_start(struct off_cpu *oc, struct pd_writer *w, pid_t workload)
{
	struct off_cpu_bpf *skel = oc->skel;
	__u32 zero = 0;
	int err;

	oc->w = w;
	err = filter_add(skel->maps.pid_filter, oc->o.pids, oc->o.nr_pids);
	if (!err && workload)
		err = filter_add(skel->maps.pid_filter, &workload, 1);
	if (!err)
		err = filter_add(skel->maps.tid_filter, oc->o.tids, oc->o.nr_tids);
	if (!err && oc->cgroup_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_filter), &zero, &oc->cgroup_fd, BPF_ANY))
		err = -errno;
	if (!err)
		err = off_cpu_bpf__attach(skel);
	if (err)
		return errmsg_set(err, "starting the off-CPU sampler: %s", strerror(-err));
	__atomic_store_n(&skel->bss->enabled, true, __ATOMIC_RELEASE);
	return 0;
}

void off_cpu_stop(struct off_cpu *oc)
{
	__atomic_store_n(&oc->skel->bss->enabled, false, __ATOMIC_RELEASE);
}

int off_cpu_finish(struct off_cpu *oc, __u64 time)
{
	int fd = bpf_map__fd(oc->skel->maps.aggregate), err;
	int ufd = bpf_map__fd(oc->skel->maps.agg_ucopies);
	int wfd = bpf_map__fd(oc->skel->maps.agg_wcopies);
	struct offcpu_key key, next, *prev = NULL;
	const struct offcpu_ustack *u, *wu;
	__u64 total;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &total))
			continue;
		u = oc->ucopy && !bpf_map_lookup_elem(ufd, &key, oc->ucopy) ? oc->ucopy : NULL;
		wu = oc->wcopy && !bpf_map_lookup_elem(wfd, &key, oc->wcopy) ? oc->wcopy : NULL;
		err = write_interval(oc, &key, time, total, 0, oc->ev->ids[0], u, wu);
		if (err)
			return err;
		oc->sums++;
	}
	return 0;
}

void off_cpu_report(const struct off_cpu *oc)
{
	__u64 agg_lost = oc->skel->bss->agg_lost, out_lost = oc->skel->bss->out_lost;
	__u64 unstarted = oc->skel->bss->unstarted + oc->skel->bss->unended;
	__u64 unseen = oc->skel->bss->unseen_back - oc->skel->bss->unended;

	pr_info("off-CPU: %.3f s in %llu samples (%llu intervals >= %g ms as they ended, %llu sums of shorter ones)\n",
		oc->total_ns / 1e9, (unsigned long long)(oc->direct + oc->sums),
		(unsigned long long)oc->direct, oc->o.thresh_ns / 1e6,
		(unsigned long long)oc->sums);
	if (unseen)
		pr_info("off-CPU: %llu intervals ended where the kernel reported no switch back; their ends come from the threads' CPU time\n",
			(unsigned long long)unseen);
	if (oc->lost || out_lost || agg_lost || unstarted)
		pr_warning("off-CPU: LOST %llu intervals (raise -m or --off-cpu-thresh), %llu short ones (too many stacks to sum), %llu unmeasured (task storage busy, or no end known)\n",
			(unsigned long long)(oc->lost + out_lost), (unsigned long long)agg_lost,
			(unsigned long long)unstarted);
	if (oc->o.wakers)
		pr_info("off-CPU: %llu of the intervals with their waker (event %s)\n",
			(unsigned long long)oc->wakers, OFFCPU_WAKER_EVENT);
	if (oc->o.ustack_size)
		pr_info("off-CPU: %llu of the samples with a copy of the user stack (--call-graph dwarf)\n",
			(unsigned long long)oc->ustacks);
	if (oc->skel->bss->spills)
		pr_info("off-CPU: %llu %s the stack map taken and %s kept by hash (--off-cpu-stacks %u)\n",
			(unsigned long long)oc->skel->bss->spills,
			oc->skel->bss->spills == 1 ? "stack found its slot of" : "stacks found their slots of",
			oc->skel->bss->spills == 1 ? "was" : "were", oc->o.stack_slots);
	if (oc->no_stack)
		pr_warning("off-CPU: %llu sample%s with a stack that could not be read (stack map full, or two stacks under one hash)\n",
			(unsigned long long)oc->no_stack, oc->no_stack == 1 ? "" : "s");
}

void off_cpu_mark(const struct off_cpu *oc, struct facts *f)
{
	skel_mark_self(oc->skel->skeleton, f);
}

void off_cpu_close(struct off_cpu *oc)
{
	/* zeroed, it was never opened: fd 0 is not its own */
	if (!oc->skel && !oc->cgroup_fd) {
		free(oc->ucopy);
		free(oc->wcopy);
		oc->ucopy = oc->wcopy = NULL;
		return;
	}
	off_cpu_bpf__destroy(oc->skel);
	ksyms_free(&oc->ksyms);
	free(oc->ucopy);
	free(oc->wcopy);
	if (oc->cgroup_fd >= 0)
		close(oc->cgroup_fd);
	memset(oc, 0, sizeof(*oc));
}
