// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the events of a recording on every online CPU, each instance
 * with its mmap ring buffer; the side-band event is a software dummy
 * event asking for BPF, ksymbol and comm records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/perf_event.h"
#include "util/vmlinux_btf.h"

/* The attr flags word (disabled, inherit, ...) follows read_format. */
#define ATTR_FLAGS_BIT0		320

int evlist_obj_event_bit(const struct btf *btf)
{
	const struct btf_member *m;
	const struct btf_type *t;
	__u32 off;
	int id, i;

	id = btf__find_by_name_kind(btf, "perf_event_attr", BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "bpf_obj_event"))
			continue;
		off = btf_member_bit_offset(t, i);
		if (btf_member_bitfield_size(t, i) != 1 || off < ATTR_FLAGS_BIT0 ||
		    off >= ATTR_FLAGS_BIT0 + 64)
			return -1;
		off -= ATTR_FLAGS_BIT0;
		/* bit-fields are laid out from the most significant bit there */
		return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 63 - off : off;
	}
	return -1;
}

/* evlist_obj_event_bit() of the running kernel. */
static int kernel_obj_event_bit(void)
{
	/* an unpatched kernel names no bpf_obj_event: no parse then */
	struct btf *vmlinux = vmlinux_btf_load_naming("bpf_obj_event");
	int bit = vmlinux ? evlist_obj_event_bit(vmlinux) : -1;

	btf__free(vmlinux);
	return bit;
}

/*
 * What every software event of a recording shares: disabled until the
 * recording starts, sample_id_all, and the clock of the side-band
 * records.
 */
static void software_attr(struct perf_event_attr *attr, __u64 config, __u64 sample_type,
			  unsigned int wakeup_bytes)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = config;
	attr->size = sizeof(*attr);
	attr->sample_type = sample_type;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	/* the clock of bpf_ktime_get_ns(): captured facts and records line up */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* wake up per chunk of data, not per record: a storm is thousands of them */
	attr->watermark = 1;
	attr->wakeup_watermark = wakeup_bytes;
}

/* @obj_event_bit: the flags word's bit of attr.bpf_obj_event, or -1. */
static void attr_init(struct perf_event_attr *attr, unsigned int wakeup_bytes, int obj_event_bit)
{
	software_attr(attr, PERF_COUNT_SW_DUMMY,
		      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		      wakeup_bytes);
	attr->bpf_event = 1;
	attr->ksymbol = 1;
	/* so that script can name the processes that exec during the recording */
	attr->comm = 1;
	attr->comm_exec = 1;
	/* the series' map/link/BTF records */
	if (obj_event_bit >= 0)
		*(__u64 *)((char *)attr + ATTR_FLAGS_BIT0 / 8) |= 1ULL << obj_event_bit;
}

/*
 * Every instance counts the records it could not write (PERF_FORMAT_LOST,
 * Linux 6.0), as perf asks: the losses no LOST record told of when the
 * recording stops are read from it (evlist_lost()).  A kernel that
 * refuses the bit opens the event without it.
 */
static int open_counting_lost(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd;

	attr->read_format |= PERF_FORMAT_LOST;
	fd = perf_event_open(attr, pid, cpu);
	if (fd < 0 && errno == EINVAL) {
		attr->read_format &= ~PERF_FORMAT_LOST;
		fd = perf_event_open(attr, pid, cpu);
	}
	return fd;
}

/* Why perf_event_open() failed, in one line. */
static int open_failed(int cpu)
{
	int err = -errno;

	if (err == -EACCES || err == -EPERM)
		return errmsg_set(err, "no permission to open system-wide perf events: run as root or grant CAP_PERFMON and CAP_BPF");
	return errmsg_set(err, "perf_event_open on cpu %d: %s", cpu, strerror(-err));
}

/*
 * The side-band attr, tried on one CPU.  Whether the kernel has
 * bpf_obj_event is read from its BTF, by name: mainline gives the bits
 * after sigtrap to other features, so a kernel taking the bit says
 * nothing, and the series may move it.
 */
static int probe_sideband(struct evlist *el, struct perf_event_attr *attr)
{
	unsigned int wakeup = el->ring_bytes / 4;
	int fd, cpu = el->cpus[0], bit = kernel_obj_event_bit();

	attr_init(attr, wakeup, bit);
	fd = open_counting_lost(attr, -1, cpu);
	if (fd < 0 && errno == EINVAL && bit >= 0) {
		pr_warning("the kernel refused attr.bpf_obj_event (bit %d of its BTF)\n", bit);
		attr_init(attr, wakeup, -1);
		fd = open_counting_lost(attr, -1, cpu);
		bit = -1;
	}
	if (fd >= 0) {
		close(fd);
		el->obj_events = bit >= 0;
		return 0;
	}
	if (errno == EINVAL)
		return errmsg_set(-EOPNOTSUPP, "kernel lacks bpf_event side-band records (Linux >= 5.1 needed)");
	return open_failed(cpu);
}

static int ring_setup(struct ring *r, int fd, int cpu, size_t len)
{
	int err;

	r->fd = fd;
	r->cpu = cpu;
	r->len = len;
	r->base = mmap(NULL, len + getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		err = -errno;
		r->base = NULL;
		return errmsg_set(err, "mmap of %zu KiB ring on cpu %d: %s%s", len >> 10, cpu,
				  strerror(-err),
				  err == -EPERM ? " (raise perf_event_mlock_kb or lower -m)" : "");
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &r->id)) {
		err = -errno;
		return errmsg_set(err, "reading perf event id: %s", strerror(-err));
	}
	return 0;
}

/* Mark the CPUs of /sys/devices/system/cpu/online ("0-3,6") in @online. */
static int read_online_cpus(bool *online, int n)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int a, b, i, got = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		switch (sscanf(tok, "%d-%d", &a, &b)) {
		case 1:
			b = a;
			/* fall through */
		case 2:
			for (i = a; i <= b && i < n; i++, got++)
				online[i] = true;
			break;
		}
	}
	return got ? 0 : -ENOENT;
}

int evlist_init(struct evlist *el, unsigned int mmap_pages)
{
	int cpus = libbpf_num_possible_cpus(), cpu, err;
	bool *online;

	memset(el, 0, sizeof(*el));
	el->ring_bytes = (size_t)mmap_pages * getpagesize();
	if (cpus < 0)
		return cpus;
	online = calloc(cpus, sizeof(*online));
	el->cpus = calloc(cpus, sizeof(*el->cpus));
	if (!online || !el->cpus) {
		free(online);
		return -ENOMEM;
	}
	/* side-band records come from the CPU that emits them: all online ones */
	err = read_online_cpus(online, cpus);
	if (err)
		errmsg_set(err, "reading online CPUs: %s", strerror(-err));
	for (cpu = 0; !err && cpu < cpus; cpu++)
		if (online[cpu])
			el->cpus[el->nr_cpus++] = cpu;
	free(online);
	return err;
}

/*
 * The instances of @ev on CPU @i for each of @tids: the first opened owns
 * the CPU's ring, the others write into it (PERF_EVENT_IOC_SET_OUTPUT),
 * as perf does.  A thread that exited since it was listed is skipped.
 */
static int open_tasks(struct evlist *el, struct evsel *ev, int i, const pid_t *tids, int nr_tids)
{
	int t, fd, err, owner = -1, cpu = el->cpus[i];
	__u64 id;

	for (t = 0; t < nr_tids; t++) {
		fd = open_counting_lost(&ev->attr, tids[t], cpu);
		if (fd < 0 && errno == ESRCH)
			continue;
		if (fd < 0)
			return open_failed(cpu);
		if (owner < 0) {
			ev->rings[ev->nr].attr = &ev->attr;
			ev->rings[ev->nr].shared_first = ev->nr_fds;
			err = ring_setup(&ev->rings[ev->nr], fd, cpu, el->ring_bytes);
			owner = ev->nr++;
			if (err)
				return err;
			ev->ids[ev->nr_ids++] = ev->rings[owner].id;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ev->rings[owner].fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
			err = -errno;
			close(fd);
			return errmsg_set(err, "sharing the ring of cpu %d: %s", cpu, strerror(-err));
		}
		ev->fds[ev->nr_fds++] = fd;
		ev->ids[ev->nr_ids++] = id;
		ev->rings[owner].nr_shared++;
	}
	if (owner < 0)
		return errmsg_set(-ESRCH, "the threads to record have all exited");
	return 0;
}

/* A new event of @el, with @attr and @name and nothing open yet; NULL without memory. */
static struct evsel *evsel_new(struct evlist *el, const struct perf_event_attr *attr,
			       const char *name)
{
	struct evsel *ev;

	if (array_room(&el->ev, &el->cap_ev, el->nr_ev, sizeof(*el->ev)))
		return NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	el->ev[el->nr_ev++] = ev;
	ev->attr = *attr;
	ev->name = name;
	return ev;
}

int evlist_add_tasks(struct evlist *el, const struct perf_event_attr *attr, const char *name,
		     const pid_t *tids, int nr_tids)
{
	size_t per_cpu = tids ? nr_tids : 1;
	struct evsel *ev = evsel_new(el, attr, name);
	int i, fd, err;

	if (!ev)
		return -ENOMEM;
	ev->rings = calloc(el->nr_cpus, sizeof(*ev->rings));
	ev->ids = calloc(el->nr_cpus * per_cpu, sizeof(*ev->ids));
	ev->fds = calloc(el->nr_cpus * per_cpu, sizeof(*ev->fds));
	if (!ev->rings || !ev->ids || !ev->fds)
		return -ENOMEM;
	for (i = 0; i < el->nr_cpus; i++) {
		if (el->only && (el->cpus[i] >= el->nr_only || !el->only[el->cpus[i]]))
			continue;
		if (tids) {
			err = open_tasks(el, ev, i, tids, nr_tids);
			if (err)
				return err;
			continue;
		}
		fd = open_counting_lost(&ev->attr, -1, el->cpus[i]);
		if (fd < 0)
			return open_failed(el->cpus[i]);
		ev->rings[ev->nr].attr = &ev->attr;
		err = ring_setup(&ev->rings[ev->nr++], fd, el->cpus[i], el->ring_bytes);
		if (err)
			return err;
		ev->ids[ev->nr_ids++] = ev->rings[ev->nr - 1].id;
	}
	return 0;
}

int evlist_add_file_only(struct evlist *el, const struct perf_event_attr *attr,
			 const char *name, __u64 id)
{
	struct evsel *ev = evsel_new(el, attr, name);

	if (!ev)
		return -ENOMEM;
	ev->ids = calloc(1, sizeof(*ev->ids));
	if (!ev->ids)
		return -ENOMEM;
	ev->ids[0] = id;
	ev->nr_ids = 1;
	return 0;
}

void evlist_bpf_output_attr(struct perf_event_attr *attr, size_t ring_bytes, __u64 sample_type)
{
	software_attr(attr, PERF_COUNT_SW_BPF_OUTPUT, sample_type, ring_bytes / 4);
	attr->sample_period = 1;
}

int evlist_add(struct evlist *el, const struct perf_event_attr *attr, const char *name)
{
	return evlist_add_tasks(el, attr, name, NULL, 0);
}

int evlist_add_sideband(struct evlist *el)
{
	struct perf_event_attr attr;
	int err = probe_sideband(el, &attr);

	return err ? err : evlist_add(el, &attr, "bpf-events");
}

int evlist_enable(struct evlist *el, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int e, i;

	for (e = 0; e < el->nr_ev; e++) {
		for (i = 0; i < el->ev[e]->nr; i++)
			if (ioctl(el->ev[e]->rings[i].fd, req, 0))
				return -errno;
		for (i = 0; i < el->ev[e]->nr_fds; i++)
			if (ioctl(el->ev[e]->fds[i], req, 0))
				return -errno;
	}
	return 0;
}

int evlist_drain(struct evlist *el, ring_fn fn, void *ctx, void *scratch)
{
	struct evsel *ev;
	int e, i, err;

	for (e = 0; e < el->nr_ev; e++) {
		ev = el->ev[e];
		for (i = 0; i < ev->nr; i++) {
			err = ev->drain ? ring_drain(&ev->rings[i], ev->drain, ev->drain_ctx, scratch) :
					  ring_drain(&ev->rings[i], fn, ctx, scratch);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The records instance @fd could not write, as PERF_FORMAT_LOST counts them. */
static __u64 fd_lost(int fd, __u64 read_format)
{
	/* value, enabled, running, id, lost: the fields asked for, in this order */
	__u64 v[5] = {};
	int n = 1 + !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		!!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(read_format & PERF_FORMAT_ID);

	if (!(read_format & PERF_FORMAT_LOST) || (read_format & PERF_FORMAT_GROUP) ||
	    read(fd, v, (n + 1) * sizeof(__u64)) != (ssize_t)((n + 1) * sizeof(__u64)))
		return 0;
	return v[n];
}

__u64 evlist_lost(const struct evsel *ev, int i)
{
	const struct ring *r = &ev->rings[i];
	__u64 lost = fd_lost(r->fd, ev->attr.read_format);
	int j;

	for (j = 0; j < r->nr_shared; j++)
		lost += fd_lost(ev->fds[r->shared_first + j], ev->attr.read_format);
	return lost;
}

struct pd_event *evlist_pd_events(const struct evlist *el)
{
	struct pd_event *evs = calloc(el->nr_ev ? el->nr_ev : 1, sizeof(*evs));
	int e;

	for (e = 0; evs && e < el->nr_ev; e++)
		evs[e] = (struct pd_event){
			.attr = &el->ev[e]->attr, .name = el->ev[e]->name,
			.ids = el->ev[e]->ids, .nr_ids = el->ev[e]->nr_ids,
		};
	return evs;
}

void evlist_close(struct evlist *el)
{
	struct evsel *ev;
	int e, i;

	for (e = 0; e < el->nr_ev; e++) {
		ev = el->ev[e];
		for (i = 0; ev->rings && i < ev->nr; i++) {
			if (ev->rings[i].base)
				munmap(ev->rings[i].base, ev->rings[i].len + getpagesize());
			close(ev->rings[i].fd);
		}
		for (i = 0; i < ev->nr_fds; i++)
			close(ev->fds[i]);
		free(ev->fds);
		free(ev->rings);
		free(ev->ids);
		free(ev);
	}
	free(el->ev);
	free(el->cpus);
	memset(el, 0, sizeof(*el));
}
