// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the perf.data writer and reader, script and JSON output:
 * round trip of every record type and fact, files cut short or never
 * finalised, malformed input, and Linux perf reading our files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "builtin.h"
#include "tests/unit/unit.h"
#include "util/json.h"
#include "util/perf_data/perf_data.h"

static const __u64 ids[2] = { 1000, 1001 };
static const __u8 tag7[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };

static struct perf_event_attr test_attr(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
		.bpf_event = 1,
		.ksymbol = 1,
	};

	pd_attr_set_bpf_obj_event(&a, true);
	return a;
}

static struct pd_sample sample(__u64 time, __u32 cpu)
{
	return (struct pd_sample){
		.pid = 4242, .tid = 4243, .time = time, .cpu = cpu,
		.id = ids[cpu],
	};
}

/* A user BTF with one function "handle_exec"; *len gets its size. */
static void *make_btf(__u32 *len, __u32 *func_type_id)
{
	struct btf *btf = btf__new_empty();
	const void *raw;
	void *copy;
	int proto, i32;

	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(btf, i32);
	*func_type_id = btf__add_func(btf, "handle_exec", BTF_FUNC_GLOBAL,
				      proto);
	raw = btf__raw_data(btf, len);
	copy = malloc(*len);
	memcpy(copy, raw, *len);
	btf__free(btf);
	return copy;
}

/*
 * The reference recording: every record type and kind of fact.
 * @with_lost adds a LOST record (perf then warns, rightly).
 */
static int write_reference(const char *file, bool with_lost, bool close_it,
			   struct pd_writer **wp)
{
	struct perf_event_attr attr = test_attr();
	char *argv[] = { "bpfrec", "record", "-e", "bpf-events" };
	struct pd_event ev = {
		.attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 2,
	};
	struct pd_writer_config cfg = {
		.events = &ev, .nr_events = 1, .argc = 4, .argv = argv,
		.version = "bpfrec-1.2-g0123456789ab",
	};
	__u64 addr[2] = { 0xffffffffc0001000ULL, 0xffffffffc0002000ULL };
	__u32 lens[2] = { 96, 48 };
	__u8 sub_tags[2][8] = { { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 },
				{ 0xca, 0xfe, 0, 0, 0, 0, 0, 1 } };
	__u32 map_ids[2] = { 9, 10 };
	struct bpf_func_info finfo[2];
	struct bpf_line_info linfo[1] = { { .insn_off = 0, .line_col = 7 << 10 } };
	char *fnames[2] = { "handle_exec", "helper" };
	struct pd_prog prog = {
		.id = 7, .flags = PD_F_CAPTURED | PD_F_SYSCALL,
		.type = BPF_PROG_TYPE_TRACEPOINT, .name = "handle_exec",
		.load_time = 123456789, .jited_len = 144, .xlated_len = 200,
		.btf_id = 11, .nr_map_ids = 2, .map_ids = map_ids,
		.nr_ksyms = 2, .ksym_addrs = addr, .ksym_lens = lens,
		.sub_tags = sub_tags, .nr_func_info = 2, .func_info = finfo,
		.nr_line_info = 1, .line_info = linfo, .nr_lines = 1,
		.nr_func_names = 2, .func_names = fnames,
		.origin = { .pid = 4242, .tid = 4243, .uid = 1000,
			    .time = 5000, .comm = "execsnoop" },
	};
	struct pd_prog synth = {
		.id = 3, .flags = PD_F_SYNTHESISED | PD_F_SYSCALL,
		.type = BPF_PROG_TYPE_CGROUP_SKB, .name = "sd_fw_ingress",
		/* the line count without the records, as the capture knows it */
		.nr_lines = 42,
	};
	struct pd_prog unresolved = { .id = 8, .flags = PD_F_UNRESOLVED };
	struct pd_map map = {
		.id = 9, .flags = PD_F_CAPTURED, .type = BPF_MAP_TYPE_HASH,
		.key_size = 4, .value_size = 16, .max_entries = 1024,
		.map_flags = BPF_F_NO_PREALLOC, .btf_id = 11, .name = "events",
		.origin = { .pid = 4242, .comm = "execsnoop" },
	};
	struct pd_link link = {
		.id = 5, .flags = PD_F_SYSCALL,
		.type = BPF_LINK_TYPE_PERF_EVENT, .prog_id = 7,
		.target = "tracepoint syscalls:sys_enter_execve",
	};
	struct pd_btf btf = {
		.id = 11, .flags = PD_F_SYSCALL, .name = "execsnoop.bpf.o",
	};
	struct pd_capture cap = {
		.flags = PD_CAP_BPF_OBJ_EVENT | PD_CAP_KERNEL_CAPTURE,
		.start_time = 900, .end_time = 9000, .lost_records = 2,
		.lost_facts = 1,
	};
	struct pd_sample s;
	struct pd_writer *w;
	__u32 ftype;
	int err;
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		__u64 start, len, pgoff;
		char name[8];
		struct pd_sample_disk {
			__u32 pid, tid;
			__u64 time;
			__u32 cpu, res;
			__u64 id;
		} s;
	} mmap_rec = {
		.h = { .type = PERF_RECORD_MMAP, .size = sizeof(mmap_rec) },
		.pid = 4242, .tid = 4242, .start = 0x400000, .len = 0x1000,
		.pgoff = 0, .name = "/bin/x",
		.s = { 4242, 4242, 1500, 0, 0, 1000 },
	};

	memcpy(prog.tag, tag7, sizeof(prog.tag));
	btf.data = make_btf(&btf.data_len, &ftype);
	btf.size = btf.data_len;
	finfo[0] = (struct bpf_func_info){ .insn_off = 0, .type_id = ftype };
	finfo[1] = (struct bpf_func_info){ .insn_off = 10, .type_id = ftype };

	err = pd_writer_open(&w, file, &cfg);
	if (err)
		return err;
	/* Written out of time order, as two CPUs' rings drain. */
	s = sample(0, 0);
	s.pid = s.tid = 0;
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 3, NULL, &s);
	s = sample(2000, 1);
	pd_write_comm(w, 4242, 4243, "execsnoop", true, &s);
	s = sample(3000, 1);
	pd_write_ksymbol(w, addr[0], lens[0], PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
			 "bpf_prog_deadbeef01020304_handle_exec", &s);
	s = sample(3001, 1);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 7, tag7, &s);
	s = sample(2500, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_BTF_LOAD, 0, 11, NULL, &s);
	s = sample(2600, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_HASH, 9,
			   NULL, &s);
	pd_write_raw(w, &mmap_rec.h);
	pd_write_finished_round(w);
	s = sample(4000, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_LINK_ATTACH,
			   BPF_LINK_TYPE_PERF_EVENT, 5, NULL, &s);
	s = sample(4100, 1);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 8, NULL, &s);
	s = sample(5000, 1);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_UNLOAD, 0, 8, NULL, &s);
	s = sample(6000, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_LINK_RELEASE,
			   BPF_LINK_TYPE_PERF_EVENT, 5, NULL, &s);
	s = sample(6100, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_FREE, BPF_MAP_TYPE_HASH, 9,
			   NULL, &s);
	s = sample(6200, 0);
	pd_write_bpf_event(w, PERF_BPF_EVENT_BTF_UNLOAD,
			   PERF_BPF_EVENT_FLAG_BTF_KERNEL, 12, NULL, &s);
	s = sample(6300, 1);
	pd_write_ksymbol(w, addr[1], lens[1], PERF_RECORD_KSYMBOL_TYPE_BPF,
			 PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
			 "bpf_prog_cafe000000000001_F", &s);
	if (with_lost) {
		s = sample(6400, 1);
		pd_write_lost(w, ids[1], 17, &s);
	}
	pd_write_finished_round(w);

	pd_writer_add_prog(w, &prog);
	pd_writer_add_prog(w, &synth);
	/* A later fact of the same id replaces the first. */
	unresolved.type = BPF_PROG_TYPE_XDP;
	pd_writer_add_prog(w, &unresolved);
	unresolved.type = 0;
	pd_writer_add_prog(w, &unresolved);
	pd_writer_add_map(w, &map);
	pd_writer_add_link(w, &link);
	pd_writer_add_btf(w, &btf);
	pd_writer_set_capture(w, &cap);
	free(btf.data);
	if (!close_it) {
		*wp = w;
		return 0;
	}
	return pd_writer_close(w);
}

#define NR_REF_RECORDS		16	/* with the LOST record */

static struct pd_reader *open_ok(const char *file)
{
	char err[256] = "";
	struct pd_reader *r = pd_reader_open(file, err, sizeof(err));

	CHECK(r, "open %s%s%s", file, r ? "" : ": ", err);
	return r;
}

static int count_records(struct pd_reader *r, int *ret)
{
	struct pd_record rec;
	int n = 0;

	while ((*ret = pd_reader_next(r, &rec)) > 0)
		n++;
	return n;
}

static void test_roundtrip_records(void)
{
	struct pd_reader *r;
	struct pd_record rec[NR_REF_RECORDS + 1];
	int n = 0, ret;

	CHECK(write_reference(path("ref.data"), true, true, NULL) == 0,
	      "writer produces the reference file");
	r = open_ok(path("ref.data"));
	if (!r)
		return;
	while (n <= NR_REF_RECORDS && (ret = pd_reader_next(r, &rec[n])) > 0) {
		/* Strings live until the next call: check them now. */
		if (rec[n].type == PERF_RECORD_KSYMBOL && n == 2)
			CHECK(!strcmp(rec[n].ksymbol.name,
				      "bpf_prog_deadbeef01020304_handle_exec"),
			      "ksymbol name round trip");
		if (rec[n].type == PERF_RECORD_COMM)
			CHECK(!strcmp(rec[n].comm.comm, "execsnoop") &&
			      rec[n].misc == PERF_RECORD_MISC_COMM_EXEC,
			      "comm name and exec flag round trip");
		if (rec[n].type == PERF_RECORD_MMAP)
			CHECK(!strcmp(rec[n].mmap.filename, "/bin/x") &&
			      rec[n].mmap.start == 0x400000 &&
			      rec[n].sample.time == 1500,
			      "raw mmap record round trip");
		n++;
	}
	CHECK(n == NR_REF_RECORDS + 1, "%d records read (16 + 2 FINISHED_ROUND - ... )", n);
	CHECK(rec[0].type == PERF_RECORD_BPF_EVENT && rec[0].bpf.id == 3 &&
	      rec[0].bpf.type == PERF_BPF_EVENT_PROG_LOAD &&
	      rec[0].sample.time == 0 && rec[0].sample.pid == 0,
	      "synthesised PROG_LOAD 3 first, time 0");
	CHECK(rec[3].type == PERF_RECORD_BPF_EVENT && rec[3].bpf.id == 7 &&
	      !memcmp(rec[3].bpf.tag, tag7, 8) && rec[3].sample.pid == 4242 &&
	      rec[3].sample.tid == 4243 && rec[3].sample.time == 3001 &&
	      rec[3].sample.cpu == 1 && rec[3].sample.id == 1001,
	      "PROG_LOAD 7: tag and every sample_id field");
	CHECK(rec[5].bpf.type == PERF_BPF_EVENT_MAP_CREATE &&
	      rec[5].bpf.flags == BPF_MAP_TYPE_HASH && rec[5].bpf.id == 9,
	      "MAP_CREATE 9 carries the map type in flags");
	CHECK(rec[7].type == 68, "FINISHED_ROUND after the first drain");
	CHECK(rec[8].bpf.type == PERF_BPF_EVENT_LINK_ATTACH &&
	      rec[8].bpf.flags == BPF_LINK_TYPE_PERF_EVENT && rec[8].bpf.id == 5,
	      "LINK_ATTACH 5");
	CHECK(rec[11].bpf.type == PERF_BPF_EVENT_LINK_RELEASE &&
	      rec[12].bpf.type == PERF_BPF_EVENT_MAP_FREE &&
	      rec[13].bpf.type == PERF_BPF_EVENT_BTF_UNLOAD &&
	      rec[13].bpf.flags == PERF_BPF_EVENT_FLAG_BTF_KERNEL &&
	      rec[13].bpf.id == 12,
	      "LINK_RELEASE, MAP_FREE, BTF_UNLOAD (kernel flag) in order");
	CHECK(rec[14].type == PERF_RECORD_KSYMBOL &&
	      rec[14].ksymbol.flags == PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER &&
	      rec[14].ksymbol.addr == 0xffffffffc0002000ULL &&
	      rec[14].ksymbol.len == 48,
	      "KSYMBOL unregister round trip");
	CHECK(rec[15].type == PERF_RECORD_LOST && rec[15].lost.lost == 17 &&
	      rec[15].lost.id == 1001, "LOST 17 round trip");
	CHECK(rec[16].type == 68 && pd_reader_next(r, &rec[0]) == 0,
	      "FINISHED_ROUND last, then end");
	CHECK(!pd_reader_warning(r), "no warning on a finalised file");
	pd_reader_close(r);
}

static void test_roundtrip_header(void)
{
	struct pd_reader *r = open_ok(path("ref.data"));
	const struct pd_file_info *in;
	struct utsname u;

	if (!r)
		return;
	in = pd_reader_info(r);
	uname(&u);
	CHECK(in->finalised, "file is finalised");
	CHECK(in->nr_events == 1 && in->events[0].attr.bpf_event &&
	      in->events[0].attr.ksymbol && in->events[0].attr.sample_id_all &&
	      !pd_attr_bpf_obj_event(&in->events[0].attr) &&
	      in->events[0].attr.sample_type == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					   PERF_SAMPLE_CPU |
					   PERF_SAMPLE_IDENTIFIER),
	      "attr: bpf_event, ksymbol, sample_type; bpf_obj_event not stored (perf 6.1 warns)");
	CHECK(in->hostname && !strcmp(in->hostname, u.nodename),
	      "HOSTNAME is %s", u.nodename);
	CHECK(in->osrelease && !strcmp(in->osrelease, u.release),
	      "OSRELEASE is %s", u.release);
	CHECK(in->arch && !strcmp(in->arch, u.machine), "ARCH is %s", u.machine);
	CHECK(in->version && !strcmp(in->version, "bpfrec-1.2-g0123456789ab"),
	      "VERSION is the writer's: bpfrec-1.2-g0123456789ab");
	CHECK(in->cmdline && !strcmp(in->cmdline, "bpfrec record -e bpf-events"),
	      "CMDLINE round trip");
	CHECK(in->nr_cpus_online == (__u32)sysconf(_SC_NPROCESSORS_ONLN),
	      "NRCPUS online %u", in->nr_cpus_online);
	CHECK(in->total_mem_kb > 0, "TOTAL_MEM %llu kB",
	      (unsigned long long)in->total_mem_kb);
	CHECK(in->first_sample_time == 1500 && in->last_sample_time == 6400,
	      "SAMPLE_TIME 1500..6400 (time 0 of synthesised records ignored)");
	pd_reader_close(r);
}

static void test_roundtrip_facts(void)
{
	struct pd_fact_iter it = {};
	__u32 prog_ids[4];
	int nr = 0;
	struct pd_reader *r = open_ok(path("ref.data"));
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;

	if (!r)
		return;
	while (nr < 4 && pd_reader_next_fact(r, PD_PROG, &it, &prog_ids[nr]))
		nr++;
	CHECK(nr == 3 && prog_ids[0] == 3 && prog_ids[1] == 7 && prog_ids[2] == 8,
	      "3 programs, sorted by id, duplicate dropped");
	p = pd_reader_prog(r, 7);
	CHECK(p && !strcmp(p->name, "handle_exec") &&
	      p->type == BPF_PROG_TYPE_TRACEPOINT && !memcmp(p->tag, tag7, 8) &&
	      p->load_time == 123456789 && p->jited_len == 144 &&
	      p->xlated_len == 200 && p->btf_id == 11 &&
	      p->flags == (PD_F_CAPTURED | PD_F_SYSCALL),
	      "prog 7 scalars");
	CHECK(p && p->origin.pid == 4242 && p->origin.tid == 4243 &&
	      p->origin.uid == 1000 && p->origin.time == 5000 &&
	      !strcmp(p->origin.comm, "execsnoop"), "prog 7 origin");
	CHECK(p && p->nr_map_ids == 2 && p->map_ids[0] == 9 &&
	      p->map_ids[1] == 10, "prog 7 map ids (via perf's BPF_PROG_INFO)");
	CHECK(p && p->nr_ksyms == 2 && p->ksym_addrs[1] == 0xffffffffc0002000ULL &&
	      p->ksym_lens[0] == 96 && p->sub_tags[1][0] == 0xca,
	      "prog 7 sub-programs");
	CHECK(p && p->nr_func_info == 2 && p->func_info[1].insn_off == 10 &&
	      p->nr_line_info == 1 && p->line_info[0].line_col == 7 << 10 &&
	      p->nr_lines == 1,
	      "prog 7 func and line info");
	CHECK(p && p->nr_func_names == 2 && !strcmp(p->func_names[0], "handle_exec") &&
	      !strcmp(p->func_names[1], "helper"), "prog 7 function names");
	p = pd_reader_prog(r, 8);
	CHECK(p && p->flags == PD_F_UNRESOLVED && p->type == 0,
	      "prog 8 unresolved, the later fact won");
	p = pd_reader_prog(r, 3);
	CHECK(p && (p->flags & PD_F_SYNTHESISED), "prog 3 synthesised");
	CHECK(p && p->nr_lines == 42 && p->nr_line_info == 0 && !p->line_info,
	      "prog 3 line count without records (BPFREC)");
	m = pd_reader_map(r, 9);
	CHECK(m && m->type == BPF_MAP_TYPE_HASH && m->key_size == 4 &&
	      m->value_size == 16 && m->max_entries == 1024 &&
	      m->map_flags == BPF_F_NO_PREALLOC && !strcmp(m->name, "events") &&
	      !strcmp(m->origin.comm, "execsnoop"), "map 9");
	l = pd_reader_link(r, 5);
	CHECK(l && l->type == BPF_LINK_TYPE_PERF_EVENT && l->prog_id == 7 &&
	      !strcmp(l->target, "tracepoint syscalls:sys_enter_execve"),
	      "link 5");
	b = pd_reader_btf(r, 11);
	CHECK(b && !b->kernel && !strcmp(b->name, "execsnoop.bpf.o") &&
	      b->data_len == b->size && b->data_len > 24 && b->data,
	      "btf 11 metadata and data");
	CHECK(pd_reader_capture(r) && pd_reader_capture(r)->lost_records == 2 &&
	      pd_reader_capture(r)->lost_facts == 1 && pd_reader_capture(r)->start_time == 900 &&
	      pd_reader_capture(r)->flags == (PD_CAP_BPF_OBJ_EVENT | PD_CAP_KERNEL_CAPTURE),
	      "capture facts");
	CHECK(!pd_reader_map(r, 10) && !pd_reader_prog(r, 1),
	      "unknown ids are not found");
	pd_reader_close(r);
}

static int copy_prefix(const char *from, const char *to, size_t len)
{
	char *buf = malloc(len);
	int in = open(from, O_RDONLY), out;
	ssize_t n = read(in, buf, len);

	close(in);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	n = write(out, buf, n);
	close(out);
	free(buf);
	return n == (ssize_t)len ? 0 : -1;
}

static void test_truncated(void)
{
	struct pd_reader *r;
	const struct pd_file_info *in;
	int n, ret;

	/* Cut 10 bytes into the 9th record (the first LINK_ATTACH). */
	r = open_ok(path("ref.data"));
	if (!r)
		return;
	in = pd_reader_info(r);
	{
		struct pd_record rec;
		__u64 cut = 0;
		int i;

		for (i = 0; i < 9; i++)
			pd_reader_next(r, &rec);
		cut = rec.offset + 10;
		pd_reader_close(r);
		copy_prefix(path("ref.data"), path("cut.data"), cut);
		(void)in;
	}
	r = open_ok(path("cut.data"));
	if (!r)
		return;
	n = count_records(r, &ret);
	CHECK(n == 8 && ret == 0, "cut file: 8 complete records, then end (got %d, %d)",
	      n, ret);
	CHECK(pd_reader_warning(r) &&
	      !strcmp(pd_reader_warning(r), "file cut short: incomplete record at byte 736, records before it were read"),
	      "cut file warns: %s", pd_reader_warning(r) ?: "(none)");
	pd_reader_close(r);
}

/* The state a kill -9 leaves: flushed records, no features. */
static void test_killed(void)
{
	struct pd_writer *w;
	struct pd_reader *r;
	int n, ret;
	char *f = path("killed.data");
	int fd;
	__u64 zero = 0;

	CHECK(write_reference(f, false, false, &w) == 0, "writer left open");
	copy_prefix(f, path("killed-copy.data"), file_size(f));
	r = open_ok(path("killed-copy.data"));
	if (r) {
		n = count_records(r, &ret);
		CHECK(n == 16 && ret == 0, "killed recorder: the 16 flushed records (got %d)", n);
		CHECK(pd_reader_warning(r) &&
		      !strcmp(pd_reader_warning(r),
			      "recording not finished: no header features, records up to the last flush"),
		      "killed recorder warns: %s", pd_reader_warning(r) ?: "(none)");
		CHECK(!pd_reader_info(r)->finalised, "not finalised");
		pd_reader_close(r);
	}
	CHECK(pd_writer_close(w) == 0, "close after copy");

	/* perf killed early leaves data.size 0: read to the end of file. */
	fd = open(path("killed-copy.data"), O_WRONLY);
	CHECK(pwrite(fd, &zero, 8, 48) == 8, "zero data.size like a killed perf");
	close(fd);
	copy_prefix(path("killed-copy.data"), path("killed-cut.data"),
		    file_size(path("killed-copy.data")) - 3);
	r = open_ok(path("killed-cut.data"));
	if (r) {
		n = count_records(r, &ret);
		CHECK(n == 15 && ret == 0,
		      "data.size 0, cut 3 bytes short: 15 complete records (got %d)", n);
		CHECK(pd_reader_warning(r) &&
		      strstr(pd_reader_warning(r), "incomplete record at byte"),
		      "warns: %s", pd_reader_warning(r) ?: "(none)");
		pd_reader_close(r);
	}
}

static void expect_open_error(const void *buf, size_t len, const char *want,
			      const char *what)
{
	char err[256] = "";
	struct pd_reader *r = pd_reader_open_mem(buf, len, err, sizeof(err));

	CHECK(!r && !strcmp(err, want), "%s: \"%s\"", what, err);
	pd_reader_close(r);
}

static void expect_record_error(const void *buf, size_t len, const char *want,
				const char *what)
{
	char err[256] = "";
	struct pd_reader *r = pd_reader_open_mem(buf, len, err, sizeof(err));
	int n, ret;

	if (!CHECK(r, "%s: opens", what))
		return;
	n = count_records(r, &ret);
	CHECK(ret == -EINVAL && !strcmp(pd_reader_error(r), want),
	      "%s after %d records: \"%s\"", what, n, pd_reader_error(r));
	pd_reader_close(r);
}

/* Position of feature @feat in the section table: set bits before it. */
static int feat_index(const __u8 *file, int feat)
{
	__u64 bits[4];
	int i, n = 0;

	memcpy(bits, file + 72, sizeof(bits));
	for (i = 0; i < feat; i++)
		n += !!(bits[i / 64] & (1ULL << (i % 64)));
	return n;
}

static void test_malformed(void)
{
	size_t len;
	__u8 *ref = slurp(path("ref.data"), &len), *b = malloc(len);
	__u64 data_off, v;
	__u16 size;

	memcpy(&data_off, ref + 40, 8);
	expect_open_error("PERFILE", 7, "not a perf.data file (7 bytes)",
			  "7-byte file");
	memcpy(b, ref, len);
	b[0] = 'X';
	expect_open_error(b, len, "not a perf.data file (bad magic)", "bad magic");
	memcpy(b, ref, len);
	v = 0x50455246494c4532ULL;
	memcpy(b, &v, 8);
	expect_open_error(b, len,
			  "perf.data of the other endianness is not supported",
			  "swapped magic");
	memcpy(b, ref, len);
	v = 16;
	memcpy(b + 8, &v, 8);
	expect_open_error(b, len,
			  "pipe-mode perf.data without any event attr",
			  "pipe header, and no HEADER_ATTR record in what follows");
	memcpy(b, ref, len);
	v = 1 << 20;
	memcpy(b + 32, &v, 8);		/* attrs.size */
	expect_open_error(b, len, "malformed attr section (offset 104, size 1048576)",
			  "attr section beyond the file");
	memcpy(b, ref, len);
	v = 12;
	memcpy(b + 16, &v, 8);		/* attr_size */
	expect_open_error(b, len, "unsupported attr size 12", "tiny attr size");
	memcpy(b, ref, 60);
	expect_open_error(b, 60, "truncated file header", "60-byte header");

	/* Record 0 with size 4. */
	memcpy(b, ref, len);
	size = 4;
	memcpy(b + data_off + 6, &size, 2);
	expect_record_error(b, len, "malformed record at byte 264: size below 8",
			    "record size 4");
	/* Record 0 grown past the end of an intact data section. */
	memcpy(b, ref, len);
	size = 0xfff8;
	memcpy(b + data_off + 6, &size, 2);
	expect_record_error(b, len,
			    "malformed record at byte 264: crosses the end of the data section",
			    "record past the data end");
	/* A BPF_EVENT too short for its body and trailer. */
	memcpy(b, ref, len);
	size = 16;
	memcpy(b + data_off + 6, &size, 2);
	expect_record_error(b, len,
			    "malformed record at byte 264: too short for its sample_id",
			    "short BPF_EVENT");

	/* BPFREC feature whose magic is wrong. */
	memcpy(b, ref, len);
	{
		__u64 data_size, feat_off, sec[2];

		memcpy(&data_size, ref + 48, 8);
		feat_off = data_off + data_size;
		memcpy(sec, ref + feat_off + feat_index(ref, 255) * 16, 16);
		b[sec[0]] ^= 0xff;
		expect_open_error(b, len, "malformed feature 255 at byte 8",
				  "BPFREC with a bad magic");
		/* BPF_PROG_INFO with a count far beyond its data. */
		memcpy(b, ref, len);
		memcpy(sec, ref + feat_off + feat_index(ref, 25) * 16, 16);
		v = 1000000;
		memcpy(b + sec[0], &v, 4);
		{
			char err[256];
			struct pd_reader *r = pd_reader_open_mem(b, len, err, sizeof(err));

			CHECK(!r && !strncmp(err, "malformed feature 25 at byte", 28),
			      "BPF_PROG_INFO count overflow: \"%s\"", err);
			pd_reader_close(r);
		}
	}
	free(b);
	free(ref);
}

static void test_script(void)
{
	char ref[256], missing[256];
	char *argv[] = { "script", "-i", ref, NULL, NULL };
	char line[1024];
	int ret;

	snprintf(ref, sizeof(ref), "%s", path("ref.data"));
	snprintf(missing, sizeof(missing), "%s", path("missing.data"));
	ret = run_cmd(cmd_script, 3, argv, path("script.txt"));
	CHECK(ret == 0, "bpfrec script exits 0");
	CHECK(count_lines(path("script.txt"), NULL, NULL, 0) == 12,
	      "script: header + 10 BPF + 1 LOST (no COMM, MMAP, FINISHED_ROUND; the 2 "
	      "KSYMBOL of programs' images folded)");
	count_lines(path("script.txt"), " PROG_LOAD ", line, sizeof(line));
	CHECK(strstr(line, "0.000000 [000]       0/0 -") &&
	      strstr(line, "sd_fw_ingress    cgroup_skb") &&
	      strstr(line, " synthesised lines=42"),
	      "script: synthesised program first: %s", line);
	count_lines(path("script.txt"), "PROG_LOAD         7", line, sizeof(line));
	CHECK(strstr(line, "0.000003 [001] 4242/4243 execsnoop") &&
	      strstr(line, "handle_exec      tracepoint           deadbeef01020304 jited=144 xlated=200 maps=9,10 btf=11 funcs=handle_exec,helper lines=1 uid=1000"),
	      "script: prog 7 line: %s", line);
	CHECK(count_lines(path("script.txt"), "unresolved", NULL, 0) == 3,
	      "script: prog 8 load/unload and btf 12 marked unresolved");
	count_lines(path("script.txt"), "MAP_CREATE", line, sizeof(line));
	CHECK(strstr(line, "events           hash") &&
	      strstr(line, "key=4 value=16 max_entries=1024 flags=0x1 btf=11"),
	      "script: map line: %s", line);
	count_lines(path("script.txt"), "LINK_ATTACH", line, sizeof(line));
	CHECK(strstr(line, "perf_event") &&
	      strstr(line, "prog=7 target=tracepoint syscalls:sys_enter_execve"),
	      "script: link line: %s", line);

	line[0] = 0;
	CHECK(count_lines(path("script.txt"), " \n", line, sizeof(line)) == 0,
	      "script: no line ends in a space: %s", line);

	argv[3] = "--ksymbol";
	CHECK(run_cmd(cmd_script, 4, argv, path("ksym.txt")) == 0 &&
	      count_lines(path("ksym.txt"), " KSYMBOL ", NULL, 0) == 2 &&
	      count_lines(path("ksym.txt"), NULL, NULL, 0) == 14,
	      "script --ksymbol: the 2 KSYMBOL lines too");

	argv[3] = "--json";
	ret = run_cmd(cmd_script, 4, argv, path("script.json"));
	CHECK(ret == 0, "bpfrec script --json exits 0");
	count_lines(path("script.json"), "\"id\":7,", line, sizeof(line));
	CHECK(!strcmp(line, "{\"time\":0.000003,\"time_ns\":3001,\"cpu\":1,\"pid\":4242,\"tid\":4243,\"comm\":\"execsnoop\",\"event\":\"PROG_LOAD\",\"id\":7,\"name\":\"handle_exec\",\"type\":\"tracepoint\",\"tag\":\"deadbeef01020304\",\"details\":{\"jited\":144,\"xlated\":200,\"maps\":\"9,10\",\"btf\":11,\"funcs\":\"handle_exec,helper\",\"lines\":1,\"uid\":1000}}\n"),
	      "json: prog 7 object: %s", line);
	CHECK(count_lines(path("script.json"), "{\"", NULL, 0) == 13,
	      "json: 13 objects");

	argv[2] = missing;
	CHECK(run_cmd(cmd_script, 3, argv, path("x.txt")) == 1,
	      "script on a missing file exits 1");
}

/*
 * Without -i: bpfrec.data, what record writes by default, or perf.data
 * when there is none; the error then names bpfrec.data.
 */
static void test_default_input(void)
{
	char *script[] = { "script", NULL };
	char *report[] = { "report", NULL };
	char cwd[256], line[1024];
	int saved = dup(2), fd;

	if (!getcwd(cwd, sizeof(cwd)) || sh("mkdir %s/dflt", unit_dir()) || chdir(path("dflt"))) {
		CHECK(0, "default input: cannot set up %s", path("dflt"));
		return;
	}
	fd = open(path("dflt.err"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	CHECK(run_cmd(cmd_script, 1, script, path("dflt.txt")) == 1,
	      "script without -i nor files exits 1");
	sh("cp %s/ref.data perf.data", unit_dir());
	CHECK(run_cmd(cmd_script, 1, script, path("dflt.txt")) == 0 &&
	      count_lines(path("dflt.txt"), NULL, NULL, 0) == 12,
	      "script without -i reads perf.data when there is no bpfrec.data");
	CHECK(run_cmd(cmd_report, 1, report, path("dflt.txt")) == 0 &&
	      count_lines(path("dflt.txt"), "# bpfrec report of perf.data", NULL, 0) == 1,
	      "report without -i reads perf.data when there is no bpfrec.data");
	/* not a perf.data: reading it fails, which shows it is the one read */
	sh("echo x > bpfrec.data");
	CHECK(run_cmd(cmd_script, 1, script, path("dflt.txt")) == 1,
	      "script without -i prefers bpfrec.data");
	CHECK(run_cmd(cmd_report, 1, report, path("dflt.txt")) == 1,
	      "report without -i prefers bpfrec.data");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(count_lines(path("dflt.err"), ": bpfrec.data: ", line, sizeof(line)) == 3,
	      "errors name bpfrec.data: %s", line);
	if (chdir(cwd))
		CHECK(0, "default input: back to %s", cwd);
}

static void test_report(void)
{
	char ref[256], line[1024];
	char *argv[] = { "report", "-i", ref, NULL };

	snprintf(ref, sizeof(ref), "%s", path("ref.data"));
	CHECK(run_cmd(cmd_report, 3, argv, path("report.txt")) == 0,
	      "bpfrec report exits 0");
	count_lines(path("report.txt"), "  prog  tracepoint", line, sizeof(line));
	CHECK(strstr(line, "1          0      1            0           0"),
	      "report: tracepoint prog created, alive: %s", line);
	count_lines(path("report.txt"), "  prog  unresolved", line, sizeof(line));
	CHECK(strstr(line, "1          1      0            0           1"),
	      "report: unresolved prog created and destroyed: %s", line);
	count_lines(path("report.txt"), "  link         1 ", line, sizeof(line));
	CHECK(strstr(line, "1       2.0 us       2.0 us       2.0 us"),
	      "report: link lifetime 2 us: %s", line);
	count_lines(path("report.txt"), "Alive at the end", line, sizeof(line));
	CHECK(!strcmp(line, "Alive at the end of the recording: 3\n"),
	      "report: 3 alive (progs 3, 7, btf 11): %s", line);
	count_lines(path("report.txt"), "# lost records", line, sizeof(line));
	CHECK(!strcmp(line, "# lost records: 17 (in 1 LOST records)\n"),
	      "report: lost records: %s", line);
	count_lines(path("report.txt"), "4242 execsnoop", line, sizeof(line));
	CHECK(strstr(line, "      2       1       1       2"),
	      "report: 4242 execsnoop: progs 7, 8, map 9, link 5, btf 11, 12: %s",
	      line);
}

/*
 * The recorder's own objects (PD_F_SELF) round trip and are shown apart;
 * a task named by a COMM record of the recorder's, a name longer than
 * its column, and every column where the header puts it.
 */
#define LONG_SYM "bpf_prog_0123456789abcdef_a_function_name_longer_than_any_column"

static void write_self(const char *file)
{
	struct perf_event_attr attr = test_attr();
	char *argv[] = { "bpfrec" };
	struct pd_event ev = {
		.attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 2,
	};
	struct pd_writer_config cfg = {
		.events = &ev, .nr_events = 1, .argc = 1, .argv = argv,
	};
	const struct pd_origin self = { .pid = 99, .tid = 99, .comm = "bpfrec" };
	const __u32 synth = PD_F_SYNTHESISED | PD_F_SYSCALL;
	__u64 addr = 0xffffffffc0003000ULL;
	__u32 len = 64;
	__u8 sub_tag[1][8] = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct pd_prog own = {
		.id = 20, .flags = synth | PD_F_SELF,
		.type = BPF_PROG_TYPE_TRACING, .name = "prog_load",
		.nr_ksyms = 1, .ksym_addrs = &addr, .ksym_lens = &len,
		.sub_tags = sub_tag, .origin = self,
	};
	struct pd_prog user = {
		.id = 30, .flags = PD_F_CAPTURED, .type = BPF_PROG_TYPE_XDP,
		.name = "xdp_user", .origin = { .pid = 4242, .comm = "loader" },
	};
	struct pd_map own_map = { .id = 21, .flags = synth | PD_F_SELF,
				  .type = BPF_MAP_TYPE_RINGBUF, .name = "events",
				  .origin = self };
	struct pd_map user_map = { .id = 31, .flags = PD_F_CAPTURED,
				   .type = BPF_MAP_TYPE_ARRAY, .name = "counts",
				   .origin = { .pid = 4242, .comm = "loader" } };
	struct pd_link own_link = { .id = 22, .flags = synth | PD_F_SELF,
				    .type = BPF_LINK_TYPE_TRACING, .prog_id = 20,
				    .origin = self };
	struct pd_btf own_btf = { .id = 23, .flags = synth | PD_F_SELF,
				  .origin = self };
	struct pd_sample s = sample(0, 0);
	struct pd_writer *w;

	if (pd_writer_open(&w, file, &cfg))
		return;
	s.pid = s.tid = 0;
	pd_write_ksymbol(w, addr, len, PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
			 "bpf_prog_0102030405060708_prog_load", &s);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 20, NULL, &s);
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_RINGBUF,
			   21, NULL, &s);
	pd_write_bpf_event(w, PERF_BPF_EVENT_LINK_ATTACH, BPF_LINK_TYPE_TRACING,
			   22, NULL, &s);
	pd_write_bpf_event(w, PERF_BPF_EVENT_BTF_LOAD, 0, 23, NULL, &s);
	s = sample(100, 1);
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY,
			   31, NULL, &s);
	pd_write_ksymbol(w, 0xffffffffc0004000ULL, 32,
			 PERF_RECORD_KSYMBOL_TYPE_BPF, 0, LONG_SYM, &s);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 30, NULL, &s);
	/* the map freed by a kworker, named as record does it: 1 ns before */
	s = (struct pd_sample){ .pid = 28, .tid = 28, .time = 200, .id = ids[0] };
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_FREE, BPF_MAP_TYPE_ARRAY, 31,
			   NULL, &s);
	s.time--;
	pd_write_comm(w, 28, 28, "kworker/0:1", false, &s);
	pd_write_finished_round(w);
	pd_writer_add_prog(w, &own);
	pd_writer_add_prog(w, &user);
	pd_writer_add_map(w, &own_map);
	pd_writer_add_map(w, &user_map);
	pd_writer_add_link(w, &own_link);
	pd_writer_add_btf(w, &own_btf);
	pd_writer_close(w);
}

/*
 * Lifetimes are of objects created during the recording: a program that
 * existed at start (synthesised) and was unloaded later has no known
 * creation time, and its "lifetime" would be the time since the start.
 */
static void test_lifetimes(void)
{
	struct perf_event_attr attr = test_attr();
	struct pd_event ev = { .attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 2 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct pd_prog old = { .id = 40, .flags = PD_F_SYNTHESISED | PD_F_SYSCALL,
			       .type = BPF_PROG_TYPE_XDP, .name = "existed" };
	struct pd_prog young = { .id = 41, .flags = PD_F_CAPTURED, .type = BPF_PROG_TYPE_XDP,
				 .name = "young" };
	char file[256], line[1024];
	char *argv[] = { "report", "-i", file, NULL };
	struct pd_writer *w;

	snprintf(file, sizeof(file), "%s", path("lifetimes.data"));
	if (!CHECK(!pd_writer_open(&w, file, &cfg), "lifetimes: file opened"))
		return;
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 40, NULL, &(struct pd_sample){});
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 41, NULL, &(struct pd_sample){
		.pid = 4242, .tid = 4242, .time = 1000, .id = ids[0] });
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_UNLOAD, 0, 41, NULL, &(struct pd_sample){
		.pid = 4242, .tid = 4242, .time = 3000, .id = ids[0] });
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_UNLOAD, 0, 40, NULL, &(struct pd_sample){
		.pid = 4242, .tid = 4242, .time = 9000, .id = ids[0] });
	pd_write_finished_round(w);
	pd_writer_add_prog(w, &old);
	pd_writer_add_prog(w, &young);
	CHECK(!pd_writer_close(w), "lifetimes: written");
	CHECK(run_cmd(cmd_report, 3, argv, path("lifetimes.txt")) == 0, "lifetimes: report exits 0");
	count_lines(path("lifetimes.txt"), "  prog         ", line, sizeof(line));
	CHECK(!strcmp(line, "  prog         1       2.0 us       2.0 us       2.0 us\n"),
	      "lifetimes: only the program born in the recording: %s", line);
}

/*
 * Creating processes: the 20 with the most objects, then one line for
 * the rest.  Process 7 creates 3 programs, processes 1000 to 1024 one
 * each.
 */
static void test_loaders(void)
{
	struct perf_event_attr attr = test_attr();
	struct pd_event ev = { .attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 2 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	struct pd_sample smp = { .time = 1000, .id = ids[0] };
	char file[256], first[1024], last[1024];
	char *argv[] = { "report", "-i", file, NULL };
	struct pd_writer *w;
	__u32 i;

	snprintf(file, sizeof(file), "%s", path("loaders.data"));
	if (!CHECK(!pd_writer_open(&w, file, &cfg), "loaders: file opened"))
		return;
	for (i = 0; i < 28; i++) {
		smp.pid = smp.tid = i < 3 ? 7 : 1000 + i - 3;
		smp.time++;
		pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 100 + i, NULL, &smp);
	}
	pd_write_finished_round(w);
	CHECK(!pd_writer_close(w), "loaders: written");
	CHECK(run_cmd(cmd_report, 3, argv, path("loaders.txt")) == 0, "loaders: report exits 0");
	count_lines(path("loaders.txt"), "        7 -", first, sizeof(first));
	count_lines(path("loaders.txt"), "(6 others)", last, sizeof(last));
	/* a row of the section, not a survivor's line */
	CHECK(count_lines(path("loaders.txt"), "      1000 -                      1", NULL, 0) == 1 &&
	      count_lines(path("loaders.txt"), "      1018 -                      1", NULL, 0) == 1 &&
	      count_lines(path("loaders.txt"), "      1019 -                      1", NULL, 0) == 0 &&
	      !strcmp(first, "         7 -                      3\n") &&
	      !strcmp(last, "         - (6 others)             6\n"),
	      "loaders: 7 first, 1000 to 1018, then 6 others summed, programs alone: %s", first);
	/* a file of programs only has no column of zeros for the other kinds */
	CHECK(count_lines(path("loaders.txt"), "  not recorded: map, link, btf (", NULL, 0) == 1 &&
	      count_lines(path("loaders.txt"), "  map ", NULL, 0) == 0,
	      "loaders: maps, links and BTF said not recorded, no row of them");
}

/* Every line of @file has a column boundary (a space) right before @col. */
static bool aligned(const char *file, size_t col)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	bool ok = !!f;

	while (ok && fgets(line, sizeof(line), f))
		ok = strlen(line) > col && line[col - 1] == ' ' && line[col] != ' ';
	if (f)
		fclose(f);
	return ok;
}

static void test_self_and_names(void)
{
	char file[256], line[1024];
	char *argv[] = { "script", "-i", file, "--ksymbol", "--width=0", NULL };
	struct pd_reader *r;
	const struct pd_prog *p;
	size_t tag_col;

	snprintf(file, sizeof(file), "%s", path("self.data"));
	write_self(file);
	r = open_ok(file);
	if (!r)
		return;
	p = pd_reader_prog(r, 20);
	CHECK(p && (p->flags & PD_F_SELF) && p->origin.pid == 99 &&
	      !strcmp(p->origin.comm, "bpfrec") &&
	      (p = pd_reader_prog(r, 30)) && !(p->flags & PD_F_SELF),
	      "self: prog 20 is the recorder's, prog 30 is not");
	CHECK(pd_reader_map(r, 21) && (pd_reader_map(r, 21)->flags & PD_F_SELF) &&
	      pd_reader_link(r, 22) && (pd_reader_link(r, 22)->flags & PD_F_SELF) &&
	      pd_reader_btf(r, 23) && (pd_reader_btf(r, 23)->flags & PD_F_SELF) &&
	      !(pd_reader_map(r, 31)->flags & PD_F_SELF),
	      "self: map 21, link 22, btf 23 are the recorder's, map 31 is not");
	pd_reader_close(r);

	/* the images shown, the columns as wide as the file needs */
	CHECK(run_cmd(cmd_script, 5, argv, path("self.txt")) == 0,
	      "self: script exits 0");
	CHECK(count_lines(path("self.txt"), "bpfrec (self)    ", NULL, 0) == 5,
	      "self: the recorder's 4 objects and its program's KSYMBOL shown as bpfrec (self)");
	CHECK(count_lines(path("self.txt"), " self", NULL, 0) == 5,
	      "self: and marked self in their details");
	count_lines(path("self.txt"), " PROG_LOAD ", line, sizeof(line));
	CHECK(strstr(line, "0/0 bpfrec (self)    PROG_LOAD        20 prog_load") &&
	      strstr(line, " synthesised uid=0 self\n"),
	      "self: prog 20 line: %s", line);
	count_lines(path("self.txt"), "MAP_FREE", line, sizeof(line));
	CHECK(strstr(line, "28/28 kworker/0:1      MAP_FREE         31 counts "),
	      "names: the kworker named by its COMM record: %s", line);
	count_lines(path("self.txt"), "0123456789abcdef", line, sizeof(line));
	CHECK(strstr(line, " KSYMBOL           - bpf_prog_0123456789abcdef_a_function_name_longer_than_any_column bpf "),
	      "script: a long name is whole into a file, within 160 columns: %s", line);
	count_lines(path("self.txt"), "#", line, sizeof(line));
	tag_col = strstr(line, "TAG") ? (size_t)(strstr(line, "TAG") - line) : 0;
	CHECK(tag_col && aligned(path("self.txt"), tag_col) &&
	      aligned(path("self.txt"), strstr(line, "TYPE") - line),
	      "script: TYPE and TAG columns aligned on every line");

	argv[3] = "--json";
	CHECK(run_cmd(cmd_script, 4, argv, path("self.json")) == 0,
	      "self: script --json exits 0");
	count_lines(path("self.json"), "\"id\":20,", line, sizeof(line));
	CHECK(!strcmp(line, "{\"time\":0.000000,\"time_ns\":0,\"cpu\":0,\"pid\":0,\"tid\":0,\"event\":\"PROG_LOAD\",\"id\":20,\"name\":\"prog_load\",\"type\":\"tracing\",\"details\":{\"synthesised\":true,\"uid\":0,\"self\":true}}\n"),
	      "self: json of prog 20: %s", line);

	argv[0] = "report";
	CHECK(run_cmd(cmd_report, 3, argv, path("self-report.txt")) == 0,
	      "self: report exits 0");
	CHECK(count_lines(path("self-report.txt"), "  prog  tracing", NULL, 0) == 0 &&
	      count_lines(path("self-report.txt"), "  map   ringbuf", NULL, 0) == 0 &&
	      count_lines(path("self-report.txt"), "  prog  xdp", NULL, 0) == 1,
	      "self: report counts only the user's objects by type");
	CHECK(count_lines(path("self-report.txt"), "  bpfrec (self) not counted: 1 prog, 1 map, 1 link, 1 btf\n", NULL, 0) == 1,
	      "self: report says what it did not count");
	count_lines(path("self-report.txt"), " 99 bpfrec (self) ", line, sizeof(line));
	CHECK(!strcmp(line, "        99 bpfrec (self)          1       1       1       1\n"),
	      "self: report: the recorder as creating process: %s", line);
	count_lines(path("self-report.txt"), "Alive at the end", line, sizeof(line));
	CHECK(!strcmp(line, "Alive at the end of the recording: 1\n"),
	      "self: report: 1 alive of the user's: %s", line);
	CHECK(count_lines(path("self-report.txt"), "  bpfrec (self) also alive: 1 prog, 1 map, 1 link, 1 btf\n", NULL, 0) == 1 &&
	      count_lines(path("self-report.txt"), "  prog        30 xdp_user", NULL, 0) == 1 &&
	      count_lines(path("self-report.txt"), "  prog        20 ", NULL, 0) == 0,
	      "self: report lists the user's survivor, counts the recorder's apart");
}

static void test_json_escape(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_write_string(f, "a\"b\\c\n\x01\xff\xc3\xa9");
	fclose(f);
	CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\""),
	      "json escapes quotes, controls, invalid UTF-8: %s", buf);
	free(buf);
}

static void test_perf_reads_ours(void)
{
	char line[1024];
	int n;

	if (!have_perf("perf script/report read our file"))
		return;
	CHECK(write_reference(path("perf.data"), false, true, NULL) == 0,
	      "reference file without LOST for perf");
	n = sh("/usr/bin/perf script --show-bpf-events -i %s >%s 2>%s",
	       path("perf.data"), path("perf-script.out"), path("perf-script.err"));
	CHECK(n == 0, "perf script exits 0");
	CHECK(count_lines(path("perf-script.out"), "PERF_RECORD_BPF_EVENT", NULL, 0) == 10,
	      "perf script prints all 10 BPF_EVENT records (types 1..8)");
	CHECK(count_lines(path("perf-script.out"), "PERF_RECORD_KSYMBOL", NULL, 0) == 2,
	      "perf script prints both KSYMBOL records");
	count_lines(path("perf-script.out"), "type 7, flags 0, id 11", line, sizeof(line));
	CHECK(strstr(line, "execsnoop  4243 [000]     0.000002: PERF_RECORD_BPF_EVENT"),
	      "perf script: BTF_LOAD line: %s", line);
	CHECK(count_lines(path("perf-script.err"), NULL, NULL, 0) == 0,
	      "perf script: nothing on stderr");

	n = sh("/usr/bin/perf report --header-only -i %s >%s 2>%s",
	       path("perf.data"), path("perf-header.out"), path("perf-header.err"));
	CHECK(n == 0, "perf report --header-only exits 0");
	CHECK(count_lines(path("perf-header.out"), "# bpf_prog_info 7:", NULL, 0) == 1,
	      "perf shows bpf_prog_info 7");
	count_lines(path("perf-header.out"), "sub_prog 0:", line, sizeof(line));
	CHECK(!strcmp(line, "# \tsub_prog 0: bpf_prog_deadbeef01020304_handle_exec addr 0xffffffffc0001000 size 96\n"),
	      "perf names sub_prog 0 from our BTF: %s", line);
	CHECK(count_lines(path("perf-header.out"), "# bpf_prog_info 3: bpf_prog_0000000000000000_sd_fw_ingress", NULL, 0) == 0 &&
	      count_lines(path("perf-header.out"), "# bpf_prog_info 3:", NULL, 0) == 1,
	      "perf shows bpf_prog_info 3 (no sub-programs known)");
	CHECK(count_lines(path("perf-header.out"), "# btf info of id 11", NULL, 0) == 1,
	      "perf shows btf info of id 11");
	CHECK(count_lines(path("perf-header.out"), "# hostname :", NULL, 0) == 1 &&
	      count_lines(path("perf-header.out"), "# cmdline : bpfrec record -e bpf-events", NULL, 0) == 1,
	      "perf shows hostname and cmdline");
	CHECK(count_lines(path("perf-header.err"), NULL, NULL, 0) == 0,
	      "perf report --header-only: nothing on stderr");
}

int main(void)
{
	unit_setup();
	test_roundtrip_records();
	test_roundtrip_header();
	test_roundtrip_facts();
	test_truncated();
	test_killed();
	test_malformed();
	test_script();
	test_default_input();
	test_report();
	test_self_and_names();
	test_lifetimes();
	test_loaders();
	test_json_escape();
	test_perf_reads_ours();
	return unit_done();
}
