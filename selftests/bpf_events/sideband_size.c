// SPDX-License-Identifier: GPL-2.0
/*
 * Several side-band listeners on one CPU: every KSYMBOL and BPF_EVENT
 * record each of them gets has the size of its own content and ends with
 * its own sample_id (identifier, cpu, tid). The emitters share one record
 * between listeners; a header size grown by the sample_id of the others
 * leaves stale bytes where the reader takes the sample_id from.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "../kselftest_harness.h"
#include "bpf_events.h"

#define LISTENERS	2
#define RING_PAGES	16
/* sample_id with REC_SAMPLE_TYPE: pid/tid, time, cpu/res, identifier. */
#define SAMPLE_ID_SIZE	32

struct listener {
	int fd;
	uint64_t id;
	void *base;
	size_t nr_ksymbol, nr_bpf;
};

static int listener_open(struct listener *l, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = REC_SAMPLE_TYPE;
	attr.sample_id_all = 1;
	attr.ksymbol = 1;
	attr.bpf_event = 1;
	l->fd = sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	if (ioctl(l->fd, PERF_EVENT_IOC_ID, &l->id))
		return -errno;
	l->base = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		       MAP_SHARED, l->fd, 0);
	return l->base == MAP_FAILED ? -errno : 0;
}

/* The size a record of @type should have, from its body in @rec. */
static size_t expected_size(const unsigned char *rec, size_t size)
{
	const struct perf_event_header *hdr = (const void *)rec;
	/* KSYMBOL body: addr, len, ksym_type, flags, then the name. */
	size_t name_off = sizeof(*hdr) + 8 + 4 + 2 + 2;

	if (hdr->type == PERF_RECORD_BPF_EVENT)
		return sizeof(*hdr) + 2 + 2 + 4 + BPF_TAG_SIZE + SAMPLE_ID_SIZE;
	if (size <= name_off)
		return 0;
	return name_off + ((strnlen((const char *)rec + name_off,
				    size - name_off) + 1 + 7) & ~7UL) +
	       SAMPLE_ID_SIZE;
}

static void check_ring(struct __test_metadata *_metadata, struct listener *l,
		       int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc = l->base;
	unsigned char *data = (unsigned char *)l->base + page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t mask = RING_PAGES * page - 1;
	uint64_t tail = pc->data_tail;
	unsigned char rec[512];

	while (tail < head) {
		struct perf_event_header *hdr = (void *)rec;
		uint64_t identifier;
		uint32_t rec_cpu;
		size_t k;

		for (k = 0; k < sizeof(*hdr); k++)
			rec[k] = data[(tail + k) & mask];
		ASSERT_LE(sizeof(*hdr), hdr->size);
		ASSERT_GE(sizeof(rec), hdr->size);
		for (k = 0; k < hdr->size; k++)
			rec[k] = data[(tail + k) & mask];
		tail += hdr->size;
		if (hdr->type != PERF_RECORD_KSYMBOL &&
		    hdr->type != PERF_RECORD_BPF_EVENT)
			continue;
		if (hdr->type == PERF_RECORD_KSYMBOL)
			l->nr_ksymbol++;
		else
			l->nr_bpf++;
		memcpy(&identifier, rec + hdr->size - 8, sizeof(identifier));
		memcpy(&rec_cpu, rec + hdr->size - 16, sizeof(rec_cpu));
		EXPECT_EQ(expected_size(rec, hdr->size), hdr->size)
			TH_LOG("listener %llu: record type %u",
			       (unsigned long long)l->id, hdr->type);
		EXPECT_EQ(l->id, identifier)
			TH_LOG("record type %u of %u bytes", hdr->type, hdr->size);
		EXPECT_EQ(cpu, rec_cpu);
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

TEST(two_listeners_one_cpu)
{
	struct listener l[LISTENERS];
	struct bpf_prog_info info;
	cpu_set_t set;
	int cpu = 0, fd, i, err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	memset(l, 0, sizeof(l));
	for (i = 0; i < LISTENERS; i++) {
		err = listener_open(&l[i], cpu);
		if (err == -EACCES || err == -EPERM)
			SKIP(return, "system-wide perf events need CAP_PERFMON");
		ASSERT_EQ(0, err) TH_LOG("listener %d: %s", i, strerror(-err));
	}

	/* A JITed program: KSYMBOL and BPF_EVENT at load and unload. */
	fd = prog_load(BPF_PROG_TYPE_SOCKET_FILTER);
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(fd, &info, sizeof(info)));
	close(fd);
	/* The unload may be deferred to a workqueue on another CPU. */
	usleep(200000);

	for (i = 0; i < LISTENERS; i++) {
		check_ring(_metadata, &l[i], cpu);
		EXPECT_LE(1, l[i].nr_ksymbol);
		EXPECT_LE(1, l[i].nr_bpf);
	}
}

TEST_HARNESS_MAIN
