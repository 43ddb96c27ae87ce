// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the facts a reader looks up one at a time: a file of
 * many objects (many groups of entries) gives every fact back by id and
 * in id order; entries a writer stored out of order are found as well.
 * The loaders of a file of many tasks, by index and by task and time.
 * The writer's fact log alone, on a store in memory: it needs no writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "util/perf_data/format.h"
#include "util/perf_data/perf_data.h"

#define NR_PROGS	300
#define NR_MAPS		100

static int write_many(const char *file)
{
	static const __u64 ids[1] = { 1 };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY, .bpf_event = 1,
	};
	struct pd_event ev = { .attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 1 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	__u64 addr;
	__u32 len = 64;
	__u8 tag[1][8] = { { 1 } };
	struct pd_writer *w;
	int i, err;

	err = pd_writer_open(&w, file, &cfg);
	if (err)
		return err;
	pd_write_finished_round(w);
	/* added newest first: the writer stores them by id */
	for (i = NR_PROGS; i >= 1; i--) {
		__u32 map_ids[3] = { i * 100, i * 100 + 1, i * 100 + 2 };
		/* 0 to 3 maps, so that each entry's arrays differ from the one before */
		struct pd_prog p = {
			.id = i * 2, .flags = PD_F_CAPTURED, .type = BPF_PROG_TYPE_XDP,
			.nr_ksyms = 1, .ksym_addrs = &addr, .ksym_lens = &len, .sub_tags = tag,
			.nr_map_ids = i % 4, .map_ids = map_ids,
		};

		addr = 0xffffffffc0000000ULL + i;
		snprintf(p.name, sizeof(p.name), "prog%d", i * 2);
		pd_writer_add_prog(w, &p);
	}
	for (i = 1; i <= NR_MAPS; i++) {
		struct pd_map m = { .id = i, .flags = PD_F_CAPTURED, .max_entries = i * 10 };

		snprintf(m.name, sizeof(m.name), "map%d", i);
		pd_writer_add_map(w, &m);
	}
	return pd_writer_close(w);
}

/* Every fact by id; what the iteration gives, as "first..last count". */
static void check_all(struct pd_reader *r, const char *what)
{
	struct pd_fact_iter it = {};
	const struct pd_prog *p;
	const struct pd_map *m;
	bool progs_ok = true, maps_ok = true, order_ok = true;
	__u32 id, prev = 0;
	int i, k, n = 0;

	for (i = 1; i <= NR_PROGS; i++) {
		p = pd_reader_prog(r, i * 2);
		progs_ok &= p && p->id == (__u32)i * 2 && p->type == BPF_PROG_TYPE_XDP &&
			    p->nr_ksyms == 1 && p->ksym_addrs[0] == 0xffffffffc0000000ULL + i &&
			    atoi(p->name + 4) == i * 2 && p->nr_map_ids == (__u32)i % 4;
		for (k = 0; p && k < (int)p->nr_map_ids && k < 3; k++)
			progs_ok &= p->map_ids[k] == (__u32)(i * 100 + k);
	}
	CHECK(progs_ok && !pd_reader_prog(r, 3) && !pd_reader_prog(r, 602),
	      "%s: the %d programs by id, perf's arrays (0 to 3 map ids each) and our names merged; no others",
	      what, NR_PROGS);
	for (i = NR_MAPS; i >= 1; i--) {
		m = pd_reader_map(r, i);
		maps_ok &= m && m->max_entries == (__u32)i * 10 && atoi(m->name + 3) == i;
	}
	CHECK(maps_ok && !pd_reader_map(r, NR_MAPS + 1),
	      "%s: the %d maps by id, looked up backwards", what, NR_MAPS);
	while (pd_reader_next_fact(r, PD_MAP, &it, &id)) {
		order_ok &= id > prev;
		prev = id;
		n++;
	}
	CHECK(n == NR_MAPS && order_ok, "%s: %d maps in id order (%d)", what, NR_MAPS, n);
	it = (struct pd_fact_iter){};
	for (n = 0, prev = 0; pd_reader_next_fact(r, PD_PROG, &it, &id); n++) {
		order_ok &= id > prev;
		prev = id;
	}
	CHECK(n == NR_PROGS && order_ok && prev == NR_PROGS * 2,
	      "%s: %d programs in id order, the last %u", what, NR_PROGS, prev);
}

/* Where feature @feat's section is, from the feature table. */
static bool feature(const __u8 *f, int feat, __u64 *off, __u64 *size)
{
	__u64 bits[4], data_off, data_size, sec[2];
	int i, n = 0;

	memcpy(&data_off, f + 40, 8);
	memcpy(&data_size, f + 48, 8);
	memcpy(bits, f + 72, sizeof(bits));
	if (!(bits[feat / 64] & (1ULL << (feat % 64))))
		return false;
	for (i = 0; i < feat; i++)
		n += !!(bits[i / 64] & (1ULL << (i % 64)));
	memcpy(sec, f + data_off + data_size + n * 16, sizeof(sec));
	*off = sec[0];
	*size = sec[1];
	return true;
}

static void test_many(void)
{
	char err[256];
	struct pd_reader *r;
	__u8 *f, item[112];
	__u64 off, size, pos;
	size_t len;
	int fd;

	CHECK(write_many(path("many.data")) == 0, "%d programs and %d maps written",
	      NR_PROGS, NR_MAPS);
	r = pd_reader_open(path("many.data"), err, sizeof(err));
	if (!CHECK(r, "many.data opens: %s", r ? "" : err))
		return;
	check_all(r, "in order");
	pd_reader_close(r);

	/* maps 1 and 2 swapped in BPFREC: ids out of order, indexed one by one */
	f = slurp(path("many.data"), &len);
	if (!CHECK(f && feature(f, 255, &off, &size), "BPFREC found"))
		return;
	/* header, then the 300 program items, then the maps (112 bytes each) */
	for (pos = off + 8; pos < off + size;) {
		__u16 kind;
		__u32 item_len;

		memcpy(&kind, f + pos, 2);
		memcpy(&item_len, f + pos + 4, 4);
		if (kind == 3)
			break;
		pos += (8 + item_len + 7) / 8 * 8;
	}
	memcpy(item, f + pos, 112);
	memcpy(f + pos, f + pos + 112, 112);
	memcpy(f + pos + 112, item, 112);
	fd = open(path("unsorted.data"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, f, len) == (ssize_t)len, "unsorted.data written");
	close(fd);
	free(f);
	r = pd_reader_open(path("unsorted.data"), err, sizeof(err));
	if (!CHECK(r, "unsorted.data opens: %s", r ? "" : err))
		return;
	check_all(r, "maps out of order");
	pd_reader_close(r);
}

#define NR_TASKS	20000

/*
 * A file of NR_TASKS tasks that each said who they are once (tids 100
 * up, at times 1000 up), task 7 three times (an exec, a move to another
 * cgroup), and task 101's index 5 written twice (the second one wins).
 */
static void test_loaders(void)
{
	static const __u64 ids[1] = { 1 };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY, .bpf_event = 1,
	};
	struct pd_event ev = { .attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 1 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	const struct pd_loader *d, *e, *f, *g;
	struct pd_loader l;
	struct pd_writer *w;
	struct pd_reader *r;
	char err[256];
	__u32 i, index = 0, wrong = 0;

	if (!CHECK(!pd_writer_open(&w, path("loaders.data"), &cfg), "loaders: file opened"))
		return;
	for (i = 0; i < 3; i++) {
		l = (struct pd_loader){ .index = ++index, .pid = 7, .tid = 7, .time = 10 + 10 * i };
		snprintf(l.exe, sizeof(l.exe), "/bin/exe%u", i);
		snprintf(l.cgroup, sizeof(l.cgroup), i == 2 ? "/other" : "/");
		pd_writer_add_loader(w, &l);
	}
	for (i = 0; i < NR_TASKS; i++) {
		l = (struct pd_loader){ .index = ++index, .pid = 100 + i, .tid = 100 + i,
					.time = 1000 + i };
		snprintf(l.exe, sizeof(l.exe), "/usr/bin/task%u", i);
		snprintf(l.cgroup, sizeof(l.cgroup), "/");
		pd_writer_add_loader(w, &l);
	}
	l = (struct pd_loader){ .index = 5, .pid = 101, .tid = 101, .time = 1001 };
	snprintf(l.exe, sizeof(l.exe), "/usr/bin/again");
	pd_writer_add_loader(w, &l);
	pd_write_finished_round(w);
	if (!CHECK(!pd_writer_close(w), "loaders: written"))
		return;
	r = pd_reader_open(path("loaders.data"), err, sizeof(err));
	if (!CHECK(r, "loaders: opens: %s", r ? "" : err))
		return;
	for (i = 0; i < NR_TASKS; i++) {
		if (i == 1)
			continue;
		d = pd_reader_loader(r, 4 + i);
		e = pd_reader_loader_of(r, 100 + i, 1000 + i);
		if (!d || d != e || d->tid != 100 + i || d->index != 4 + i)
			wrong++;
	}
	CHECK(!wrong, "loaders: each of %u tasks by index and by tid at its time (%u wrong)",
	      NR_TASKS, wrong);
	d = pd_reader_loader(r, 5);
	CHECK(d && !strcmp(d->exe, "/usr/bin/again") && pd_reader_loader_of(r, 101, 5000) == d,
	      "loaders: index 5 written twice: the second wins (%s)", d ? d->exe : "none");
	CHECK(!pd_reader_loader(r, 0) && !pd_reader_loader(r, index + 1) &&
	      !pd_reader_loader_of(r, 99, 5000) && !pd_reader_loader_of(r, 100, 999),
	      "loaders: none for index 0, an unknown index, an unknown task, before its first");
	d = pd_reader_loader_of(r, 7, 10);
	e = pd_reader_loader_of(r, 7, 29);
	f = pd_reader_loader_of(r, 7, 30);
	g = pd_reader_loader_of(r, 7, 1 << 30);
	CHECK(d && e && f && g && !strcmp(d->exe, "/bin/exe0") && !strcmp(e->exe, "/bin/exe1") &&
	      !strcmp(f->exe, "/bin/exe2") && !strcmp(f->cgroup, "/other") && f == g &&
	      !pd_reader_loader_of(r, 7, 9),
	      "loaders: task 7 as it was at each time: %s, %s, %s", d ? d->exe : "none",
	      e ? e->exe : "none", f ? f->exe : "none");
	pd_reader_close(r);
}

/* A fact log's store in memory: the records appended, as the writer frames them. */
struct mem_store {
	struct pd_buf data;
	int appends;
	int fail;			/* the error of the next append, 0: none */
};

static int mem_append(void *ctx, __u32 feat, const struct pd_buf *entry, __u64 *off)
{
	struct mem_store *m = ctx;
	struct pd_fact_header h = {
		.header = { .type = PD_RECORD_FACTS, .size = PD_ALIGN8(sizeof(h) + entry->len) },
		.magic = PD_EXT_MAGIC,
		.feat = feat,
	};

	if (m->fail)
		return m->fail;
	*off = m->data.len;
	pd_buf_put(&m->data, &h, sizeof(h));
	pd_buf_put(&m->data, entry->p, entry->len);
	pd_buf_zero(&m->data, h.header.size - sizeof(h) - entry->len);
	m->appends++;
	return m->data.err;
}

static int mem_read(void *ctx, __u64 off, void *dst, size_t len)
{
	struct mem_store *m = ctx;

	if (off + len > m->data.len)
		return -EIO;
	memcpy(dst, m->data.p + off, len);
	return 0;
}

/*
 * The fact log (facts_write.c) depends on no writer: given a store, it
 * writes each fact as records, reads the latest back by id, and passes
 * the store's errors on.
 */
static void test_fact_log(void)
{
	struct mem_store m = { 0 };
	struct pd_fact_log *l = pd_fact_log_new(&(struct pd_fact_store){
		.append = mem_append, .read = mem_read, .ctx = &m });
	struct pd_prog p = { .id = 7, .type = 2, .name = "first" }, got = { 0 };
	struct pd_map map = { .id = 3, .type = 1, .key_size = 4, .value_size = 8, .name = "counts" };
	struct pd_map got_map = { 0 };
	int err, appends;

	if (!CHECK(l, "fact log: created on a store in memory"))
		return;
	err = pd_fact_log_prog(l, &p);
	appends = m.appends;
	CHECK(!err && appends == 2,
	      "fact log: a program is two records, perf's BPF_PROG_INFO and ours (%d, %d)", err,
	      appends);
	snprintf(p.name, sizeof(p.name), "second");
	err = pd_fact_log_prog(l, &p) ?: pd_fact_log_map(l, &map);
	CHECK(!err && m.appends == appends + 3, "fact log: a rewrite and a map appended (%d)",
	      m.appends);
	err = pd_fact_log_read(l, PD_PROG, 7, &got);
	CHECK(!err && !strcmp(got.name, "second") && got.type == 2,
	      "fact log: program 7 read back as written last: %d '%s'", err, got.name);
	pd_prog_free_arrays(&got);
	err = pd_fact_log_read(l, PD_MAP, 3, &got_map);
	CHECK(!err && !strcmp(got_map.name, "counts") && got_map.value_size == 8,
	      "fact log: map 3 read back: %d '%s'", err, got_map.name);
	CHECK(pd_fact_log_has(l, PD_MAP, 3) && !pd_fact_log_has(l, PD_MAP, 4) &&
	      pd_fact_log_read(l, PD_PROG, 8, &got) == -ENOENT,
	      "fact log: an id never written is not there");
	m.fail = -ENOSPC;
	map.id = 4;
	CHECK(pd_fact_log_map(l, &map) == -ENOSPC && !pd_fact_log_has(l, PD_MAP, 4),
	      "fact log: the store's error is returned, the map not remembered");
	pd_fact_log_free(l);
	pd_buf_free(&m.data);
}

int main(void)
{
	unit_setup();
	test_many();
	test_loaders();
	test_fact_log();
	return unit_done();
}
