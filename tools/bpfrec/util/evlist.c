// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band perf events of `bpfrec record`: one software dummy event
 * per online CPU asking for BPF, ksymbol and comm records, each with its
 * mmap ring buffer.
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
#include <bpf/libbpf.h>
#include "util/evlist.h"
#include "util/perf_data/perf_data.h"

static void attr_init(struct perf_event_attr *attr, unsigned int wakeup_bytes, bool obj_events)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->bpf_event = 1;
	attr->ksymbol = 1;
	/* so that script can name the processes that exec during the recording */
	attr->comm = 1;
	attr->comm_exec = 1;
	/* the clock of bpf_ktime_get_ns(): captured facts and records line up */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* wake up per chunk of data, not per record: a storm is thousands of them */
	attr->watermark = 1;
	attr->wakeup_watermark = wakeup_bytes;
	/* the series' map/link/BTF records; a stock kernel says EINVAL */
	pd_attr_set_bpf_obj_event(attr, obj_events);
}

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Probe on one CPU, where the error tells what the kernel lacks, then
 * open every CPU with the attr that worked.
 */
static int probe_attr(struct rings *rs, unsigned int wakeup_bytes, int cpu)
{
	int fd;

	attr_init(&rs->attr, wakeup_bytes, true);
	fd = perf_open(&rs->attr, cpu);
	if (fd >= 0) {
		rs->obj_events = true;
		return fd;
	}
	if (errno != EINVAL)
		goto fail;
	attr_init(&rs->attr, wakeup_bytes, false);
	fd = perf_open(&rs->attr, cpu);
	if (fd >= 0)
		return fd;
	if (errno == EINVAL) {
		fprintf(stderr, "bpfrec: kernel lacks bpf_event side-band records (Linux >= 5.1 needed)\n");
		return -EOPNOTSUPP;
	}
fail:
	if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "bpfrec: no permission to open system-wide perf events: run as root or grant CAP_PERFMON and CAP_BPF\n");
	else
		fprintf(stderr, "bpfrec: perf_event_open on cpu %d: %s\n", cpu, strerror(errno));
	return -errno;
}

static int ring_setup(struct ring *r, int fd, int cpu, size_t len)
{
	r->fd = fd;
	r->cpu = cpu;
	r->len = len;
	r->base = mmap(NULL, len + getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		fprintf(stderr, "bpfrec: mmap of %zu KiB ring on cpu %d: %s%s\n", len >> 10, cpu,
			strerror(errno), errno == EPERM ? " (raise perf_event_mlock_kb or lower -m)" : "");
		return -errno;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &r->id)) {
		fprintf(stderr, "bpfrec: reading perf event id: %s\n", strerror(errno));
		return -errno;
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

int rings_open(struct rings *rs, unsigned int mmap_pages)
{
	size_t len = (size_t)mmap_pages * getpagesize();
	int cpus = libbpf_num_possible_cpus();
	bool *online = NULL;
	int cpu, fd, err;

	memset(rs, 0, sizeof(*rs));
	if (cpus < 0)
		return cpus;
	online = calloc(cpus, sizeof(*online));
	rs->r = calloc(cpus, sizeof(*rs->r));
	if (!online || !rs->r) {
		err = -ENOMEM;
		goto out;
	}
	/* side-band records come from the CPU that emits them: all online ones */
	err = read_online_cpus(online, cpus);
	if (err) {
		fprintf(stderr, "bpfrec: reading online CPUs: %s\n", strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < cpus; cpu++) {
		if (!online[cpu])
			continue;
		if (rs->n) {
			fd = perf_open(&rs->attr, cpu);
			if (fd < 0) {
				err = -errno;
				fprintf(stderr, "bpfrec: perf_event_open on cpu %d: %s\n", cpu,
					strerror(errno));
				goto out;
			}
		} else {
			fd = probe_attr(rs, len / 4, cpu);
			if (fd < 0) {
				err = fd;
				goto out;
			}
		}
		err = ring_setup(&rs->r[rs->n++], fd, cpu, len);
		if (err)
			goto out;
	}
out:
	free(online);
	if (err)
		rings_close(rs);
	return err;
}

int rings_enable(struct rings *rs, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int i;

	for (i = 0; i < rs->n; i++)
		if (ioctl(rs->r[i].fd, req, 0))
			return -errno;
	return 0;
}

void rings_close(struct rings *rs)
{
	int i;

	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].base)
			munmap(rs->r[i].base, rs->r[i].len + getpagesize());
		close(rs->r[i].fd);
	}
	free(rs->r);
	rs->r = NULL;
	rs->n = 0;
}
