// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the record path: reading a ring buffer (a record split at
 * the end of the ring, the tail given back, a corrupt record), facts the
 * capture sends merged with the records that announce them in either
 * order, records held while their task is still in bpf(), records the
 * capture missed resolved two drains later,
 * oversized side-band records of stock kernels repaired, the
 * workload's objects still alive after it exited, tasks named from /proc,
 * the synthesis of the BPF objects that exist when a recording starts,
 * the start-up window (an object the capture saw before the events were
 * enabled), and an event list of the side-band event and a sampling one
 * written into one file (the last three need root: skipped without).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <openssl/evp.h>
#include "tests/unit/unit.h"
#include "util/capture.h"
#include "util/evlist.h"
#include "util/facts.h"
#include "util/linger.h"
#include "util/recording.h"
#include "util/ring.h"
#include "util/sink.h"
#include "util/synthesize.h"
#include "util/tenant.h"
#include "util/perf_data/oversized.h"
#include "bpf_skel/capture.h"

/* ---- ring reading ------------------------------------------------------ */

#define RING_LEN	4096		/* data bytes: a power of two */

struct seen {
	int n;
	__u32 sizes[16];
	__u8 fill[16];			/* the byte each record is filled with */
	bool intact;			/* every byte of every record as written */
	int fail_at;			/* return an error for this record */
	int cpu;			/* of the ring the last record came from */
};

static int on_record(void *ctx, const struct ring *r, const struct perf_event_header *hdr)
{
	struct seen *s = ctx;
	const __u8 *p = (const void *)hdr;
	__u16 i;

	s->cpu = r->cpu;
	if (s->n < 16) {
		s->sizes[s->n] = hdr->size;
		s->fill[s->n] = p[sizeof(*hdr)];
	}
	for (i = sizeof(*hdr); i < hdr->size; i++)
		s->intact &= p[i] == p[sizeof(*hdr)];
	return ++s->n == s->fail_at ? -EIO : 0;
}

/* A fake ring: control page, then RING_LEN bytes, written as the kernel does. */
struct fake_ring {
	struct ring r;
	__u8 *mem;
	__u64 head;
};

static void fake_init(struct fake_ring *f, __u64 tail)
{
	struct perf_event_mmap_page *meta;

	f->mem = calloc(1, getpagesize() + RING_LEN);
	f->r = (struct ring){ .fd = -1, .cpu = 1, .base = f->mem, .len = RING_LEN };
	meta = (void *)f->mem;
	meta->data_tail = tail;
	f->head = tail;
}

/* A record of @size bytes, filled with @fill, at the head, wrapping as it must. */
static void fake_put(struct fake_ring *f, __u16 size, __u8 fill)
{
	__u8 rec[512];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
	__u8 *data = f->mem + getpagesize();
	__u16 i;

	memset(rec, fill, size);
	memcpy(rec, &h, sizeof(h));
	for (i = 0; i < size; i++)
		data[(f->head + i) & (RING_LEN - 1)] = rec[i];
	f->head += size;
	((struct perf_event_mmap_page *)f->mem)->data_head = f->head;
}

static __u64 fake_tail(const struct fake_ring *f)
{
	return ((const struct perf_event_mmap_page *)f->mem)->data_tail;
}

static void test_ring(void)
{
	static __u8 scratch[RING_SCRATCH_SIZE];
	struct seen s = { .intact = true };
	struct fake_ring f;

	/* 4 records from 40 bytes before the end: the second one is split */
	fake_init(&f, 3 * RING_LEN - 40);
	fake_put(&f, 32, 0xa1);
	fake_put(&f, 64, 0xb2);
	fake_put(&f, 128, 0xc3);
	fake_put(&f, 16, 0xd4);
	CHECK(ring_drain(&f.r, on_record, &s, scratch) == 0, "ring: drained");
	CHECK(s.n == 4 && s.sizes[0] == 32 && s.sizes[1] == 64 && s.sizes[2] == 128 &&
	      s.sizes[3] == 16 && s.fill[1] == 0xb2 && s.fill[2] == 0xc3,
	      "ring: the 4 records in order, sizes 32 64 128 16 (%d)", s.n);
	CHECK(s.intact, "ring: the record split at the end of the ring comes whole");
	CHECK(s.cpu == 1, "ring: records come with their ring (cpu %d)", s.cpu);
	CHECK(fake_tail(&f) == f.head && f.head == 3 * RING_LEN + 200,
	      "ring: data_tail moved to data_head (%llu)", (unsigned long long)fake_tail(&f));

	/* nothing new: nothing delivered, the tail stays */
	s.n = 0;
	CHECK(ring_drain(&f.r, on_record, &s, scratch) == 0 && s.n == 0 &&
	      fake_tail(&f) == f.head, "ring: an empty ring delivers nothing");

	/* an error of the consumer stops the drain after that record */
	fake_put(&f, 24, 0x11);
	fake_put(&f, 24, 0x22);
	fake_put(&f, 24, 0x33);
	s = (struct seen){ .intact = true, .fail_at = 2 };
	CHECK(ring_drain(&f.r, on_record, &s, scratch) == -EIO && s.n == 2 &&
	      fake_tail(&f) == f.head - 24,
	      "ring: the consumer's error stops the drain, its record consumed");
	s = (struct seen){ .intact = true };
	CHECK(ring_drain(&f.r, on_record, &s, scratch) == 0 && s.n == 1 && s.fill[0] == 0x33,
	      "ring: the next drain goes on with the record after");

	/* a record of size 4 cannot be: the ring is given back whole */
	fake_put(&f, 8, 0x44);
	*(__u16 *)(f.mem + getpagesize() + ((f.head - 8) & (RING_LEN - 1)) + 6) = 4;
	fake_put(&f, 16, 0x55);
	s = (struct seen){ .intact = true };
	CHECK(ring_drain(&f.r, on_record, &s, scratch) == -EIO && s.n == 0 &&
	      fake_tail(&f) == f.head, "ring: a corrupt record size drops the rest, -EIO");
	free(f.mem);
}

/* ---- facts of the capture merged with the records ---------------------- */

/* Ids no kernel has: the syscalls find nothing, what counts is the capture. */
#define PROG_ID		4000000001U
#define MAP_ID		4000000002U
#define LATE_ID		4000000003U
#define GONE_ID		4000000004U
#define LINES_ID	4000000005U
#define TID		4000000
#define ID		777

static struct perf_event_attr ring_attr;
/* the ring the records of the sink tests come from */
static const struct ring sink_ring = { .attr = &ring_attr, .fd = -1 };

static struct pd_writer *open_writer(const char *file)
{
	static const __u64 ids[1] = { ID };

	return one_event_writer(file, &ring_attr, ids, 1);
}

/* A BPF_EVENT record's body without a description, as kernels before series v2 write it. */
struct bpf_body {
	__u16 type;
	__u16 flags;
	__u32 id;
	__u8 tag[BPF_TAG_SIZE];
};

/* A BPF_EVENT record of task @tid as a ring holds it: header, body, sample_id trailer. */
static int ring_bpf_event_of(struct sink *k, __u16 type, __u16 flags, __u32 id, __u64 time,
			     __u32 tid)
{
	struct {
		struct perf_event_header h;
		struct bpf_body body;
		__u32 pid, tid;
		__u64 time, cpu, identifier;
	} rec = {
		.h = { .type = PERF_RECORD_BPF_EVENT, .size = sizeof(rec) },
		.body = { .type = type, .flags = flags, .id = id },
		.pid = TID, .tid = tid, .time = time, .identifier = ID,
	};

	return sink_record(k, &sink_ring, &rec.h);
}

static int ring_bpf_event(struct sink *k, __u16 type, __u16 flags, __u32 id, __u64 time)
{
	return ring_bpf_event_of(k, type, flags, id, time, TID);
}

static struct cap_prog captured_prog(__u32 id, const char *name, __u32 nr_lines)
{
	struct cap_prog c = {
		.hdr = { .kind = CAP_PROG_LOAD, .id = id, .time = 100, .pid = TID,
			 .tid = TID, .uid = 1000, .comm = "loader" },
		.type = BPF_PROG_TYPE_XDP, .tag = { 0xab, 0xcd }, .owner_uid = 1000,
		.jited_len = 64, .nr_jited_ksyms = 1, .nr_ksyms = 1,
		.ksym_addrs = { 0xffffffffc0100000ULL }, .ksym_lens = { 64 },
		.nr_line_info = nr_lines,
	};

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

static void test_merge(void)
{
	struct sink k = {};
	struct capture running = {};
	struct cap_prog cp = captured_prog(PROG_ID, "xdp_first", 0);
	struct cap_prog late = captured_prog(LATE_ID, "xdp_late", 0);
	struct cap_prog gone = captured_prog(GONE_ID, "many_subprogs", 0);
	struct cap_prog lines = captured_prog(LINES_ID, "with_lines", 3);
	/* r0 = 0; exit */
	static const __u8 insns[16] = { 0xb7, [8] = 0x95 };
	static struct cap_prog_insns piece;
	__u8 sha[32];
	struct cap_map cm = {
		.hdr = { .kind = CAP_MAP_CREATE, .id = MAP_ID, .pid = TID, .tid = TID,
			 .comm = "loader" },
		.type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8, .max_entries = 16,
		.name = "counts",
	};
	struct facts_stats st;
	const struct pd_prog *p;
	const struct pd_map *m;
	struct pd_reader *r;
	struct pd_record rec;
	char err[256];
	int n = 0;

	/* their instructions follow, in pieces */
	cp.xlated_len = late.xlated_len = sizeof(insns);
	k.w = open_writer(path("merge.data"));
	k.facts = facts_new();
	k.cap = &running;
	if (!CHECK(k.w && k.facts, "merge: writer and facts"))
		return;
	/* the capture first, then the record: the usual order */
	CHECK(sink_capture(&k, &cp, sizeof(cp)) == 0 &&
	      ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, PROG_ID, 200) == 0,
	      "merge: captured program, then its PROG_LOAD");
	CHECK(sink_capture(&k, &cm, sizeof(cm)) == 0 &&
	      ring_bpf_event(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_HASH, MAP_ID, 210) == 0,
	      "merge: captured map, then its MAP_CREATE");
	/* the record first (the fact comes with the bpf() exit) */
	CHECK(ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, LATE_ID, 220) == 0 &&
	      k.nr_pending == 1, "merge: a PROG_LOAD before its fact waits (%zu)",
	      k.nr_pending);
	CHECK(sink_capture(&k, &late, sizeof(late)) == 0, "merge: the late fact comes");
	/* line info (any program built with -g) needs no syscall: its count is captured */
	CHECK(sink_capture(&k, &lines, sizeof(lines)) == 0 && k.nr_ask == 0,
	      "merge: a program with line info is not asked for by id (%zu)", k.nr_ask);
	/* more sub-programs than the capture holds: completed by syscall, unless unloaded */
	gone.nr_jited_ksyms = CAP_MAX_FUNCS + 1;
	CHECK(sink_capture(&k, &gone, sizeof(gone)) == 0 && k.nr_ask == 1,
	      "merge: a program with more sub-programs than captured is asked for (%zu)",
	      k.nr_ask);
	CHECK(ring_bpf_event(&k, PERF_BPF_EVENT_PROG_UNLOAD, 0, GONE_ID, 230) == 0 &&
	      k.nr_gone == 1, "merge: its PROG_UNLOAD in the same drain is noted");
	CHECK(sink_ask(&k) == 0 && !k.nr_ask && !k.nr_gone, "merge: the drain's asks done");
	/* a record shorter than its body and trailer is written, not merged */
	CHECK(sink_capture(&k, &cp, sizeof(struct cap_hdr)) == 0,
	      "merge: a fact cut short is ignored");
	/* a piece of instructions comes as long as its instructions, not its struct */
	piece.kind = CAP_PROG_INSNS;
	piece.id = PROG_ID;
	piece.total = piece.len = sizeof(insns);
	memcpy(piece.data, insns, sizeof(insns));
	CHECK(sink_capture(&k, &piece, offsetof(struct cap_prog_insns, data) + sizeof(insns)) == 0,
	      "merge: a piece of 2 instructions in 40 bytes");
	piece.id = LATE_ID;
	CHECK(sink_capture(&k, &piece, offsetof(struct cap_prog_insns, data) + 8) == 0,
	      "merge: a piece shorter than the instructions it says it holds is ignored");
	CHECK(k.records == 4, "merge: 4 records written (%llu)", (unsigned long long)k.records);
	sink_finish(&k);
	facts_finish(k.facts, &st);
	CHECK(st.objects == 5 && st.progs == 4 && st.unresolved == 0,
	      "merge: 5 objects, 4 programs, none unresolved (%zu, %zu, %zu)",
	      st.objects, st.progs, st.unresolved);
	CHECK(facts_store(k.facts, k.w) == 0 && pd_writer_close(k.w) == 0, "merge: stored");
	names_free(&k.names);
	facts_free(k.facts);

	r = pd_reader_open(path("merge.data"), err, sizeof(err));
	if (!CHECK(r, "merge: merge.data opens %s", r ? "" : err))
		return;
	while (pd_reader_next(r, &rec) > 0)
		n += rec.type == PERF_RECORD_BPF_EVENT && rec.sample.tid == TID;
	CHECK(n == 4, "merge: the 4 BPF records in the file, as the ring had them (%d)", n);
	p = pd_reader_prog(r, PROG_ID);
	EVP_Digest(insns, sizeof(insns), sha, NULL, EVP_sha256(), NULL);
	CHECK(p && (p->flags & PD_F_SHA256) && !memcmp(p->sha256, sha, sizeof(sha)),
	      "merge: the SHA-256 of the instructions of a short piece");
	CHECK(p && (p->flags & ~PD_F_SHA256) == (PD_F_CAPTURED | PD_F_RECORDED) &&
	      !strcmp(p->name, "xdp_first") &&
	      p->type == BPF_PROG_TYPE_XDP && p->tag[0] == 0xab && p->origin.pid == TID &&
	      !strcmp(p->origin.comm, "loader") && p->origin.uid == 1000 &&
	      p->nr_ksyms == 1 && p->ksym_addrs[0] == 0xffffffffc0100000ULL,
	      "merge: program facts from the capture, with its creator");
	p = pd_reader_prog(r, LATE_ID);
	CHECK(p && p->flags == (PD_F_CAPTURED | PD_F_RECORDED) && !strcmp(p->name, "xdp_late"),
	      "merge: the fact after its record completes it");
	p = pd_reader_prog(r, GONE_ID);
	CHECK(p && p->flags == PD_F_CAPTURED && !strcmp(p->name, "many_subprogs"),
	      "merge: the unloaded program keeps the capture's facts");
	p = pd_reader_prog(r, LINES_ID);
	CHECK(p && p->flags == PD_F_CAPTURED && p->nr_lines == 3 && !p->line_info,
	      "merge: the program with line info has the capture's facts, 3 lines counted");
	m = pd_reader_map(r, MAP_ID);
	CHECK(m && m->flags == (PD_F_CAPTURED | PD_F_RECORDED) && !strcmp(m->name, "counts") &&
	      m->key_size == 4 && m->max_entries == 16 && !strcmp(m->origin.comm, "loader"),
	      "merge: map facts from the capture");
	pd_reader_close(r);
}

#define DURABLE_ID	4000001000U
#define NR_DURABLE	300

/* PROG_LOAD records of the loader in @file, and how many have their captured facts. */
static void count_named(const char *file, int *loads, int *named, bool *finalised)
{
	const struct pd_prog *p;
	struct pd_reader *r;
	struct pd_record rec;
	char err[256], name[16];

	*loads = *named = 0;
	r = pd_reader_open(file, err, sizeof(err));
	if (!CHECK(r, "durable: %s opens %s", file, r ? "" : err))
		return;
	*finalised = pd_reader_info(r)->finalised;
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type != PERF_RECORD_BPF_EVENT || rec.bpf.type != PERF_BPF_EVENT_PROG_LOAD ||
		    rec.sample.tid != TID)
			continue;
		(*loads)++;
		p = pd_reader_prog(r, rec.bpf.id);
		snprintf(name, sizeof(name), "storm_%u", rec.bpf.id - DURABLE_ID);
		*named += p && !strcmp(p->name, name) && p->type == BPF_PROG_TYPE_XDP &&
			  p->tag[0] == 0xab && (p->flags & PD_F_CAPTURED);
	}
	pd_reader_close(r);
}

/*
 * The facts go into the data as they are learnt, and out of memory: a
 * recorder killed before it finalises the file (kill -9, a full disk)
 * leaves every PROG_LOAD of the file with its facts; a record whose
 * facts have not come yet is held back until they do.
 */
static void test_durable(void)
{
	struct capture running = {};
	struct sink k = { .cap = &running };
	struct facts_stats st;
	struct cap_prog c;
	int loads, named;
	bool finalised = true;
	__u16 i;

	k.w = open_writer(path("durable.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "durable: writer and facts"))
		return;
	facts_set_writer(k.facts, k.w);
	for (i = 0; i < NR_DURABLE; i++) {
		c = captured_prog(DURABLE_ID + i, "", 0);
		snprintf(c.name, sizeof(c.name), "storm_%u", i);
		sink_capture(&k, &c, sizeof(c));
		ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, DURABLE_ID + i, 1000 + i);
	}
	/* its fact comes with the next drain */
	ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, DURABLE_ID + NR_DURABLE, 2000);
	CHECK(!sink_ask(&k) && !pd_write_finished_round(k.w), "durable: a drain");
	CHECK(facts_live(k.facts) == 1,
	      "durable: the facts written are released, the held record's object waits (%zu)",
	      facts_live(k.facts));
	/* the file as a recorder killed now leaves it */
	count_named(path("durable.data"), &loads, &named, &finalised);
	CHECK(!finalised && loads == NR_DURABLE && named == NR_DURABLE,
	      "durable: not finalised, every PROG_LOAD in it has its facts (%d of %d)", named,
	      loads);

	c = captured_prog(DURABLE_ID + NR_DURABLE, "", 0);
	snprintf(c.name, sizeof(c.name), "storm_%d", NR_DURABLE);
	sink_capture(&k, &c, sizeof(c));
	CHECK(!sink_ask(&k) && !pd_write_finished_round(k.w) && facts_live(k.facts) == 0,
	      "durable: the next drain writes the held record after its facts (%zu held)",
	      facts_live(k.facts));
	count_named(path("durable.data"), &loads, &named, &finalised);
	CHECK(loads == NR_DURABLE + 1 && named == loads,
	      "durable: the held PROG_LOAD is in the file with its facts (%d of %d)", named, loads);

	CHECK(!sink_finish(&k), "durable: finished");
	facts_finish(k.facts, &st);
	CHECK(st.progs == NR_DURABLE + 1 && !st.unresolved,
	      "durable: %d programs counted, none unresolved (%zu, %zu)", NR_DURABLE + 1, st.progs,
	      st.unresolved);
	CHECK(!facts_store(k.facts, k.w) && !pd_writer_close(k.w), "durable: finalised");
	facts_free(k.facts);
	names_free(&k.names);
	/* the features, rebuilt from the facts written into the data */
	count_named(path("durable.data"), &loads, &named, &finalised);
	CHECK(finalised && loads == NR_DURABLE + 1 && named == loads,
	      "durable: the finalised file has every program's facts (%d of %d)", named, loads);
}

#define CREATOR_ID	4000002000U
#define OPENER		(TID + 1)

static struct cap_map captured_map(__u32 id, __u32 tid, const char *comm)
{
	struct cap_map c = {
		.hdr = { .kind = CAP_MAP_CREATE, .id = id, .pid = tid, .tid = tid },
		.type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1,
		.name = "shared",
	};

	snprintf(c.hdr.comm, sizeof(c.hdr.comm), "%s", comm);
	return c;
}

/*
 * bpf_map_new_fd() runs for every fd of a map: a task that opens a new
 * map by id before its creator has its fd is captured first.  On a kernel
 * with the series, the MAP_CREATE record comes from the creator: only the
 * capture of that task names it, in whatever order they come.
 */
static void test_creator(void)
{
	struct capture running = {};
	struct sink k = { .cap = &running };
	struct cap_map opener, creator;
	const struct pd_map *m;
	struct pd_reader *r;
	char err[256];
	__u32 i;

	k.w = open_writer(path("creator.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "creator: writer and facts"))
		return;
	facts_set_writer(k.facts, k.w);
	/* 0: the opener's capture, the record, the creator's capture */
	opener = captured_map(CREATOR_ID, OPENER, "opener");
	creator = captured_map(CREATOR_ID, TID, "creator");
	sink_capture(&k, &opener, sizeof(opener));
	ring_bpf_event(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, CREATOR_ID, 100);
	sink_capture(&k, &creator, sizeof(creator));
	/* 1: the creator's capture, the opener's, the record */
	opener.hdr.id = creator.hdr.id = CREATOR_ID + 1;
	sink_capture(&k, &creator, sizeof(creator));
	sink_capture(&k, &opener, sizeof(opener));
	ring_bpf_event(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, CREATOR_ID + 1, 110);
	/* 2: the opener's capture and the record, then a drain writes it: fixed later */
	opener.hdr.id = creator.hdr.id = CREATOR_ID + 2;
	sink_capture(&k, &opener, sizeof(opener));
	ring_bpf_event(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, CREATOR_ID + 2, 120);
	CHECK(!sink_ask(&k) && facts_live(k.facts) == 0, "creator: the maps are written (%zu)",
	      facts_live(k.facts));
	sink_capture(&k, &creator, sizeof(creator));
	CHECK(!sink_ask(&k) && !sink_finish(&k) && !facts_store(k.facts, k.w) &&
	      !pd_writer_close(k.w), "creator: written");
	facts_free(k.facts);
	names_free(&k.names);

	r = pd_reader_open(path("creator.data"), err, sizeof(err));
	if (!CHECK(r, "creator: creator.data opens %s", r ? "" : err))
		return;
	for (i = 0; i < 3; i++) {
		m = pd_reader_map(r, CREATOR_ID + i);
		CHECK(m && m->origin.tid == TID && !strcmp(m->origin.comm, "creator") &&
		      !strcmp(m->name, "shared") && m->max_entries == 1,
		      "creator: map %u was created by 'creator' (tid %u '%s')", i,
		      m ? m->origin.tid : 0, m ? m->origin.comm : "");
	}
	pd_reader_close(r);
}

/* A socket filter "r0 = 0; exit" named @name, and its info; -1 on failure. */
static int load_prog(const char *name, struct bpf_prog_info *info)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	__u32 len = sizeof(*info);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, 2, NULL);

	memset(info, 0, sizeof(*info));
	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, info, &len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A stock kernel with two listeners on a CPU: the first one's BPF_EVENT
 * sized for both trailers, its own right after the body, stale bytes
 * after it.  Written at its true size, and read back so by us.
 */
static void test_oversized(void)
{
	struct {
		struct perf_event_header h;
		struct bpf_body body;
		__u32 pid, tid;
		__u64 time, cpu, identifier;
		__u8 stale[32];
	} rec = {
		.h = { .type = PERF_RECORD_BPF_EVENT, .size = sizeof(rec) },
		.body = { .type = PERF_BPF_EVENT_PROG_LOAD, .id = PROG_ID },
		.pid = TID, .tid = TID + 1, .time = 4242, .cpu = 1, .identifier = ID,
	};
	struct sink k = {};
	struct pd_reader *r;
	struct pd_record pr;
	int n = 0, right = 0;
	char err[256];

	memset(rec.stale, 0xee, sizeof(rec.stale));
	k.w = open_writer(path("oversized.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "oversized: writer and facts"))
		return;
	CHECK(!sink_record(&k, &sink_ring, &rec.h) && k.repaired == 1 && k.records == 1,
	      "oversized: the record repaired, counted once");
	rec.h.size -= sizeof(rec.stale);
	CHECK(!sink_record(&k, &sink_ring, &rec.h) && k.repaired == 1,
	      "oversized: a record of the true size left alone");
	sink_finish(&k);
	pd_writer_close(k.w);
	names_free(&k.names);
	facts_free(k.facts);
	r = pd_reader_open(path("oversized.data"), err, sizeof(err));
	if (!CHECK(r, "oversized: oversized.data opens %s", r ? "" : err))
		return;
	while (pd_reader_next(r, &pr) > 0) {
		if (pr.type != PERF_RECORD_BPF_EVENT)
			continue;
		n++;
		right += pr.size == sizeof(rec) - sizeof(rec.stale) && pr.event == 0 &&
			 pr.sample.tid == TID + 1 && pr.sample.time == 4242 && pr.sample.cpu == 1 &&
			 pr.sample.id == ID && pr.bpf.id == PROG_ID;
	}
	CHECK(n == 2 && right == 2 && pd_reader_repaired(r) == 0,
	      "oversized: both in the file at 56 bytes, tid, time, cpu and id right (%d of %d)",
	      right, n);
	pd_reader_close(r);

	/* the same record in a file written as is: the reader repairs it */
	k = (struct sink){ .w = open_writer(path("oversized-raw.data")) };
	rec.h.size += sizeof(rec.stale);
	CHECK(k.w && !pd_write_raw(k.w, &rec.h) && !pd_writer_close(k.w),
	      "oversized: written unrepaired, as perf writes it");
	r = pd_reader_open(path("oversized-raw.data"), err, sizeof(err));
	if (!CHECK(r, "oversized: oversized-raw.data opens %s", r ? "" : err))
		return;
	n = right = 0;
	while (pd_reader_next(r, &pr) > 0) {
		if (pr.type != PERF_RECORD_BPF_EVENT)
			continue;
		n++;
		right += pr.size == sizeof(rec) - sizeof(rec.stale) &&
			 pr.sample.tid == TID + 1 && pr.sample.time == 4242 && pr.sample.id == ID;
	}
	CHECK(n == 1 && right == 1 && pd_reader_repaired(r) == 1,
	      "oversized: the reader gives it at its true size, trailer right, 1 repair (%d of %d)",
	      right, n);
	pd_reader_close(r);
}

/*
 * The workload's objects alive after it exited: created by its pid, released
 * by anyone (a kworker, a child), by kind and id.
 */
static void test_linger(void)
{
	struct linger l = { .pid = TID };
	struct sink k = { .linger = &l };
	size_t after_creations;

	k.w = open_writer(path("linger.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "linger: writer and facts"))
		return;
	ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, PROG_ID, 100);
	ring_bpf_event(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, PROG_ID, 101);
	/* another process's program is none of the workload's */
	linger_record(&l, PERF_BPF_EVENT_PROG_LOAD, MAP_ID, TID + 1);
	after_creations = l.nr_alive;
	linger_record(&l, PERF_BPF_EVENT_PROG_UNLOAD, PROG_ID, 0);
	linger_record(&l, PERF_BPF_EVENT_PROG_UNLOAD, PROG_ID, 0);
	linger_record(&l, PERF_BPF_EVENT_PROG_UNLOAD, MAP_ID, 0);
	CHECK(after_creations == 2 && l.nr_alive == 1,
	      "linger: a program and a map of the same id alive, one left after the program's unload (%zu, %zu)",
	      after_creations, l.nr_alive);
	ring_bpf_event(&k, PERF_BPF_EVENT_MAP_FREE, 0, PROG_ID, 200);
	CHECK(l.nr_alive == 0, "linger: none alive once the map is freed by a kworker (%zu)",
	      l.nr_alive);
	sink_finish(&k);
	pd_writer_close(k.w);
	names_free(&k.names);
	facts_free(k.facts);
	linger_free(&l);
}

/*
 * A program the capture missed: asked by id two drains after its record
 * (the second because its task may have left bpf() just after the
 * capture's drain), while it still exists, not at the end; pending
 * records never span more than three drains.
 */
static void test_missed(void)
{
	struct bpf_prog_info info;
	__u32 i;
	struct capture running = {};
	struct sink k = { .cap = &running };
	struct pd_prog *p;
	size_t first, second, third;
	int prog;

	if (geteuid()) {
		skip("a program the capture missed", "needs root to load BPF");
		return;
	}
	prog = load_prog("unit_missed", &info);
	if (!CHECK(prog >= 0, "missed: a program loaded"))
		return;
	k.w = open_writer(path("missed.data"));
	k.facts = facts_new();
	CHECK(k.w && k.facts && !ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, info.id, 100) &&
	      !sink_ask(&k) && k.nr_pending == 1,
	      "missed: its record waits one drain for the capture's fact");
	CHECK(!sink_ask(&k) && k.nr_pending == 1,
	      "missed: and one more, its task being out of bpf()");
	p = facts_prog(k.facts, info.id, NULL);
	CHECK(p && !(p->flags & PD_F_SYSCALL), "missed: not asked for yet");
	CHECK(!sink_ask(&k) && k.nr_pending == 0, "missed: the next drain leaves nothing pending");
	p = facts_prog(k.facts, info.id, NULL);
	CHECK(p && p->flags == (PD_F_SYSCALL | PD_F_RECORDED) && !strcmp(p->name, "unit_missed"),
	      "missed: resolved by id at that drain (%#x)", p ? p->flags : 0);
	close(prog);

	/* 100 records a drain: never more than the last three drains' pending */
	for (i = 0; i < 100; i++)
		ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, GONE_ID + 1 + i, 300);
	sink_ask(&k);
	first = k.nr_pending;
	for (i = 0; i < 100; i++)
		ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, GONE_ID + 101 + i, 400);
	sink_ask(&k);
	second = k.nr_pending;
	sink_ask(&k);
	third = k.nr_pending;
	sink_ask(&k);
	CHECK(first == 100 && second == 200 && third == 100 && k.nr_pending == 0,
	      "missed: pending bounded by drains (%zu, %zu, %zu, %zu)", first, second, third,
	      k.nr_pending);
	sink_finish(&k);
	pd_writer_close(k.w);
	names_free(&k.names);
	facts_free(k.facts);
}

#define IN_CALL_ID	4000000006U
#define LEFT_ID		4000000007U

/*
 * The syscall path sends a program's facts when its task leaves bpf().
 * A task preempted between the kernel's PROG_LOAD and that exit for
 * longer than a drain (seen under TCG on a loaded host) must leave its
 * record held, not resolved by id and counted as missed: held while the
 * task is in the call (its entry in the capture's map of calls), and one
 * drain more, with no round finished meanwhile.
 */
static void test_in_call(void)
{
	struct capture running = { .events_fd = -1, .state_fd = -1, .tasks_fd = -1 };
	struct sink k = { .cap = &running };
	struct cap_call call = { .cmd = BPF_PROG_LOAD };
	struct cap_prog facts = captured_prog(IN_CALL_ID, "xdp_in_call", 0);
	__u32 tid = TID;
	struct pd_prog *p;
	int i;

	if (geteuid()) {
		skip("a program whose task is still in bpf()", "needs root for the map of calls");
		return;
	}
	running.kind[0].on = true;
	running.kind[0].path = CAPTURE_SYSCALL;
	running.calls_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "unit_calls", sizeof(tid),
					  sizeof(call), 16, NULL);
	k.w = open_writer(path("in_call.data"));
	k.facts = facts_new();
	if (!CHECK(running.calls_fd >= 0 && k.w && k.facts &&
		   !bpf_map_update_elem(running.calls_fd, &tid, &call, BPF_ANY),
		   "in call: task %u in bpf(BPF_PROG_LOAD)", tid))
		return;
	CHECK(!ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, IN_CALL_ID, 100) && !sink_ask(&k) &&
	      k.nr_pending == 1 && !sink_holds_late(&k),
	      "in call: its PROG_LOAD waits a drain, as any");
	for (i = 0; i < 5; i++)
		sink_ask(&k);
	p = facts_prog(k.facts, IN_CALL_ID, NULL);
	CHECK(k.nr_pending == 1 && sink_holds_late(&k) && running.kind[0].missed == 0 &&
	      p && !(p->flags & (PD_F_SYSCALL | PD_F_UNRESOLVED)),
	      "in call: held 5 drains more while its task is in bpf(), not asked by id, not missed (%zu held, %llu missed)",
	      k.nr_pending, (unsigned long long)running.kind[0].missed);
	/* the exit sent the facts, then ended the call, after the capture's drain */
	bpf_map_delete_elem(running.calls_fd, &tid);
	CHECK(!sink_ask(&k) && k.nr_pending == 1 && running.kind[0].missed == 0,
	      "in call: the drain after the call ended waits once more");
	CHECK(!sink_capture(&k, &facts, sizeof(facts)) && !sink_ask(&k) && k.nr_pending == 0 &&
	      !sink_holds_late(&k) && running.kind[0].missed == 0,
	      "in call: then written, with the facts of the exit, none missed");
	p = facts_prog(k.facts, IN_CALL_ID, NULL);
	CHECK(p && p->flags == (PD_F_CAPTURED | PD_F_RECORDED) && !strcmp(p->name, "xdp_in_call"),
	      "in call: the program has the captured facts (%#x)", p ? p->flags : 0);

	/* a task out of bpf() whose facts never come: missed after that one drain more */
	ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, LEFT_ID, 200);
	sink_ask(&k);
	sink_ask(&k);
	CHECK(k.nr_pending == 1 && running.kind[0].missed == 0 && sink_holds_late(&k),
	      "in call: a record of a task out of bpf() waits one drain more");
	sink_ask(&k);
	CHECK(k.nr_pending == 0 && running.kind[0].missed == 1,
	      "in call: then it is missed (%llu)", (unsigned long long)running.kind[0].missed);
	sink_finish(&k);
	pd_writer_close(k.w);
	close(running.calls_fd);
	names_free(&k.names);
	facts_free(k.facts);
}

/* Without capture: what no syscall finds is unresolved, with the record's tag. */
static void test_unresolved(void)
{
	struct sink k = {};
	struct facts_stats st;
	struct pd_prog *p;

	k.w = open_writer(path("unresolved.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "unresolved: writer and facts"))
		return;
	ring_bpf_event(&k, PERF_BPF_EVENT_PROG_LOAD, 0, PROG_ID, 100);
	CHECK(k.nr_pending == 0, "unresolved: without capture nothing waits");
	sink_finish(&k);
	facts_finish(k.facts, &st);
	p = facts_prog(k.facts, PROG_ID, NULL);
	CHECK(st.progs == 1 && st.progs_unresolved == 1 && p &&
	      p->flags == (PD_F_UNRESOLVED | PD_F_RECORDED),
	      "unresolved: the program is marked unresolved");
	pd_writer_close(k.w);
	names_free(&k.names);
	facts_free(k.facts);
}

/* ---- records that describe their objects (series v2) ------------------- */

#define DESC_ID		4000003000U

/* A BPF_EVENT record of task TID with @len bytes of description @desc. */
static int ring_described(struct sink *k, __u16 type, __u16 flags, __u32 id, const void *desc,
			  size_t len, __u64 time)
{
	__u64 buf[32] = { 0 };
	struct perf_event_header *h = (void *)buf;
	struct bpf_body body = { .type = type, .flags = flags, .id = id };
	__u32 pid_tid[2] = { TID, TID };
	__u64 trailer[3] = { time, 0, ID };
	__u8 *p = (__u8 *)(h + 1);

	memcpy(p, &body, sizeof(body));
	memcpy(p + sizeof(body), desc, len);
	p += sizeof(body) + len;
	memcpy(p, pid_tid, sizeof(pid_tid));
	memcpy(p + sizeof(pid_tid), trailer, sizeof(trailer));
	h->type = PERF_RECORD_BPF_EVENT;
	h->size = p + sizeof(pid_tid) + sizeof(trailer) - (__u8 *)buf;
	return sink_record(k, &sink_ring, h);
}

/*
 * --capture=off on a kernel whose records describe maps, links and BTF:
 * the facts come from the records, for objects long gone (these ids
 * never existed: a syscall would leave them unresolved), and the records
 * reach the file whole.  A description cut short is none.
 */
static void test_described(void)
{
	struct perf_bpf_event_map map = { .map_type = BPF_MAP_TYPE_HASH, .key_size = 4,
					  .value_size = 8, .max_entries = 64, .map_flags = 1,
					  .btf_id = 9, .name = "storm_map" };
	struct perf_bpf_event_link link = { .prog_id = 41, .attach_type = BPF_TRACE_RAW_TP };
	struct perf_bpf_event_link update = { .prog_id = 42, .old_prog_id = 41,
					      .attach_type = BPF_TRACE_RAW_TP };
	struct perf_bpf_event_btf module = { .size = 1234, .name = "nf_tables" };
	struct perf_bpf_event_btf vmlinux = { .size = 5000000 };
	struct capture running = {};
	struct sink k = {};
	struct facts_stats st;
	struct pd_map *m;
	struct pd_link *l;
	struct pd_btf *b;
	struct pd_reader *r;
	struct pd_record rec;
	char err[256];
	int whole = 0;

	k.w = open_writer(path("described.data"));
	k.facts = facts_new();
	if (!CHECK(k.w && k.facts, "described: writer and facts"))
		return;
	CHECK(ring_described(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_HASH, DESC_ID, &map,
			     sizeof(map), 100) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_LINK_ATTACH, BPF_LINK_TYPE_RAW_TRACEPOINT,
			     DESC_ID + 1, &link, sizeof(link), 110) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_LINK_UPDATE, BPF_LINK_TYPE_RAW_TRACEPOINT,
			     DESC_ID + 1, &update, sizeof(update), 115) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_LINK_DETACH, BPF_LINK_TYPE_RAW_TRACEPOINT,
			     DESC_ID + 1, &update, sizeof(update), 116) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_BTF_LOAD, PERF_BPF_EVENT_FLAG_BTF_KERNEL |
			     PERF_BPF_EVENT_FLAG_BTF_MODULE, DESC_ID + 2, &module, sizeof(module),
			     120) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_BTF_LOAD, PERF_BPF_EVENT_FLAG_BTF_KERNEL,
			     DESC_ID + 3, &vmlinux, sizeof(vmlinux), 130) == 0 &&
	      ring_described(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, DESC_ID + 4, &map,
			     24, 140) == 0,
	      "described: 7 records without capture");
	/* with the capture on, a described record waits for nothing either */
	k.cap = &running;
	CHECK(ring_described(&k, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_HASH, DESC_ID + 5, &map,
			     sizeof(map), 150) == 0 && k.nr_pending == 0,
	      "described: with the capture running, not held (%zu)", k.nr_pending);
	k.cap = NULL;
	m = facts_map(k.facts, DESC_ID, NULL);
	CHECK(m && m->flags == (PD_F_DESCRIBED | PD_F_RECORDED) && m->type == BPF_MAP_TYPE_HASH &&
	      m->key_size == 4 && m->value_size == 8 && m->max_entries == 64 &&
	      m->map_flags == 1 && m->btf_id == 9 && !strcmp(m->name, "storm_map") &&
	      m->origin.pid == TID && m->origin.time == 100,
	      "described: the map's facts, from its record, created by the record's task");
	l = facts_link(k.facts, DESC_ID + 1, NULL);
	CHECK(l && l->flags == (PD_F_DESCRIBED | PD_F_RECORDED) &&
	      l->type == BPF_LINK_TYPE_RAW_TRACEPOINT && l->prog_id == 41 &&
	      l->attach_type == BPF_TRACE_RAW_TP && l->origin.pid == TID && l->origin.time == 110,
	      "described: the link's facts: its first program, attach type, creator");
	b = facts_btf(k.facts, DESC_ID + 2, NULL);
	CHECK(b && b->flags == (PD_F_DESCRIBED | PD_F_RECORDED) && b->kernel && b->size == 1234 &&
	      !strcmp(b->name, "nf_tables"), "described: module BTF named after its module");
	b = facts_btf(k.facts, DESC_ID + 3, NULL);
	CHECK(b && b->kernel && b->size == 5000000 && !strcmp(b->name, "vmlinux"),
	      "described: vmlinux's BTF named as the syscall names it");
	sink_finish(&k);
	facts_finish(k.facts, &st);
	m = facts_map(k.facts, DESC_ID + 4, NULL);
	CHECK(st.objects == 6 && st.unresolved == 1 && m && (m->flags & PD_F_UNRESOLVED) &&
	      !(m->flags & PD_F_DESCRIBED),
	      "described: 6 objects, the one cut short unresolved (%zu, %zu)",
	      st.objects, st.unresolved);
	CHECK(facts_store(k.facts, k.w) == 0 && pd_writer_close(k.w) == 0, "described: stored");
	names_free(&k.names);
	facts_free(k.facts);

	r = pd_reader_open(path("described.data"), err, sizeof(err));
	if (!CHECK(r, "described: the file opens %s", r ? "" : err))
		return;
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type != PERF_RECORD_BPF_EVENT)
			continue;
		whole += rec.bpf.type == PERF_BPF_EVENT_MAP_CREATE && rec.bpf.id == DESC_ID &&
			 rec.bpf.desc_len == sizeof(map) && rec.sample.time == 100;
		whole += rec.bpf.type == PERF_BPF_EVENT_LINK_UPDATE && rec.bpf.described &&
			 rec.bpf.desc.link.prog_id == 42 && rec.bpf.desc.link.old_prog_id == 41;
		whole += rec.bpf.type == PERF_BPF_EVENT_LINK_DETACH && rec.bpf.described;
		whole += rec.bpf.type == PERF_BPF_EVENT_MAP_CREATE && rec.bpf.id == DESC_ID + 4 &&
			 rec.bpf.desc_len == 24;
	}
	CHECK(whole == 4, "described: the records in the file as they came (%d of 4)", whole);
	CHECK(pd_reader_map(r, DESC_ID) && pd_reader_map(r, DESC_ID)->flags ==
	      (PD_F_DESCRIBED | PD_F_RECORDED), "described: the file has the map's facts");
	pd_reader_close(r);
}

/* ---- tasks named from /proc -------------------------------------------- */

static void test_names(void)
{
	struct task_names n = {};
	struct pd_writer *w = open_writer(path("names.data"));
	struct pd_sample me = { .pid = getpid(), .tid = getpid(), .time = ~0ULL >> 1 };
	struct pd_sample early = me, named = { .pid = 1, .tid = 1, .time = ~0ULL >> 1 };
	struct pd_sample later = me;
	char comm[16], err[256];
	struct pd_reader *r;
	struct pd_record rec;
	int comms = 0;
	bool mine = false;
	FILE *f;

	if (!CHECK(w, "names: writer"))
		return;
	f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	/* the earliest record of a task is the one its COMM goes before */
	later.time = me.time + 5;
	CHECK(names_seen(&n, &later) == 0 && names_seen(&n, &me) == 0 &&
	      n.nr_pending == 1 && n.pending[0].time == me.time,
	      "names: a task pending once, at its earliest record");
	/* the kernel named pid 1: no COMM of ours for it */
	CHECK(names_comm(&n, 1) == 0 && names_seen(&n, &named) == 0 && n.nr_pending == 1,
	      "names: a task the kernel named is not pending");
	/* tid 0, the idle task, is never named */
	early.tid = early.pid = 0;
	CHECK(names_seen(&n, &early) == 0 && n.nr_pending == 1, "names: tid 0 is left alone");
	CHECK(names_flush(&n, w) == 0 && n.nr_pending == 0, "names: flushed");
	/* a record from before the task started: /proc shows another task */
	early = me;
	early.time = 1;
	early.tid = getppid();
	names_seen(&n, &early);
	CHECK(names_flush(&n, w) == 0, "names: a task younger than its record is not named");
	pd_writer_close(w);
	names_free(&n);

	r = pd_reader_open(path("names.data"), err, sizeof(err));
	if (!CHECK(r, "names: names.data opens %s", r ? "" : err))
		return;
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type != PERF_RECORD_COMM)
			continue;
		comms++;
		mine = rec.comm.tid == (__u32)getpid() && !strcmp(rec.comm.comm, comm) &&
		       rec.sample.time == me.time - 1 && rec.sample.tid == (__u32)getpid();
	}
	CHECK(comms == 1 && mine,
	      "names: one COMM, this task named '%s' 1 ns before its record (%d)", comm, comms);
	pd_reader_close(r);
}

/* ---- synthesis of the objects that exist at start ---------------------- */

static void test_synthesis(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct synth_ctx s = { .obj_events = true };
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(info), mlen = sizeof(minfo);
	int prog, map, loads = 0, creates = 0, ksyms = 0, again = 0;
	const struct pd_prog *p;
	struct pd_reader *r;
	struct pd_record rec;
	char err[256];

	if (geteuid()) {
		skip("synthesis of existing objects", "needs root to load BPF");
		return;
	}
	prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "unit_synth", "GPL", insns, 2, &opts);
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unit_synth_map", 4, 8, 4, NULL);
	if (!CHECK(prog >= 0 && map >= 0, "synthesis: a program and a map exist") ||
	    bpf_obj_get_info_by_fd(prog, &info, &len) ||
	    bpf_obj_get_info_by_fd(map, &minfo, &mlen))
		goto out;
	s.w = open_writer(path("synth.data"));
	s.facts = facts_new();
	s.sample = (struct pd_sample){ .time = 1000, .id = ID };
	CHECK(s.w && s.facts && synth_existing(&s) == 0, "synthesis: every object listed");
	/* a second pass finds them known: no record twice */
	pd_write_finished_round(s.w);
	CHECK(synth_existing(&s) == 0, "synthesis: listed again");
	facts_store(s.facts, s.w);
	pd_writer_close(s.w);
	facts_free(s.facts);

	r = pd_reader_open(path("synth.data"), err, sizeof(err));
	if (!CHECK(r, "synthesis: synth.data opens %s", r ? "" : err))
		goto out;
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type == PD_RECORD_FINISHED_ROUND)
			again = 1;
		if (rec.type == PERF_RECORD_BPF_EVENT && rec.bpf.id == info.id &&
		    rec.bpf.type == PERF_BPF_EVENT_PROG_LOAD)
			loads += again ? 100 : 1;
		/* described as the kernel would: the facts of the syscall */
		if (rec.type == PERF_RECORD_BPF_EVENT && rec.bpf.id == minfo.id &&
		    rec.bpf.type == PERF_BPF_EVENT_MAP_CREATE)
			creates += rec.bpf.flags == BPF_MAP_TYPE_ARRAY && rec.bpf.described &&
				   rec.bpf.desc.map.map_type == BPF_MAP_TYPE_ARRAY &&
				   rec.bpf.desc.map.key_size == 4 && rec.bpf.desc.map.value_size == 8 &&
				   rec.bpf.desc.map.max_entries == 4 &&
				   !strcmp(rec.bpf.desc.map.name, "unit_synth_map") ? 1 : 100;
		if (rec.type == PERF_RECORD_KSYMBOL && info.nr_jited_ksyms &&
		    strstr(rec.ksymbol.name, "_unit_synth") && rec.sample.time == 1000)
			ksyms++;
	}
	CHECK(loads == 1 && creates == 1,
	      "synthesis: one PROG_LOAD and one described MAP_CREATE (map type in flags) of ours, once (%d, %d)",
	      loads, creates);
	CHECK(ksyms == (int)info.nr_jited_ksyms,
	      "synthesis: a KSYMBOL per JIT image, named after the program (%d)", ksyms);
	p = pd_reader_prog(r, info.id);
	CHECK(p && p->flags == (PD_F_SYNTHESISED | PD_F_SYSCALL) && !strcmp(p->name, "unit_synth") &&
	      p->type == BPF_PROG_TYPE_SOCKET_FILTER && !memcmp(p->tag, info.tag, 8),
	      "synthesis: the program's facts, synthesised by syscall");
	CHECK(pd_reader_map(r, minfo.id) &&
	      !strcmp(pd_reader_map(r, minfo.id)->name, "unit_synth_map") &&
	      pd_reader_map(r, minfo.id)->flags == (PD_F_SYNTHESISED | PD_F_SYSCALL),
	      "synthesis: the map's facts");
	pd_reader_close(r);
out:
	if (prog >= 0)
		close(prog);
	if (map >= 0)
		close(map);
}

/* ---- the start-up window ---------------------------------------------- */

/*
 * The capture starts before the events: a program loaded in between has
 * captured facts and no record.  It must still get exactly one PROG_LOAD
 * (synthesised, with the captured facts), and a program loaded after the
 * start exactly one live one.
 */
static void test_start_window(void)
{
	static __u8 scratch[RING_SCRATCH_SIZE];
	struct bpf_prog_info info, info2;
	struct pd_writer_config cfg = {};
	struct capture running = {};
	struct sink k = {};
	struct recording rec = { .evlist = NULL, .sink = &k, .scratch = scratch };
	struct facts_stats st;
	struct evlist el;
	struct cap_prog cp;
	const struct pd_prog *p;
	struct pd_reader *r;
	struct pd_record pr;
	int window, after, in_window = 0, later = 0;
	char err[256];

	if (geteuid()) {
		skip("the start-up window", "needs root for system-wide events");
		return;
	}
	window = load_prog("unit_window", &info);
	if (!CHECK(window >= 0, "start: a program loaded before the events"))
		return;
	if (!CHECK(!evlist_init(&el, 16) && !evlist_add_sideband(&el), "start: side-band event"))
		goto out;
	cfg.events = evlist_pd_events(&el);
	cfg.nr_events = el.nr_ev;
	CHECK(cfg.events && !pd_writer_open(&k.w, path("window.data"), &cfg),
	      "start: window.data opened");
	free((void *)cfg.events);
	k.facts = facts_new();
	/* the capture runs (its facts only are injected): records wait for facts */
	k.cap = &running;
	rec.evlist = &el;
	cp = captured_prog(info.id, "unit_window", 0);
	memcpy(cp.tag, info.tag, sizeof(cp.tag));
	CHECK(k.w && k.facts && !sink_capture(&k, &cp, sizeof(cp)),
	      "start: the capture saw it before the events were enabled");
	CHECK(!recording_start(&rec, 1000, el.obj_events), "start: recording started");
	after = load_prog("unit_after", &info2);
	CHECK(after >= 0, "start: a program loaded after the start");
	if (after >= 0)
		close(after);
	CHECK(!recording_drain(&rec), "start: drained");
	evlist_enable(&el, false);
	CHECK(!recording_drain(&rec), "start: drained after the events stopped");
	sink_finish(&k);
	facts_finish(k.facts, &st);
	CHECK(!facts_store(k.facts, k.w) && !pd_writer_close(k.w), "start: window.data written");
	facts_free(k.facts);
	names_free(&k.names);

	r = pd_reader_open(path("window.data"), err, sizeof(err));
	if (!CHECK(r, "start: window.data opens %s", r ? "" : err))
		goto out;
	while (pd_reader_next(r, &pr) > 0) {
		if (pr.type != PERF_RECORD_BPF_EVENT || pr.bpf.type != PERF_BPF_EVENT_PROG_LOAD)
			continue;
		in_window += pr.bpf.id == info.id;
		later += pr.bpf.id == info2.id;
	}
	CHECK(in_window == 1 && later == 1,
	      "start: one PROG_LOAD each for the program of the window and the later one (%d, %d)",
	      in_window, later);
	p = pd_reader_prog(r, info.id);
	CHECK(p && p->flags == (PD_F_CAPTURED | PD_F_SYNTHESISED) && !strcmp(p->name, "unit_window") &&
	      p->origin.pid == TID,
	      "start: the window's program keeps its captured facts, marked synthesised (%#x)",
	      p ? p->flags : 0);
	p = pd_reader_prog(r, info2.id);
	CHECK(p && (p->flags & PD_F_RECORDED) && !(p->flags & PD_F_SYNTHESISED),
	      "start: the later program marked recorded, not synthesised (%#x)", p ? p->flags : 0);
	pd_reader_close(r);
out:
	evlist_close(&el);
	close(window);
}

/* ---- an event list of two events, into one file ----------------------- */

struct two {
	struct pd_writer *w;
	int sideband, samples, bad;
	__u32 prog_id;
	bool prog_seen;
};

/* What a recorder's drain does: every record to the file, counted by event. */
static int write_record(void *ctx, const struct ring *r, const struct perf_event_header *hdr)
{
	struct two *t = ctx;
	struct pd_sample s;
	const char *why;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		/* a sample's event is the ring's: its IDENTIFIER says so too */
		t->bad += r->attr->config != PERF_COUNT_SW_CPU_CLOCK ||
			  pd_sample_decode(r->attr, hdr + 1, hdr->size - sizeof(*hdr), &s, &why);
		t->samples++;
	} else {
		t->sideband += r->attr->config == PERF_COUNT_SW_DUMMY;
		if (hdr->type == PERF_RECORD_BPF_EVENT &&
		    ((const struct bpf_body *)(hdr + 1))->id == t->prog_id)
			t->prog_seen = true;
	}
	return pd_write_raw(t->w, hdr);
}

static void test_evlist(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct perf_event_attr clock = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(clock),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 100000,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1, .disabled = 1,
		.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
	};
	static __u8 scratch[RING_SCRATCH_SIZE];
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct pd_writer_config cfg = {};
	struct two t = {};
	struct evlist el;
	struct pd_reader *r;
	struct pd_record rec;
	struct timespec t0, t1;
	int prog, ok = 0, other = 0;
	char err[256];

	if (geteuid()) {
		skip("an event list of side-band and cpu-clock", "needs root for system-wide events");
		return;
	}
	ok = !evlist_init(&el, 16) && !evlist_add_sideband(&el) &&
	     !evlist_add(&el, &clock, "cpu-clock");
	if (!CHECK(ok && el.nr_cpus == sysconf(_SC_NPROCESSORS_ONLN),
		   "evlist: side-band and cpu-clock on the %d online CPUs", el.nr_cpus))
		goto out;
	ok = 0;
	cfg.events = evlist_pd_events(&el);
	cfg.nr_events = el.nr_ev;
	CHECK(cfg.events && !pd_writer_open(&t.w, path("two.data"), &cfg) &&
	      !evlist_enable(&el, true), "evlist: file opened, events enabled");
	free((void *)cfg.events);
	/* 50 ms of CPU for samples, and a program for the side-band */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec < 50000000);
	prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "unit_evlist", "GPL", insns, 2, NULL);
	if (prog >= 0 && !bpf_obj_get_info_by_fd(prog, &info, &len))
		t.prog_id = info.id;
	if (prog >= 0)
		close(prog);
	evlist_enable(&el, false);
	CHECK(!evlist_drain(&el, write_record, &t, scratch), "evlist: drained");
	pd_write_finished_round(t.w);
	pd_writer_close(t.w);
	CHECK(t.samples >= 100 && !t.bad, "evlist: %d cpu-clock samples, each of its ring's event",
	      t.samples);
	CHECK(t.prog_id && t.prog_seen && t.sideband >= 2,
	      "evlist: the program's PROG_LOAD among %d side-band records", t.sideband);

	r = pd_reader_open(path("two.data"), err, sizeof(err));
	if (!CHECK(r, "evlist: two.data opens %s", r ? "" : err))
		goto out;
	CHECK(pd_reader_info(r)->nr_events == 2 &&
	      !strcmp(pd_reader_info(r)->events[0].name, "bpf-events") &&
	      !strcmp(pd_reader_info(r)->events[1].name, "cpu-clock") &&
	      pd_reader_info(r)->events[1].nr_ids == (size_t)el.nr_cpus,
	      "evlist: the file's two events, an id per CPU each");
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE)
			ok += rec.event == 1 && rec.has_sample && rec.sample.period == 100000;
		else if (rec.type != PD_RECORD_FINISHED_ROUND)
			other += rec.event == 0;
	}
	CHECK(ok == t.samples && other == t.sideband,
	      "evlist: the reader gives every record its event (%d/%d, %d/%d)", ok, t.samples,
	      other, t.sideband);
	pd_reader_close(r);
	if (have_perf("perf script reads the event list's file")) {
		CHECK(sh("/usr/bin/perf script -i %s >%s 2>%s", path("two.data"),
			 path("two.out"), path("two.err")) == 0 &&
		      count_lines(path("two.err"), NULL, NULL, 0) == 0 &&
		      count_lines(path("two.out"), " cpu-clock:", NULL, 0) == t.samples,
		      "evlist: perf script shows the %d samples, nothing on stderr", t.samples);
	}
out:
	evlist_close(&el);
}

/*
 * record --cgroup, --exe: a task is the tenant's in the cgroup or below it
 * (not in a sibling whose name starts the same), from the executable
 * itself, and not when the capture cut the path; an object's first
 * verdict holds.
 */
static void test_tenant(void)
{
	struct tenant t = { .on = true };
	struct pd_loader d = {};
	static const struct {
		const char *cgroup, *exe;
		__u32 flags;
		bool tenant;
	} tasks[] = {
		{ "/a", "/usr/bin/ld", 0, true },
		{ "/a/b/c", "/usr/bin/ld", 0, true },
		{ "/ab", "/usr/bin/ld", 0, false },
		{ "/", "/usr/bin/ld", 0, false },
		{ "/a", "/usr/bin/ld2", 0, false },
		{ "/a", "/usr/bin", 0, false },
		{ "/a/b", "/usr/bin/ld", PD_LOADER_CGROUP_CUT, false },
		{ "/a/b", "/usr/bin/ld", PD_LOADER_EXE_CUT, false },
	};
	size_t i;

	snprintf(t.cgroup, sizeof(t.cgroup), "/a");
	snprintf(t.exe, sizeof(t.exe), "/usr/bin/ld");
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		snprintf(d.cgroup, sizeof(d.cgroup), "%s", tasks[i].cgroup);
		snprintf(d.exe, sizeof(d.exe), "%s", tasks[i].exe);
		d.flags = tasks[i].flags;
		CHECK(tenant_task(&t, &d) == tasks[i].tenant, "tenant: %s in %s (flags %#x) is %s",
		      tasks[i].exe, tasks[i].cgroup, tasks[i].flags,
		      tasks[i].tenant ? "the tenant's" : "not the tenant's");
	}
	/* the root cgroup alone: every task of the executable */
	snprintf(t.cgroup, sizeof(t.cgroup), "/");
	snprintf(d.cgroup, sizeof(d.cgroup), "/x");
	d.flags = 0;
	CHECK(tenant_task(&t, &d), "tenant: --cgroup of the root takes every cgroup");
	t.cgroup[0] = 0;
	snprintf(d.exe, sizeof(d.exe), "/usr/bin/other");
	CHECK(!tenant_task(&t, &d), "tenant: --exe alone still asks for the executable");

	CHECK(tenant_verdict(&t, PD_PROG, 7) == TENANT_UNDECIDED, "tenant: undecided at first");
	CHECK(tenant_decide(&t, PD_PROG, 7, true) == TENANT_KEEP &&
	      tenant_decide(&t, PD_PROG, 7, false) == TENANT_KEEP &&
	      tenant_verdict(&t, PD_PROG, 7) == TENANT_KEEP, "tenant: the creation's verdict holds");
	CHECK(tenant_verdict(&t, PD_MAP, 7) == TENANT_UNDECIDED &&
	      tenant_decide(&t, PD_MAP, 7, false) == TENANT_DROP,
	      "tenant: a map of the same id has a verdict of its own");
	tenant_free(&t);
}

int main(void)
{
	unit_setup();
	ring_attr = sideband_attr();
	test_ring();
	test_merge();
	test_durable();
	test_creator();
	test_unresolved();
	test_described();
	test_oversized();
	test_linger();
	test_missed();
	test_in_call();
	test_names();
	test_synthesis();
	test_start_window();
	test_evlist();
	test_tenant();
	return unit_done();
}
