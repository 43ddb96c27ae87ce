// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the descriptions object records carry (kernel series v2):
 * each one written and read back field by field, with a sample_id after
 * it; a longer one of a later kernel, none, one cut short, a name
 * without its NUL; the kinds of the ten record types; the repair of
 * stock kernels' oversized records leaving them alone; the target of each
 * link type, as script and report name it; and what script and report
 * show of them, line by line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "tests/unit/unit.h"
#include "util/bpf_desc.h"
#include "util/perf_data/oversized.h"

static const __u64 ids[1] = { 31 };

static struct pd_sample at(__u32 pid, __u64 time)
{
	return (struct pd_sample){ .pid = pid, .tid = pid, .cpu = 1, .time = time, .id = ids[0] };
}

static struct pd_bpf_event map_event(__u16 type, __u32 id, const char *name)
{
	struct pd_bpf_event e = { .type = type, .flags = BPF_MAP_TYPE_HASH, .id = id };

	e.desc.map = (struct perf_bpf_event_map){
		.map_type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8,
		.max_entries = 1024, .map_flags = BPF_F_NO_PREALLOC, .btf_id = 77,
	};
	snprintf(e.desc.map.name, sizeof(e.desc.map.name), "%s", name);
	return e;
}

static struct pd_bpf_event link_event(__u16 type, __u32 id, __u32 prog, __u32 old_prog)
{
	struct pd_bpf_event e = { .type = type, .flags = BPF_LINK_TYPE_CGROUP, .id = id };

	e.desc.link = (struct perf_bpf_event_link){
		.prog_id = prog, .attach_type = BPF_CGROUP_INET_INGRESS, .old_prog_id = old_prog,
	};
	return e;
}

static struct pd_bpf_event btf_event(__u16 type, __u32 id, __u16 flags, __u32 size,
				     const char *module)
{
	struct pd_bpf_event e = { .type = type, .flags = flags, .id = id };

	e.desc.btf.size = size;
	snprintf(e.desc.btf.name, sizeof(e.desc.btf.name), "%s", module);
	return e;
}

/*
 * A record built by hand: header, fixed body, @desc_len bytes of @desc,
 * then the side-band event's sample_id (pid/tid 300, time 5, cpu 1).
 */
static void raw_record(struct pd_writer *w, __u16 type, __u32 id, const void *desc,
		       size_t desc_len)
{
	__u64 buf[64] = { 0 };
	struct perf_event_header *h = (void *)buf;
	__u8 *p = (__u8 *)(h + 1);
	__u32 pid_tid[2] = { 300, 300 };
	__u64 time = 5, cpu = 1;

	memcpy(p, &type, 2);
	memcpy(p + 4, &id, 4);
	p += PD_BPF_EVENT_FIXED;
	if (desc_len)
		memcpy(p, desc, desc_len);
	p += desc_len;
	memcpy(p, pid_tid, 8);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, &cpu, 8);
	memcpy(p + 24, &ids[0], 8);
	h->type = PERF_RECORD_BPF_EVENT;
	h->size = p + 32 - (__u8 *)buf;
	pd_write_raw(w, h);
}

/* The BPF_EVENT records of @file, in order, into @out (at most @max). */
static int read_events(const char *file, struct pd_bpf_event *out, struct pd_sample *s, int max)
{
	struct pd_reader *r;
	struct pd_record rec;
	char err[256];
	int n = 0;

	r = pd_reader_open(file, err, sizeof(err));
	if (!r)
		return -1;
	while (n < max && pd_reader_next(r, &rec) > 0) {
		if (rec.type != PERF_RECORD_BPF_EVENT)
			continue;
		s[n] = rec.sample;
		out[n++] = rec.bpf;
	}
	pd_reader_close(r);
	return n;
}

static void test_codec(void)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_writer *w = one_event_writer(path("codec.data"), &attr, ids, 1);
	struct pd_bpf_event e[8], m = map_event(PERF_BPF_EVENT_MAP_CREATE, 9, "counts");
	struct pd_bpf_event l = link_event(PERF_BPF_EVENT_LINK_UPDATE, 5, 41, 40);
	struct pd_bpf_event b = btf_event(PERF_BPF_EVENT_BTF_LOAD, 12,
					  PERF_BPF_EVENT_FLAG_BTF_KERNEL |
					  PERF_BPF_EVENT_FLAG_BTF_MODULE, 4096, "nf_tables");
	struct pd_sample s[8], at1 = at(100, 10);
	int n;

	if (!CHECK(w, "codec: writer"))
		return;
	l.desc.link.target.cgroup_id = 4221;
	pd_write_bpf_object(w, &m, &at1);
	pd_write_bpf_object(w, &l, &at1);
	pd_write_bpf_object(w, &b, &at1);
	pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 7, NULL, &at1);
	pd_writer_close(w);
	n = read_events(path("codec.data"), e, s, 8);
	if (!CHECK(n == 4, "codec: 4 records read back (%d)", n))
		return;
	CHECK(e[0].type == PERF_BPF_EVENT_MAP_CREATE && e[0].id == 9 && e[0].described &&
	      e[0].desc_len == 40 && e[0].desc.map.map_type == BPF_MAP_TYPE_HASH &&
	      e[0].desc.map.key_size == 4 && e[0].desc.map.value_size == 8 &&
	      e[0].desc.map.max_entries == 1024 && e[0].desc.map.map_flags == BPF_F_NO_PREALLOC &&
	      e[0].desc.map.btf_id == 77 && !strcmp(e[0].desc.map.name, "counts") &&
	      s[0].pid == 100 && s[0].time == 10 && s[0].cpu == 1,
	      "codec: map: 40 bytes, every field, the sample_id after it");
	CHECK(e[1].type == PERF_BPF_EVENT_LINK_UPDATE && e[1].flags == BPF_LINK_TYPE_CGROUP &&
	      e[1].described && e[1].desc_len == 32 && e[1].desc.link.prog_id == 41 &&
	      e[1].desc.link.attach_type == BPF_CGROUP_INET_INGRESS &&
	      e[1].desc.link.old_prog_id == 40 && pd_bpf_link_has_target(&e[1]) &&
	      e[1].desc.link.target.cgroup_id == 4221 && s[1].time == 10,
	      "codec: link: 32 bytes, prog 41 replacing 40, cgroup ingress, cgroup 4221");
	CHECK(e[2].type == PERF_BPF_EVENT_BTF_LOAD && e[2].flags == 3 && e[2].described &&
	      e[2].desc_len == 72 && e[2].desc.btf.size == 4096 &&
	      !strcmp(e[2].desc.btf.name, "nf_tables") && s[2].time == 10,
	      "codec: btf: 72 bytes, size and module name");
	CHECK(e[3].type == PERF_BPF_EVENT_PROG_LOAD && !e[3].described && e[3].desc_len == 0,
	      "codec: a program record has no description");
}

/* What a kernel may write: none, cut short, longer, a name filling its room. */
static void test_lengths(void)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_writer *w = one_event_writer(path("len.data"), &attr, ids, 1);
	struct pd_bpf_event e[8], m = map_event(PERF_BPF_EVENT_MAP_CREATE, 9, "counts");
	struct pd_sample s[8];
	struct pd_bpf_event l = link_event(PERF_BPF_EVENT_LINK_ATTACH, 6, 41, 0);
	__u8 longer[56];
	int n;

	l.desc.link.target.cgroup_id = 4221;
	if (!CHECK(w, "lengths: writer"))
		return;
	/* a kernel of series v1: the record ends at the tag */
	raw_record(w, PERF_BPF_EVENT_MAP_CREATE, 1, NULL, 0);
	/* cut short: 24 of the 40 bytes */
	raw_record(w, PERF_BPF_EVENT_MAP_CREATE, 2, &m.desc.map, 24);
	/* a later kernel: 16 bytes of fields this reader does not know */
	memcpy(longer, &m.desc.map, 40);
	memset(longer + 40, 0xee, 16);
	raw_record(w, PERF_BPF_EVENT_MAP_CREATE, 3, longer, sizeof(longer));
	/* 16 characters and no NUL */
	memset(m.desc.map.name, 'A', sizeof(m.desc.map.name));
	raw_record(w, PERF_BPF_EVENT_MAP_CREATE, 4, &m.desc.map, 40);
	/* a link's description cut at 8 of 16 bytes */
	raw_record(w, PERF_BPF_EVENT_LINK_ATTACH, 5, &m.desc.map, 8);
	/* series v2 and its backports: no target; then cut inside the target; then whole */
	raw_record(w, PERF_BPF_EVENT_LINK_ATTACH, 6, &l.desc.link, 16);
	raw_record(w, PERF_BPF_EVENT_LINK_ATTACH, 6, &l.desc.link, 24);
	raw_record(w, PERF_BPF_EVENT_LINK_ATTACH, 6, &l.desc.link, 32);
	pd_writer_close(w);
	n = read_events(path("len.data"), e, s, 8);
	if (!CHECK(n == 8, "lengths: 8 records read back (%d)", n))
		return;
	CHECK(!e[0].described && e[0].desc_len == 0 && e[0].id == 1 && s[0].pid == 300 &&
	      s[0].time == 5, "lengths: none: not described, sample_id read");
	CHECK(!e[1].described && e[1].desc_len == 24 && !e[1].desc.map.key_size &&
	      !e[1].desc.map.map_type && s[1].time == 5,
	      "lengths: cut short: taken as none, nothing of it used (%u)", e[1].desc_len);
	CHECK(e[2].described && e[2].desc_len == 56 && e[2].desc.map.max_entries == 1024 &&
	      !strcmp(e[2].desc.map.name, "counts") && s[2].pid == 300 && s[2].time == 5,
	      "lengths: longer: the known fields, the rest skipped, sample_id right");
	CHECK(e[3].described && strlen(e[3].desc.map.name) == 15,
	      "lengths: a name without NUL ends at 15 characters");
	CHECK(!e[4].described && e[4].desc_len == 8 && !e[4].desc.link.prog_id,
	      "lengths: a link's cut short: taken as none");
	CHECK(e[5].described && e[5].desc.link.prog_id == 41 && !pd_bpf_link_has_target(&e[5]) &&
	      !e[5].desc.link.target.cgroup_id,
	      "lengths: a link's without its target (16 bytes): described, no target");
	CHECK(e[6].described && e[6].desc.link.prog_id == 41 && !pd_bpf_link_has_target(&e[6]) &&
	      !e[6].desc.link.target.cgroup_id,
	      "lengths: a link's cut inside its target (24 bytes): described, no target");
	CHECK(e[7].described && pd_bpf_link_has_target(&e[7]) &&
	      e[7].desc.link.target.cgroup_id == 4221,
	      "lengths: a link's with its target (32 bytes): cgroup 4221");
}

/* What script and report name as each link type's target: what it is attached to. */
static void test_targets(void)
{
	static const struct {
		__u32 link_type;
		union perf_bpf_event_link_target t;
		const char *want;
	} cases[] = {
		{ 3, { .cgroup_id = 4221 }, "cgroup 4221" },		/* CGROUP */
		{ 5, { .netns_ino = 4026531840U }, "netns 4026531840" },	/* NETNS */
		{ 6, { .ifindex = 3 }, "ifindex 3" },			/* XDP */
		{ 11, { .ifindex = 4 }, "ifindex 4" },			/* TCX */
		{ 13, { .ifindex = 5 }, "ifindex 5" },			/* NETKIT */
		{ 2, { .tracing = { .obj_id = 1, .btf_id = 75000 } }, "btf_id 75000 obj 1" },
		{ 9, { .map_id = 12 }, "map 12" },			/* STRUCT_OPS */
		{ 14, { .map_id = 13 }, "map 13" },			/* SOCKMAP */
		{ 10, { .netfilter = { .pf = 2, .hooknum = 1, .priority = -100, .flags = 1 } },
		  "netfilter pf 2 hook 1 priority -100 defrag" },	/* NETFILTER */
		/* a detached link's records name nothing */
		{ 14, { .map_id = 0 }, "" },
		/* raw tracepoint, iterator, perf_event links: the kernel names nothing */
		{ 1, { .map_id = 7 }, "" },
		{ 4, { .map_id = 7 }, "" },
		{ 7, { .map_id = 7 }, "" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool named = link_target_name(cases[i].link_type, &cases[i].t, buf, sizeof(buf));

		CHECK(named == !!cases[i].want[0] && !strcmp(buf, cases[i].want),
		      "targets: link type %u: '%s' (want '%s')", cases[i].link_type, buf,
		      cases[i].want);
	}
}

static void test_kinds(void)
{
	static const struct {
		__u16 type;
		enum pd_kind kind;
		enum pd_bpf_change change;
		const char *name;
	} want[] = {
		{ 1, PD_PROG, PD_BPF_CREATE, "PROG_LOAD" },
		{ 2, PD_PROG, PD_BPF_RELEASE, "PROG_UNLOAD" },
		{ 3, PD_MAP, PD_BPF_CREATE, "MAP_CREATE" },
		{ 4, PD_MAP, PD_BPF_RELEASE, "MAP_FREE" },
		{ 5, PD_LINK, PD_BPF_CREATE, "LINK_ATTACH" },
		{ 6, PD_LINK, PD_BPF_RELEASE, "LINK_RELEASE" },
		{ 7, PD_BTF, PD_BPF_CREATE, "BTF_LOAD" },
		{ 8, PD_BTF, PD_BPF_RELEASE, "BTF_UNLOAD" },
		{ 9, PD_LINK, PD_BPF_CHANGE, "LINK_DETACH" },
		{ 10, PD_LINK, PD_BPF_CHANGE, "LINK_UPDATE" },
	};
	enum pd_bpf_change change;
	enum pd_kind kind;
	size_t i, good = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		good += pd_bpf_event_kind(want[i].type, &kind, &change) &&
			kind == want[i].kind && change == want[i].change &&
			!strcmp(pd_bpf_event_name(want[i].type), want[i].name);
	CHECK(good == 10, "kinds: types 1..10, their kind, change and name (%zu)", good);
	CHECK(!pd_bpf_event_kind(0, &kind, &change) && !pd_bpf_event_kind(11, &kind, &change) &&
	      !pd_bpf_event_name(11), "kinds: 0 and 11 are not known");
	CHECK(pd_bpf_desc_size(PERF_BPF_EVENT_MAP_FREE) == 40 &&
	      pd_bpf_desc_size(PERF_BPF_EVENT_LINK_DETACH) == 32 &&
	      pd_bpf_desc_size(PERF_BPF_EVENT_BTF_UNLOAD) == 72 &&
	      !pd_bpf_desc_size(PERF_BPF_EVENT_PROG_LOAD),
	      "kinds: description sizes 40, 32, 72, none for programs");
}

/*
 * A stock kernel oversizes program records only: an object record's
 * size is its description's, never cut by the repair.
 */
static void test_not_repaired(void)
{
	struct perf_event_attr attr = sideband_attr();
	__u64 buf[32] = { 0 }, fixed[PD_REPAIR_MAX / 8];
	struct perf_event_header *h = (void *)buf;
	__u16 type = PERF_BPF_EVENT_MAP_CREATE;

	h->type = PERF_RECORD_BPF_EVENT;
	h->size = sizeof(*h) + PD_BPF_EVENT_FIXED + 40 + pd_sample_id_size(&attr);
	memcpy(h + 1, &type, 2);
	CHECK(pd_true_size(&attr, h) == h->size && !pd_repair(&attr, h, fixed),
	      "repair: a described MAP_CREATE of %u bytes is left whole", h->size);
	type = PERF_BPF_EVENT_PROG_LOAD;
	memcpy(h + 1, &type, 2);
	CHECK(pd_true_size(&attr, h) == sizeof(*h) + PD_BPF_EVENT_FIXED + pd_sample_id_size(&attr),
	      "repair: a PROG_LOAD of that size is still cut to its true size");
}

/* ---- script and report ------------------------------------------------ */

static char file[256];

/*
 * pid 100 "loader": map 9 "counts" (created 1000, freed 5000), map 10
 * "counts" (2000-2500), map 11 "other" (2100-2200); cgroup link 5 of
 * prog 40 attached, updated to 41 with BPF_F_REPLACE, to 42 without,
 * detached, released; a raw_tp link; module, vmlinux and user BTF; a map of a kernel
 * without descriptions, whose facts name it.
 */
static void write_file(void)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_writer *w = one_event_writer(file, &attr, ids, 1);
	struct pd_map facts = { .id = 20, .flags = PD_F_SYSCALL, .type = BPF_MAP_TYPE_ARRAY,
				.key_size = 4, .value_size = 4, .max_entries = 1, .name = "old_kernel" };
	struct pd_bpf_event e;
	struct pd_sample s;

	if (!w)
		return;
	s = at(100, 500);
	pd_write_comm(w, 100, 100, "loader", false, &s);
	pd_writer_add_map(w, &facts);
	s = at(100, 1000);
	e = map_event(PERF_BPF_EVENT_MAP_CREATE, 9, "counts");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 1100);
	e = link_event(PERF_BPF_EVENT_LINK_ATTACH, 5, 40, 0);
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 1200);
	e = link_event(PERF_BPF_EVENT_LINK_UPDATE, 5, 41, 40);
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 1300);
	e = link_event(PERF_BPF_EVENT_LINK_UPDATE, 5, 42, 0);
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 1400);
	/* a kernel with link targets names what the link was detached from */
	e = link_event(PERF_BPF_EVENT_LINK_DETACH, 5, 42, 0);
	e.desc.link.target.cgroup_id = 4221;
	pd_write_bpf_object(w, &e, &s);
	/* a raw_tp program's expected attach type (0) says nothing */
	s = at(100, 1500);
	e = link_event(PERF_BPF_EVENT_LINK_ATTACH, 6, 50, 0);
	e.flags = BPF_LINK_TYPE_RAW_TRACEPOINT;
	e.desc.link.attach_type = 0;
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 2000);
	e = map_event(PERF_BPF_EVENT_MAP_CREATE, 10, "counts");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 2100);
	e = map_event(PERF_BPF_EVENT_MAP_CREATE, 11, "other");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 2200);
	e = map_event(PERF_BPF_EVENT_MAP_FREE, 11, "other");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 2500);
	e = map_event(PERF_BPF_EVENT_MAP_FREE, 10, "counts");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 3000);
	e = btf_event(PERF_BPF_EVENT_BTF_LOAD, 12, PERF_BPF_EVENT_FLAG_BTF_KERNEL |
		      PERF_BPF_EVENT_FLAG_BTF_MODULE, 4096, "nf_tables");
	pd_write_bpf_object(w, &e, &s);
	e = btf_event(PERF_BPF_EVENT_BTF_LOAD, 1, PERF_BPF_EVENT_FLAG_BTF_KERNEL, 5000000, "");
	pd_write_bpf_object(w, &e, &s);
	e = btf_event(PERF_BPF_EVENT_BTF_LOAD, 13, 0, 300, "");
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 3100);
	pd_write_bpf_event(w, PERF_BPF_EVENT_MAP_CREATE, BPF_MAP_TYPE_ARRAY, 20, NULL, &s);
	s = at(100, 4000);
	e = link_event(PERF_BPF_EVENT_LINK_RELEASE, 5, 42, 0);
	pd_write_bpf_object(w, &e, &s);
	s = at(100, 5000);
	e = map_event(PERF_BPF_EVENT_MAP_FREE, 9, "counts");
	pd_write_bpf_object(w, &e, &s);
	pd_writer_close(w);
}

static int run(int (*fn)(int, char **), const char *out, const char *a1, const char *a2)
{
	char *argv[] = { "cmd", "-i", file, (char *)a1, (char *)a2, NULL };

	return run_cmd(fn, 3 + !!a1 + !!a2, argv, path(out));
}

/* Whether @out has exactly the line @want. */
static bool has_line(const char *out, const char *want)
{
	char line[1024];
	FILE *f = fopen(path(out), "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strcmp(line, want);
	}
	if (f)
		fclose(f);
	return found;
}

#define LINE(out, want) CHECK(has_line(out, want), "%s: %s", out, want)

static void test_script(void)
{
	CHECK(run(cmd_script, "s.txt", NULL, NULL) == 0, "script exits 0");
	LINE("s.txt", "0.000001 [001] 100/100 loader           MAP_CREATE        9 counts           hash                 -                key=4 value=8 max_entries=1024 flags=0x1 btf=77");
	LINE("s.txt", "0.000001 [001] 100/100 loader           LINK_ATTACH       5 -                cgroup               -                prog=40 attach=cgroup_inet_ingress");
	LINE("s.txt", "0.000001 [001] 100/100 loader           LINK_UPDATE       5 -                cgroup               -                old_prog=40 prog=41 replace attach=cgroup_inet_ingress");
	/* without BPF_F_REPLACE: the old program from the link's previous record */
	LINE("s.txt", "0.000001 [001] 100/100 loader           LINK_UPDATE       5 -                cgroup               -                old_prog=41 prog=42 attach=cgroup_inet_ingress");
	LINE("s.txt", "0.000001 [001] 100/100 loader           LINK_DETACH       5 -                cgroup               -                prog=42 attach=cgroup_inet_ingress target=cgroup 4221");
	LINE("s.txt", "0.000001 [001] 100/100 loader           LINK_ATTACH       6 -                raw_tracepoint       -                prog=50");
	LINE("s.txt", "0.000004 [001] 100/100 loader           LINK_RELEASE      5 -                cgroup               -                prog=42 attach=cgroup_inet_ingress");
	LINE("s.txt", "0.000002 [001] 100/100 loader           MAP_FREE         11 other            hash                 -");
	LINE("s.txt", "0.000003 [001] 100/100 loader           BTF_LOAD         12 nf_tables        -                    -                module size=4096");
	LINE("s.txt", "0.000003 [001] 100/100 loader           BTF_LOAD          1 vmlinux          -                    -                kernel size=5000000");
	LINE("s.txt", "0.000003 [001] 100/100 loader           BTF_LOAD         13 -                -                    -                user size=300");
	LINE("s.txt", "0.000003 [001] 100/100 loader           MAP_CREATE       20 old_kernel       array                -                key=4 value=4 max_entries=1 flags=0x0");
	CHECK(run(cmd_script, "s.json", "--json", NULL) == 0, "script --json exits 0");
	CHECK(count_lines(path("s.json"), "\"event\":\"LINK_DETACH\",", NULL, 0) == 1 &&
	      count_lines(path("s.json"), "\"attach\":\"cgroup_inet_ingress\",\"target\":\"cgroup 4221\"", NULL, 0) == 1,
	      "script --json: the detach names its cgroup, from the record");
	CHECK(count_lines(path("s.json"), "\"event\":\"LINK_UPDATE\"", NULL, 0) == 2 &&
	      count_lines(path("s.json"), "\"old_prog\":40,\"prog\":41,\"replace\":true,\"attach\":\"cgroup_inet_ingress\"", NULL, 0) == 1 &&
	      count_lines(path("s.json"), "\"old_prog\":41,\"prog\":42,", NULL, 0) == 1 &&
	      count_lines(path("s.json"), "\"key\":4,\"value\":8,\"max_entries\":1024,", NULL, 0) == 3 &&
	      count_lines(path("s.json"), "\"module\":true,\"size\":4096", NULL, 0) == 1,
	      "script --json: the description's fields by name");
	CHECK(run(cmd_script, "k.txt", "--kinds", "link") == 0 &&
	      count_lines(path("k.txt"), NULL, NULL, 0) == 7 &&
	      count_lines(path("k.txt"), " LINK_", NULL, 0) == 6,
	      "script --kinds link: the header, 2 ATTACH, 2 UPDATE, DETACH, RELEASE");
	CHECK(run(cmd_script, "k2.txt", "--kinds", "btf") == 0 &&
	      count_lines(path("k2.txt"), " BTF_LOAD ", NULL, 0) == 3,
	      "script --kinds btf: the 3 BTF lines");
}

static void test_report(void)
{
	CHECK(run(cmd_report, "r.txt", NULL, NULL) == 0, "report exits 0");
	/* described: resolved without facts */
	LINE("r.txt", "  map   hash                            3          3      0            0           0");
	LINE("r.txt", "  link  cgroup                          1          1      0            0           0");
	LINE("r.txt", "  btf   module                          1          0      1            0           0");
	LINE("r.txt", "  btf         12 nf_tables        module                   100 loader");
	LINE("r.txt", "  btf          1 vmlinux          kernel                   100 loader");
	LINE("r.txt", "  link         1       2.9 us       2.9 us       2.9 us");
	LINE("r.txt", "  map          3       100 ns       500 ns       4.0 us");
	LINE("r.txt", "Map lifetimes by name:");
	LINE("r.txt", "  counts                  2       500 ns       2.2 us       4.0 us");
	LINE("r.txt", "  other                   1       100 ns       100 ns       100 ns");
	LINE("r.txt", "Links detached and updated, by link type:");
	LINE("r.txt", "  cgroup                          1        2");
	LINE("r.txt", "       100 loader                 0       4       2       3");
}

int main(void)
{
	unit_setup();
	test_codec();
	test_lengths();
	test_targets();
	test_kinds();
	test_not_repaired();
	snprintf(file, sizeof(file), "%s", path("desc.data"));
	write_file();
	test_script();
	test_report();
	return unit_done();
}
