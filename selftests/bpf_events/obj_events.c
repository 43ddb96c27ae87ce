// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_BPF_EVENT for BPF maps, links and BTF objects, requested
 * with attr.bpf_obj_event: id, type, flags, description and acting
 * pid/tid of every record, create before free, a map of maps releasing
 * its inner maps (on delete, or from its free work), module BTF (a test
 * module of this target), link detach and update
 * (by command and automatic), opt-in and privilege rules, and a stress
 * test that counts records exactly and checks overflow handling.
 *
 * On a kernel without attr.bpf_obj_event, opening such an event fails with
 * EINVAL and the tests SKIP.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "../kselftest_harness.h"
#include "bpf_events.h"

/*
 * Open a recorder; false when the test cannot go on: it is marked SKIP
 * when the kernel or the caller cannot open one, FAIL on other errors.
 */
static bool open_recorder(struct __test_metadata *_metadata, struct recorder *r,
			  bool prog, bool obj, int pages)
{
	int err = recorder_open(r, prog, obj, pages);

	if (err == -EINVAL && obj)
		SKIP(return false, "kernel has no perf_event_attr.bpf_obj_event");
	if (err == -EACCES || err == -EPERM)
		SKIP(return false, "system-wide perf events need CAP_PERFMON");
	EXPECT_EQ(0, err) TH_LOG("perf_event_open: %s", strerror(-err));
	return err == 0;
}

static const uint8_t zero_tag[BPF_TAG_SIZE];

static void check_rec(struct __test_metadata *_metadata, struct rec *x,
		      int type, uint32_t id, uint16_t flags, pid_t tid)
{
	ASSERT_NE(NULL, x) TH_LOG("no record of type %d for id %u", type, id);
	EXPECT_EQ(type, x->type);
	EXPECT_EQ(id, x->id);
	EXPECT_EQ(flags, x->flags);
	EXPECT_EQ(0, memcmp(x->tag, zero_tag, BPF_TAG_SIZE));
	EXPECT_EQ(getpid(), x->pid);
	EXPECT_EQ(tid, x->tid);
}

/* The record describes the object as BPF_OBJ_GET_INFO_BY_FD did. */
static void check_desc(struct __test_metadata *_metadata, struct rec *x,
		       const union bpf_event_desc *want)
{
	size_t size = bpf_event_desc_size(x->type);

	ASSERT_NE(0, size);
	EXPECT_EQ(0, memcmp(&x->desc, want, size))
		TH_LOG("record type %d id %u: description differs", x->type,
		       x->id);
}

/*
 * Wait for the release record, then check both records: exactly one of
 * each, the creation first, both describing the object as @want.
 */
static void check_pair(struct __test_metadata *_metadata, struct recorder *r,
		       int create, int release, uint32_t id, uint16_t flags,
		       const union bpf_event_desc *want)
{
	struct rec *c, *f;

	ASSERT_NE(NULL, recorder_wait(r, release, id, 5000));
	c = recorder_find(r, create, id);
	f = recorder_find(r, release, id);
	check_rec(_metadata, c, create, id, flags, gettid_raw());
	check_rec(_metadata, f, release, id, flags, gettid_raw());
	check_desc(_metadata, c, want);
	check_desc(_metadata, f, want);
	EXPECT_LE(c->time, f->time);
	EXPECT_EQ(1, recorder_count(r, create, id));
	EXPECT_EQ(1, recorder_count(r, release, id));
	EXPECT_EQ(0, r->corrupt);
	EXPECT_EQ(0, r->lost);
}

/* The description a map's records carry, from BPF_OBJ_GET_INFO_BY_FD. */
static void map_desc(const struct bpf_map_info *info, union bpf_event_desc *want)
{
	memset(want, 0, sizeof(*want));
	want->map.map_type = info->type;
	want->map.key_size = info->key_size;
	want->map.value_size = info->value_size;
	want->map.max_entries = info->max_entries;
	want->map.map_flags = info->map_flags;
	want->map.btf_id = info->btf_id;
	memcpy(want->map.name, info->name, sizeof(want->map.name));
}

TEST(map_create_free)
{
	static const enum bpf_map_type types[] = {
		BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH,
	};
	struct bpf_map_info info;
	union bpf_event_desc want;
	struct recorder r;
	unsigned int i;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		int fd = map_create(types[i]);

		ASSERT_LE(0, fd) TH_LOG("BPF_MAP_CREATE: %s", strerror(errno));
		ASSERT_EQ(0, obj_info(fd, &info, sizeof(info)));
		ASSERT_EQ(types[i], info.type);
		ASSERT_STREQ(MAP_NAME, info.name);
		map_desc(&info, &want);
		/* The record precedes the return of the syscall. */
		recorder_drain(&r);
		check_rec(_metadata,
			  recorder_find(&r, PERF_BPF_EVENT_MAP_CREATE, info.id),
			  PERF_BPF_EVENT_MAP_CREATE, info.id, info.type,
			  gettid_raw());
		close(fd);
		check_pair(_metadata, &r, PERF_BPF_EVENT_MAP_CREATE,
			   PERF_BPF_EVENT_MAP_FREE, info.id, info.type, &want);
	}
	recorder_close(&r);
	recorder_free(&r);
}

/* Slot @key of a map of maps: set to @inner_fd, or deleted (-1). */
static int map_slot(int map_fd, uint32_t key, int inner_fd)
{
	union bpf_attr attr;
	uint32_t value = inner_fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&key;
	if (inner_fd < 0)
		return sys_bpf(BPF_MAP_DELETE_ELEM, &attr);
	/* a delete takes no value: the kernel wants it zero */
	attr.value = (uintptr_t)&value;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

/*
 * An inner map whose last reference is its slot in a map of maps.  The
 * delete drops it in the deleting task, after a hash of maps has released
 * its bucket lock and after an array of maps has exchanged the slot: its
 * MAP_FREE comes from that task, with its description.  An inner map
 * still in its slot when the outer map goes is released by the outer
 * map's free work: its MAP_FREE comes from that kworker, after the outer
 * map's own.  The debug kernel (lockdep, DEBUG_ATOMIC_SLEEP) checks the
 * contexts.
 */
TEST(map_in_map_release)
{
	static const enum bpf_map_type outers[] = {
		BPF_MAP_TYPE_HASH_OF_MAPS, BPF_MAP_TYPE_ARRAY_OF_MAPS,
	};
	struct bpf_map_info info, outer_info;
	union bpf_event_desc want;
	struct rec *f, *o;
	struct recorder r;
	unsigned int i;
	int inner, outer;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	for (i = 0; i < ARRAY_SIZE(outers); i++) {
		/* deleted from its slot */
		inner = map_create(BPF_MAP_TYPE_ARRAY);
		ASSERT_LE(0, inner) TH_LOG("BPF_MAP_CREATE: %s", strerror(errno));
		ASSERT_EQ(0, obj_info(inner, &info, sizeof(info)));
		map_desc(&info, &want);
		outer = map_create_with(outers[i], inner);
		ASSERT_LE(0, outer) TH_LOG("map of maps %d: %s", outers[i], strerror(errno));
		ASSERT_EQ(0, map_slot(outer, 0, inner));
		close(inner);
		recorder_drain(&r);
		EXPECT_EQ(0, recorder_count(&r, PERF_BPF_EVENT_MAP_FREE, info.id))
			TH_LOG("inner map %u freed while in its slot", info.id);
		ASSERT_EQ(0, map_slot(outer, 0, -1)) TH_LOG("delete: %s", strerror(errno));
		f = recorder_wait(&r, PERF_BPF_EVENT_MAP_FREE, info.id, 5000);
		check_rec(_metadata, f, PERF_BPF_EVENT_MAP_FREE, info.id,
			  BPF_MAP_TYPE_ARRAY, gettid_raw());
		check_desc(_metadata, f, &want);
		EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_MAP_FREE, info.id));

		/* still in its slot when the outer map goes */
		inner = map_create(BPF_MAP_TYPE_ARRAY);
		ASSERT_LE(0, inner);
		ASSERT_EQ(0, obj_info(inner, &info, sizeof(info)));
		ASSERT_EQ(0, map_slot(outer, 0, inner));
		ASSERT_EQ(0, obj_info(outer, &outer_info, sizeof(outer_info)));
		close(inner);
		close(outer);
		f = recorder_wait(&r, PERF_BPF_EVENT_MAP_FREE, info.id, 5000);
		ASSERT_NE(NULL, f) TH_LOG("no MAP_FREE of inner map %u", info.id);
		o = recorder_find(&r, PERF_BPF_EVENT_MAP_FREE, outer_info.id);
		check_rec(_metadata, o, PERF_BPF_EVENT_MAP_FREE, outer_info.id,
			  outers[i], gettid_raw());
		EXPECT_LE(o->time, f->time);
		EXPECT_NE(getpid(), f->pid)
			TH_LOG("inner map released by the test, not the free work");
		EXPECT_EQ(f->pid, f->tid);
		EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_MAP_FREE, info.id));
	}
	EXPECT_EQ(0, r.corrupt);
	EXPECT_EQ(0, r.lost);
	recorder_close(&r);
	recorder_free(&r);
}

TEST(link_attach_release)
{
	struct bpf_link_info info;
	union bpf_event_desc want = {};
	struct recorder r;
	int prog, link;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	prog = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	link = link_create(prog);
	ASSERT_LE(0, link) TH_LOG("BPF_RAW_TRACEPOINT_OPEN: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(BPF_LINK_TYPE_RAW_TRACEPOINT, info.type);
	want.link.prog_id = info.prog_id;
	recorder_drain(&r);
	check_rec(_metadata, recorder_find(&r, PERF_BPF_EVENT_LINK_ATTACH, info.id),
		  PERF_BPF_EVENT_LINK_ATTACH, info.id, info.type, gettid_raw());
	close(link);
	check_pair(_metadata, &r, PERF_BPF_EVENT_LINK_ATTACH,
		   PERF_BPF_EVENT_LINK_RELEASE, info.id, info.type, &want);
	close(prog);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * A link holding the last reference to its program: LINK_RELEASE comes
 * before the PROG_UNLOAD that its release causes.
 */
TEST(link_release_before_prog_unload)
{
	struct bpf_link_info info;
	struct rec *l, *p;
	struct recorder r;
	int prog, link;

	if (!open_recorder(_metadata, &r, true, true, 16))
		return;
	prog = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT);
	ASSERT_LE(0, prog);
	link = link_create(prog);
	ASSERT_LE(0, link);
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	close(prog);
	close(link);
	p = recorder_wait(&r, PERF_BPF_EVENT_PROG_UNLOAD, info.prog_id, 5000);
	ASSERT_NE(NULL, p);
	l = recorder_find(&r, PERF_BPF_EVENT_LINK_RELEASE, info.id);
	ASSERT_NE(NULL, l);
	EXPECT_LE(l->time, p->time);
	EXPECT_EQ(info.prog_id, l->desc.link.prog_id);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * The id of the FUNC named @name in the vmlinux BTF, or 0: a walk over
 * /sys/kernel/btf/vmlinux, whose type ids count from 1 in file order.
 */
static uint32_t vmlinux_func_id(const char *name)
{
	uint32_t id = 1, found = 0, kind, vlen;
	const struct btf_header *h;
	const struct btf_type *t;
	uint8_t *buf = NULL, *p, *end;
	size_t len = 0, cap = 0;
	const char *strs;
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0)
		return 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 22;
			p = realloc(buf, cap);
			if (!p)
				goto out;
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
	}
	h = (const void *)buf;
	if (len < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > len ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > len)
		goto out;
	p = buf + h->hdr_len + h->type_off;
	end = p + h->type_len;
	strs = (const char *)buf + h->hdr_len + h->str_off;
	for (; p + sizeof(*t) <= end; id++) {
		t = (const void *)p;
		kind = BTF_INFO_KIND(t->info);
		vlen = BTF_INFO_VLEN(t->info);
		if (kind == BTF_KIND_FUNC && t->name_off < h->str_len &&
		    !strcmp(strs + t->name_off, name)) {
			found = id;
			break;
		}
		p += sizeof(*t);
		switch (kind) {
		case BTF_KIND_INT:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
			p += sizeof(uint32_t);
			break;
		case BTF_KIND_ARRAY:
			p += sizeof(struct btf_array);
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			p += vlen * sizeof(struct btf_member);
			break;
		case BTF_KIND_ENUM:
			p += vlen * sizeof(struct btf_enum);
			break;
		case BTF_KIND_ENUM64:
			p += vlen * sizeof(struct btf_enum64);
			break;
		case BTF_KIND_FUNC_PROTO:
			p += vlen * sizeof(struct btf_param);
			break;
		case BTF_KIND_DATASEC:
			p += vlen * sizeof(struct btf_var_secinfo);
			break;
		}
	}
out:
	free(buf);
	close(fd);
	return found;
}

/*
 * A tracing link, fentry on bpf_map_new_fd() (which every kernel with BPF
 * has): its records name the traced function as the link info does, by
 * BTF object and BTF id, from LINK_ATTACH to LINK_RELEASE. A tracing link
 * holds its target, so its release still names it.
 */
TEST(link_tracing_target)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_link_info info;
	struct rec *x[2];
	union bpf_attr attr;
	struct recorder r;
	uint32_t btf_id;
	int prog, link, i;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	btf_id = vmlinux_func_id("bpf_map_new_fd");
	if (!btf_id)
		SKIP(goto out, "no bpf_map_new_fd in the vmlinux BTF (CONFIG_DEBUG_INFO_BTF)");
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_TRACE_FENTRY;
	attr.attach_btf_id = btf_id;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (uintptr_t)"GPL";
	prog = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog < 0 && (errno == EPERM || errno == EOPNOTSUPP || errno == 524 /* ENOTSUPP */))
		SKIP(goto out, "the kernel refuses fentry programs: %s", strerror(errno));
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD fentry: %s", strerror(errno));
	link = link_create_attach(prog, 0, BPF_TRACE_FENTRY);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE fentry: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(BPF_LINK_TYPE_TRACING, info.type);
	ASSERT_EQ(btf_id, info.tracing.target_btf_id);
	ASSERT_NE(0, info.tracing.target_obj_id);
	close(link);
	x[1] = recorder_wait(&r, PERF_BPF_EVENT_LINK_RELEASE, info.id, 5000);
	x[0] = recorder_find(&r, PERF_BPF_EVENT_LINK_ATTACH, info.id);
	for (i = 0; i < 2; i++) {
		ASSERT_NE(NULL, x[i]) TH_LOG("no %s of link %u",
					     i ? "LINK_RELEASE" : "LINK_ATTACH", info.id);
		EXPECT_EQ(BPF_LINK_TYPE_TRACING, x[i]->flags);
		EXPECT_EQ(BPF_TRACE_FENTRY, x[i]->desc.link.attach_type);
		EXPECT_EQ(info.prog_id, x[i]->desc.link.prog_id);
		EXPECT_EQ(info.tracing.target_obj_id, x[i]->desc.link.target.tracing.obj_id);
		EXPECT_EQ(btf_id, x[i]->desc.link.target.tracing.btf_id);
	}
	close(prog);
out:
	recorder_close(&r);
	recorder_free(&r);
}

TEST(btf_load_unload)
{
	struct bpf_btf_info info;
	union bpf_event_desc want = {};
	struct recorder r;
	int fd;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	fd = btf_load();
	ASSERT_LE(0, fd) TH_LOG("BPF_BTF_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(fd, &info, sizeof(info)));
	ASSERT_EQ(0, info.kernel_btf);
	want.btf.size = info.btf_size;
	recorder_drain(&r);
	check_rec(_metadata, recorder_find(&r, PERF_BPF_EVENT_BTF_LOAD, info.id),
		  PERF_BPF_EVENT_BTF_LOAD, info.id, 0, gettid_raw());
	close(fd);
	check_pair(_metadata, &r, PERF_BPF_EVENT_BTF_LOAD,
		   PERF_BPF_EVENT_BTF_UNLOAD, info.id, 0, &want);
	recorder_close(&r);
	recorder_free(&r);
}

/* Create and release one object of each kind, program included. */
static void churn_all(struct __test_metadata *_metadata, uint32_t *prog_id)
{
	struct bpf_prog_info info;
	int map, btf, prog, link;

	map = map_create(BPF_MAP_TYPE_ARRAY);
	ASSERT_LE(0, map);
	btf = btf_load();
	ASSERT_LE(0, btf);
	prog = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, obj_info(prog, &info, sizeof(info)));
	*prog_id = info.id;
	link = link_create(prog);
	ASSERT_LE(0, link);
	close(link);
	close(prog);
	close(btf);
	close(map);
}

static size_t count_obj_records(struct recorder *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_recs; i++)
		if (r->recs[i].type > PERF_BPF_EVENT_PROG_UNLOAD)
			n++;
	return n;
}

/* attr.bpf_event alone: program records as before, and nothing else. */
#define TESTMOD "bpf_events_testmod"

/* The id of the BTF named @name (a module's), or 0. */
static uint32_t btf_id_named(const char *name)
{
	union bpf_attr attr = {};
	struct bpf_btf_info info;
	char buf[64];
	uint32_t id = 0;
	int fd;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(BPF_BTF_GET_NEXT_ID, &attr))
			return 0;
		id = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.btf_id = id;
		fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr);
		if (fd < 0)
			continue;
		/* obj_info() clears what it is given: the name buffer too */
		memset(&info, 0, sizeof(info));
		memset(buf, 0, sizeof(buf));
		info.name = (uintptr_t)buf;
		info.name_len = sizeof(buf);
		memset(&attr, 0, sizeof(attr));
		attr.info.bpf_fd = fd;
		attr.info.info_len = sizeof(info);
		attr.info.info = (uintptr_t)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) && !strcmp(buf, name)) {
			close(fd);
			return id;
		}
		close(fd);
	}
}

/*
 * Loading a module publishes its split BTF from the loading task:
 * BTF_LOAD flagged kernel and module, with the module's name and the
 * BTF's size.  (Its BTF_UNLOAD needs CONFIG_MODULE_UNLOAD.)
 */
TEST(module_btf_load)
{
	struct bpf_btf_info info = {};
	union bpf_event_desc want = {};
	struct recorder r;
	uint32_t id;
	int fd, btf;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel without module support");
	fd = open(TESTMOD ".ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, TESTMOD ".ko: %s", strerror(errno));
	if (btf_id_named(TESTMOD))
		SKIP(return, TESTMOD " is loaded already: its BTF_LOAD was before");
	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	ASSERT_EQ(0, syscall(__NR_finit_module, fd, "", 0))
		TH_LOG("finit_module: %s", strerror(errno));
	close(fd);
	id = btf_id_named(TESTMOD);
	if (!id)
		SKIP(goto out, "no BTF of %s: CONFIG_DEBUG_INFO_BTF_MODULES is off", TESTMOD);
	memset(&want, 0, sizeof(want));
	btf = sys_bpf(BPF_BTF_GET_FD_BY_ID, &(union bpf_attr){ .btf_id = id });
	ASSERT_LE(0, btf);
	ASSERT_EQ(0, obj_info(btf, &info, sizeof(info)));
	close(btf);
	EXPECT_EQ(1, info.kernel_btf);
	want.btf.size = info.btf_size;
	snprintf(want.btf.name, sizeof(want.btf.name), "%s", TESTMOD);
	recorder_drain(&r);
	check_rec(_metadata, recorder_find(&r, PERF_BPF_EVENT_BTF_LOAD, id),
		  PERF_BPF_EVENT_BTF_LOAD, id,
		  PERF_BPF_EVENT_FLAG_BTF_KERNEL | PERF_BPF_EVENT_FLAG_BTF_MODULE,
		  gettid_raw());
	check_desc(_metadata, recorder_find(&r, PERF_BPF_EVENT_BTF_LOAD, id), &want);
	EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_BTF_LOAD, id));
out:
	recorder_close(&r);
	recorder_free(&r);
}

TEST(no_obj_records_without_bit)
{
	struct recorder probe, r;
	uint32_t prog_id;

	/* Only meaningful where the bit exists. */
	if (!open_recorder(_metadata, &probe, false, true, 1))
		return;
	recorder_close(&probe);
	recorder_free(&probe);

	if (!open_recorder(_metadata, &r, true, false, 16))
		return;
	churn_all(_metadata, &prog_id);
	/* PROG_UNLOAD comes last: once it is here, everything else is too. */
	ASSERT_NE(NULL, recorder_wait(&r, PERF_BPF_EVENT_PROG_UNLOAD, prog_id, 5000));
	EXPECT_NE(NULL, recorder_find(&r, PERF_BPF_EVENT_PROG_LOAD, prog_id));
	EXPECT_EQ(0, count_obj_records(&r));
	EXPECT_EQ(0, r.corrupt);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * Program records are the same with and without the new bit, and the new
 * bit alone does not bring program records.
 */
TEST(prog_records_unchanged)
{
	struct recorder both, prog_only, obj_only;
	struct rec *a, *b;
	struct bpf_prog_info info;
	int fd;

	if (!open_recorder(_metadata, &obj_only, false, true, 16))
		return;
	if (!open_recorder(_metadata, &both, true, true, 16))
		return;
	if (!open_recorder(_metadata, &prog_only, true, false, 16))
		return;

	fd = prog_load(BPF_PROG_TYPE_SOCKET_FILTER);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, obj_info(fd, &info, sizeof(info)));
	close(fd);

	ASSERT_NE(NULL, recorder_wait(&prog_only, PERF_BPF_EVENT_PROG_UNLOAD,
				      info.id, 5000));
	ASSERT_NE(NULL, recorder_wait(&both, PERF_BPF_EVENT_PROG_UNLOAD,
				      info.id, 5000));
	a = recorder_find(&prog_only, PERF_BPF_EVENT_PROG_LOAD, info.id);
	b = recorder_find(&both, PERF_BPF_EVENT_PROG_LOAD, info.id);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(0, memcmp(a->tag, info.tag, BPF_TAG_SIZE));
	EXPECT_EQ(0, memcmp(b->tag, info.tag, BPF_TAG_SIZE));
	EXPECT_EQ(a->flags, b->flags);
	EXPECT_EQ(a->tid, b->tid);
	EXPECT_EQ(gettid_raw(), b->tid);
	/* Several listeners on one CPU: each gets a well-formed record. */
	EXPECT_EQ(0, prog_only.corrupt);
	EXPECT_EQ(0, both.corrupt);

	recorder_drain(&obj_only);
	EXPECT_EQ(0, obj_only.nr_recs - count_obj_records(&obj_only));

	recorder_close(&both);
	recorder_close(&prog_only);
	recorder_close(&obj_only);
	recorder_free(&both);
	recorder_free(&prog_only);
	recorder_free(&obj_only);
}

/* ---- link detach and update ------------------------------------------- */

static bool is_link_record(int type)
{
	return type == PERF_BPF_EVENT_LINK_ATTACH ||
	       type == PERF_BPF_EVENT_LINK_RELEASE ||
	       type == PERF_BPF_EVENT_LINK_DETACH ||
	       type == PERF_BPF_EVENT_LINK_UPDATE;
}

#define MAX_HISTORY 8

/*
 * The records of link @id in time order (the rings of several CPUs are
 * drained one after the other) into @out; their types as a string of
 * numbers, "5 10 9 6", into @buf. Returns how many.
 */
static size_t link_history(struct recorder *r, uint32_t id,
			   struct rec *out[MAX_HISTORY], char *buf, size_t len)
{
	size_t i, j, nr = 0, n = 0;

	for (i = 0; i < r->nr_recs && nr < MAX_HISTORY; i++) {
		struct rec *x = &r->recs[i];

		if (!is_link_record(x->type) || x->id != id)
			continue;
		for (j = nr++; j > 0 && out[j - 1]->time > x->time; j--)
			out[j] = out[j - 1];
		out[j] = x;
	}
	buf[0] = 0;
	for (i = 0; i < nr; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? " " : "",
			      out[i]->type);
	return nr;
}

/*
 * A cgroup link updated twice (without, then with BPF_F_REPLACE), detached
 * with BPF_LINK_DETACH, then released: ATTACH, UPDATE, UPDATE, DETACH,
 * RELEASE, each naming the program the link runs from then on.
 */
TEST(link_update_detach)
{
	uint32_t a_id, b_id, id;
	struct rec *x[MAX_HISTORY];
	struct bpf_link_info info;
	struct recorder r;
	char cg[128], hist[64];
	int a, b, cgfd, link, i;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	a = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	b = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, a) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_LE(0, b);
	a_id = prog_id_of(a);
	b_id = prog_id_of(b);
	link = link_create_attach(a, cgfd, BPF_CGROUP_INET_INGRESS);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	id = info.id;

	ASSERT_EQ(0, link_update(link, b, -1));
	ASSERT_EQ(0, link_update(link, a, b));
	/* A failed update is not reported. */
	ASSERT_NE(0, link_update(link, a, b));
	ASSERT_EQ(0, link_detach(link));
	close(link);
	ASSERT_NE(NULL, recorder_wait(&r, PERF_BPF_EVENT_LINK_RELEASE, id, 5000));

	ASSERT_EQ(5, link_history(&r, id, x, hist, sizeof(hist)));
	ASSERT_STREQ("5 10 10 9 6", hist);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(BPF_LINK_TYPE_CGROUP, x[i]->flags);
		EXPECT_EQ(gettid_raw(), x[i]->tid);
	}
	EXPECT_EQ(a_id, x[0]->desc.link.prog_id);
	EXPECT_EQ(b_id, x[1]->desc.link.prog_id);
	EXPECT_EQ(0, x[1]->desc.link.old_prog_id);
	EXPECT_EQ(a_id, x[2]->desc.link.prog_id);
	EXPECT_EQ(b_id, x[2]->desc.link.old_prog_id);
	EXPECT_EQ(a_id, x[3]->desc.link.prog_id);
	EXPECT_EQ(a_id, x[4]->desc.link.prog_id);
	/* every record up to BPF_LINK_DETACH's names the cgroup; the release, detached, none */
	ASSERT_NE(0, info.cgroup.cgroup_id);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(info.cgroup.cgroup_id, x[i]->desc.link.target.cgroup_id)
			TH_LOG("record %d of link %u: cgroup %llu", i, id,
			       (unsigned long long)x[i]->desc.link.target.cgroup_id);
	EXPECT_EQ(0, x[4]->desc.link.target.cgroup_id);
	EXPECT_EQ(0, r.corrupt);

	close(a);
	close(b);
	close(cgfd);
	rmdir(cg);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * Close a link detached from @target (a union perf_bpf_event_link_target
 * as BPF_OBJ_GET_INFO_BY_FD gave it while attached): its records are
 * ATTACH and DETACH, which name the target, then RELEASE, which names
 * nothing (the link forgot its target).
 */
static void check_release_after_detach(struct __test_metadata *_metadata,
				       struct recorder *r, int link, uint32_t id,
				       const union perf_bpf_event_link_target *target)
{
	union perf_bpf_event_link_target none = {};
	struct rec *h[MAX_HISTORY];
	char hist[64];

	close(link);
	ASSERT_NE(NULL, recorder_wait(r, PERF_BPF_EVENT_LINK_RELEASE, id, 5000));
	ASSERT_EQ(3, link_history(r, id, h, hist, sizeof(hist)));
	ASSERT_STREQ("5 9 6", hist);
	EXPECT_EQ(0, memcmp(target, &h[0]->desc.link.target, sizeof(*target)))
		TH_LOG("LINK_ATTACH of link %u: not the target the link info gave", id);
	EXPECT_EQ(0, memcmp(target, &h[1]->desc.link.target, sizeof(*target)))
		TH_LOG("LINK_DETACH of link %u: not the target it was detached from", id);
	EXPECT_EQ(0, memcmp(&none, &h[2]->desc.link.target, sizeof(none)))
		TH_LOG("LINK_RELEASE of link %u: a target after the detach", id);
}

/*
 * A link on a network device that is deleted: LINK_DETACH from the task
 * that deleted the device, with the link's program and attach type, and
 * naming the device; closing the link then only releases it.  @kind is
 * the device's rtnetlink kind, which kernel option @config builds.
 */
static void netdev_auto_detach(struct __test_metadata *_metadata, const char *kind,
			       const char *config, const char *name, __u32 prog_type,
			       __u32 attach_type, __u32 link_type)
{
	union perf_bpf_event_link_target target = {};
	struct bpf_link_info info;
	struct recorder r;
	int prog, link, ifindex;
	struct rec *x;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	ifindex = netdev_add(name, kind);
	if (ifindex == -EOPNOTSUPP)
		SKIP(goto out, "no %s network devices (%s)", kind, config);
	ASSERT_LT(0, ifindex) TH_LOG("RTM_NEWLINK %s: %s", kind, strerror(-ifindex));
	prog = prog_load_for(prog_type, attach_type);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	link = link_create_attach(prog, ifindex, attach_type);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(link_type, info.type);
	/* the link info of XDP, tcx and netkit links all begin with the ifindex */
	ASSERT_EQ(ifindex, info.xdp.ifindex);
	target.ifindex = info.xdp.ifindex;
	ASSERT_EQ(0, netdev_del(ifindex));

	x = recorder_wait(&r, PERF_BPF_EVENT_LINK_DETACH, info.id, 5000);
	check_rec(_metadata, x, PERF_BPF_EVENT_LINK_DETACH, info.id, link_type, gettid_raw());
	EXPECT_EQ(info.prog_id, x->desc.link.prog_id);
	EXPECT_EQ(attach_type, x->desc.link.attach_type);
	check_release_after_detach(_metadata, &r, link, info.id, &target);
	close(prog);
out:
	recorder_close(&r);
	recorder_free(&r);
}

/* An XDP link whose device is unregistered (dev_xdp_uninstall()). */
TEST(link_xdp_auto_detach)
{
	netdev_auto_detach(_metadata, "dummy", "CONFIG_DUMMY", "bpfev_xdp0",
			   BPF_PROG_TYPE_XDP, BPF_XDP, BPF_LINK_TYPE_XDP);
}

#ifdef BPF_F_BEFORE	/* tcx came with it, in Linux 6.6 */
/* A tcx link whose device is unregistered (tcx_uninstall()). */
TEST(link_tcx_auto_detach)
{
	netdev_auto_detach(_metadata, "dummy", "CONFIG_DUMMY", "bpfev_tcx0",
			   BPF_PROG_TYPE_SCHED_CLS, BPF_TCX_INGRESS, BPF_LINK_TYPE_TCX);
}
#endif

#ifdef IFLA_NETKIT_MAX	/* Linux 6.7 */
/* A netkit link whose device pair is deleted (netkit_release_all()): the primary device. */
TEST(link_netkit_auto_detach)
{
	netdev_auto_detach(_metadata, "netkit", "CONFIG_NETKIT", "bpfev_nk0",
			   BPF_PROG_TYPE_SCHED_CLS, BPF_NETKIT_PRIMARY, BPF_LINK_TYPE_NETKIT);
}
#endif

#ifdef MAX_BPF_LINK_TYPE	/* not in 6.1's uapi, which has no sockmap links either */
/*
 * A sockmap link: its records name the map, as the link info does, until
 * BPF_LINK_DETACH takes the program off the map; LINK_RELEASE then names
 * nothing.
 */
TEST(link_sockmap_target)
{
	union perf_bpf_event_link_target target = {};
	struct bpf_link_info info;
	struct recorder r;
	int map, prog, link;
	struct rec *x;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	map = map_create(BPF_MAP_TYPE_SOCKMAP);
	if (map < 0 && errno == EINVAL)
		SKIP(goto out, "no sockmaps (CONFIG_BPF_SYSCALL with CONFIG_NET)");
	ASSERT_LE(0, map) TH_LOG("BPF_MAP_CREATE sockmap: %s", strerror(errno));
	prog = prog_load_for(BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD sk_msg: %s", strerror(errno));
	link = link_create_attach(prog, map, BPF_SK_MSG_VERDICT);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE sockmap: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(BPF_LINK_TYPE_SOCKMAP, info.type);
	ASSERT_EQ(BPF_SK_MSG_VERDICT, info.sockmap.attach_type);
	ASSERT_NE(0, info.sockmap.map_id);
	target.map_id = info.sockmap.map_id;
	ASSERT_EQ(0, link_detach(link)) TH_LOG("BPF_LINK_DETACH: %s", strerror(errno));

	x = recorder_wait(&r, PERF_BPF_EVENT_LINK_DETACH, info.id, 5000);
	check_rec(_metadata, x, PERF_BPF_EVENT_LINK_DETACH, info.id, BPF_LINK_TYPE_SOCKMAP,
		  gettid_raw());
	EXPECT_EQ(info.prog_id, x->desc.link.prog_id);
	EXPECT_EQ(BPF_SK_MSG_VERDICT, x->desc.link.attach_type);
	check_release_after_detach(_metadata, &r, link, info.id, &target);
	close(prog);
	close(map);
out:
	recorder_close(&r);
	recorder_free(&r);
}
#endif

/*
 * Removing the cgroup detaches its links: LINK_DETACH from the worker that
 * releases the cgroup's BPF state, before the owner releases the link.
 */
TEST(link_cgroup_auto_detach)
{
	union perf_bpf_event_link_target target = {};
	struct bpf_link_info info;
	struct recorder r;
	struct rec *x;
	char cg[128];
	int prog, cgfd, link;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, prog);
	link = link_create_attach(prog, cgfd, BPF_CGROUP_INET_EGRESS);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_NE(0, info.cgroup.cgroup_id);
	target.cgroup_id = info.cgroup.cgroup_id;
	close(cgfd);
	ASSERT_EQ(0, rmdir(cg)) TH_LOG("rmdir %s: %s", cg, strerror(errno));

	x = recorder_wait(&r, PERF_BPF_EVENT_LINK_DETACH, info.id, 10000);
	ASSERT_NE(NULL, x) TH_LOG("no LINK_DETACH after the cgroup went away");
	EXPECT_EQ(info.prog_id, x->desc.link.prog_id);
	EXPECT_NE(getpid(), x->pid);
	check_release_after_detach(_metadata, &r, link, info.id, &target);
	close(prog);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * A kprobe on bpf_link_perf_detach() that holds one link's detach: when
 * the link of ID hold[HOLD_LINK] comes by, the program sets HOLD_ENTERED
 * and spins until the test sets HOLD_GO or HOLD_SPAN nanoseconds have
 * passed. This lets a test act at a chosen point of an automatic detach,
 * where a real race would need luck. x86-64 only: the program reads the
 * first argument from pt_regs.
 */
enum { HOLD_LINK, HOLD_ENTERED, HOLD_GO, HOLD_SPAN, HOLD_UNTIL, HOLD_NR };

struct hold {
	int map, btf, prog, kprobe;
};

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ADD_REG(d, s)		INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o)	INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST_IMM(sz, d, o, i)	INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JMP_IMM(op, d, i, o)	INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o)	INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* A 64-bit load takes two instructions: LD_IMM64, then LD_IMM64_HI. */
#define LD_IMM64(d, s, i)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, s, 0, i)
#define LD_IMM64_HI()		INSN(0, 0, 0, 0, 0)
#define VAL(slot)		((slot) * 8)

/* The program's BTF: bpf_loop() takes only a callback that BTF describes. */
static int hold_btf_load(void)
{
	static const char strs[] = "\0int\0ctx\0hold\0i\0hold_cb";
	uint32_t types[] = {
		/* [1] int */
		1, BTF_KIND_INT << 24, 4, BTF_INT_SIGNED << 24 | 32,
		/* [2] void * */
		0, BTF_KIND_PTR << 24, 0,
		/* [3] int (void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 1, 1, 5, 2,
		/* [4] static int hold(void *ctx) */
		9, BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC, 3,
		/* [5] int (int i, void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 2, 1, 14, 1, 5, 2,
		/* [6] static int hold_cb(int i, void *ctx) */
		16, BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC, 5,
	};
	char blob[sizeof(struct btf_header) + sizeof(types) + sizeof(strs)];
	struct btf_header hdr = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
		.type_len = sizeof(types),
		.str_off = sizeof(types),
		.str_len = sizeof(strs),
	};
	union bpf_attr attr;

	memcpy(blob, &hdr, sizeof(hdr));
	memcpy(blob + sizeof(hdr), types, sizeof(types));
	memcpy(blob + sizeof(hdr) + sizeof(types), strs, sizeof(strs));
	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)blob;
	attr.btf_size = sizeof(blob);
	return sys_bpf(BPF_BTF_LOAD, &attr);
}

static int hold_prog_load(int map, int btf, char *log, size_t log_len)
{
	struct bpf_insn insns[] = {
		/* r6 = the link, the first argument (pt_regs->di) */
		LDX(BPF_DW, BPF_REG_6, BPF_REG_1, 112),
		/* r7 = the map's value */
		ST_IMM(BPF_W, BPF_REG_10, -4, 0),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -4),
		LD_IMM64(BPF_REG_1, BPF_PSEUDO_MAP_FD, map),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 22),		/* to out */
		MOV_REG(BPF_REG_7, BPF_REG_0),
		/* the link's ID (struct bpf_link: refcnt, then id) to fp - 8 */
		MOV_REG(BPF_REG_1, BPF_REG_10),
		ADD_IMM(BPF_REG_1, -8),
		MOV_IMM(BPF_REG_2, 4),
		MOV_REG(BPF_REG_3, BPF_REG_6),
		ADD_IMM(BPF_REG_3, 8),
		CALL(BPF_FUNC_probe_read_kernel),
		LDX(BPF_W, BPF_REG_1, BPF_REG_10, -8),
		LDX(BPF_DW, BPF_REG_2, BPF_REG_7, VAL(HOLD_LINK)),
		JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 12),	/* to out */
		MOV_IMM(BPF_REG_1, 1),
		STX(BPF_DW, BPF_REG_7, BPF_REG_1, VAL(HOLD_ENTERED)),
		CALL(BPF_FUNC_ktime_get_ns),
		LDX(BPF_DW, BPF_REG_1, BPF_REG_7, VAL(HOLD_SPAN)),
		ADD_REG(BPF_REG_0, BPF_REG_1),
		STX(BPF_DW, BPF_REG_7, BPF_REG_0, VAL(HOLD_UNTIL)),
		/* bpf_loop(1 << 23, hold_cb, NULL, 0) */
		MOV_IMM(BPF_REG_1, 1 << 23),
		LD_IMM64(BPF_REG_2, BPF_PSEUDO_FUNC, 6),	/* hold_cb */
		LD_IMM64_HI(),
		MOV_IMM(BPF_REG_3, 0),
		MOV_IMM(BPF_REG_4, 0),
		CALL(BPF_FUNC_loop),
		/* out: */
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
		/*
		 * hold_cb(): 1 (stop) once told to go or past the time. It
		 * looks the value up itself: bpf_loop() passes only a pointer
		 * to the stack.
		 */
		ST_IMM(BPF_W, BPF_REG_10, -4, 0),
		MOV_REG(BPF_REG_2, BPF_REG_10),
		ADD_IMM(BPF_REG_2, -4),
		LD_IMM64(BPF_REG_1, BPF_PSEUDO_MAP_FD, map),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),		/* to stop */
		MOV_REG(BPF_REG_6, BPF_REG_0),
		LDX(BPF_DW, BPF_REG_1, BPF_REG_6, VAL(HOLD_GO)),
		JMP_IMM(BPF_JNE, BPF_REG_1, 0, 5),		/* to stop */
		CALL(BPF_FUNC_ktime_get_ns),
		LDX(BPF_DW, BPF_REG_1, BPF_REG_6, VAL(HOLD_UNTIL)),
		JMP_REG(BPF_JGE, BPF_REG_0, BPF_REG_1, 2),	/* to stop */
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
		/* stop: */
		MOV_IMM(BPF_REG_0, 1),
		EXIT(),
	};
	struct bpf_func_info funcs[] = {
		{ .insn_off = 0, .type_id = 4 },
		{ .insn_off = 32, .type_id = 6 },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (uintptr_t)"GPL";
	attr.prog_btf_fd = btf;
	attr.func_info = (uintptr_t)funcs;
	attr.func_info_cnt = ARRAY_SIZE(funcs);
	attr.func_info_rec_size = sizeof(funcs[0]);
	attr.log_buf = (uintptr_t)log;
	attr.log_size = log_len;
	attr.log_level = 1;
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int hold_get(struct hold *h, int slot, uint64_t *val)
{
	uint64_t v[HOLD_NR];
	union bpf_attr attr;
	uint32_t key = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = h->map;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)v;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return -errno;
	*val = v[slot];
	return 0;
}

static int hold_set(struct hold *h, const uint64_t v[HOLD_NR])
{
	union bpf_attr attr;
	uint32_t key = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = h->map;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)v;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) ? -errno : 0;
}

static void hold_close(struct hold *h)
{
	if (h->kprobe >= 0)
		close(h->kprobe);
	if (h->prog >= 0)
		close(h->prog);
	if (h->btf >= 0)
		close(h->btf);
	if (h->map >= 0)
		close(h->map);
}

/*
 * Hold the detach of link @id for at most @span_ns. Returns 0, -ENOENT
 * when the kernel has no kprobe PMU, or another -errno, with the
 * verifier's log in @log.
 */
static int hold_open(struct hold *h, uint32_t id, uint64_t span_ns, char *log, size_t log_len)
{
	uint64_t v[HOLD_NR] = { [HOLD_LINK] = id, [HOLD_SPAN] = span_ns };
	struct perf_event_attr pa;
	union bpf_attr attr;
	int type, err;
	FILE *f;

	h->map = -1;
	h->btf = -1;
	h->prog = -1;
	h->kprobe = -1;
	log[0] = 0;
	f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	if (!f)
		return -ENOENT;
	err = fscanf(f, "%d", &type) == 1 ? 0 : -EINVAL;
	fclose(f);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = sizeof(v);
	attr.max_entries = 1;
	h->map = sys_bpf(BPF_MAP_CREATE, &attr);
	h->btf = h->map < 0 ? -1 : hold_btf_load();
	h->prog = h->btf < 0 ? -1 : hold_prog_load(h->map, h->btf, log, log_len);
	if (h->prog < 0 || hold_set(h, v))
		goto fail;

	memset(&pa, 0, sizeof(pa));
	pa.type = type;
	pa.size = sizeof(pa);
	pa.config1 = (uintptr_t)"bpf_link_perf_detach";
	h->kprobe = sys_perf_event_open(&pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (h->kprobe < 0 || ioctl(h->kprobe, PERF_EVENT_IOC_SET_BPF, h->prog))
		goto fail;
	return 0;
fail:
	err = -errno;
	hold_close(h);
	return err;
}

/* The state of task @tid of this process, as /proc/.../stat shows it ('R', 'D', ...). */
static char task_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

struct closer {
	int fd;
	pid_t tid;
	int done;
};

static void *closer_run(void *arg)
{
	struct closer *c = arg;

	__atomic_store_n(&c->tid, gettid_raw(), __ATOMIC_RELEASE);
	close(c->fd);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The owner closes a cgroup link while the cgroup's release worker is
 * detaching it: the worker is held at the start of bpf_link_perf_detach()
 * while the owner closes. The worker holds cgroup_mutex and the link
 * still names its cgroup, so the close must wait for the worker before it
 * frees the link. The close reports LINK_RELEASE before it waits, so the
 * worker then finds the link released and reports nothing: the records
 * are ATTACH, RELEASE. A kernel that cleared the link's cgroup before
 * reporting the detach lets the close free the link at once, under the
 * worker: the close does not wait, and KASAN reports a use-after-free.
 */
TEST(link_cgroup_auto_detach_vs_close)
{
	struct bpf_link_info info;
	struct closer c = { 0 };
	struct rec *h[MAX_HISTORY];
	uint64_t entered = 0, end;
	char cg[128], hist[64];
	static char log[65536];
	int prog, cgfd, err;
	struct recorder r;
	struct hold hd;
	pthread_t t;
	char state = 0;

#ifndef __x86_64__
	SKIP(return, "the hold program reads x86-64 registers");
#endif
	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, prog);
	c.fd = link_create_attach(prog, cgfd, BPF_CGROUP_INET_EGRESS);
	ASSERT_LE(0, c.fd) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(c.fd, &info, sizeof(info)));
	close(cgfd);

	/*
	 * The worker is let go as soon as the close is seen asleep; the 10 s
	 * bound only ends the hold if the test dies, and stays below the
	 * soft-lockup watchdog's 20 s.
	 */
	err = hold_open(&hd, info.id, 10000000000ULL, log, sizeof(log));
	if (err == -ENOENT)
		SKIP(goto out, "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err) TH_LOG("kprobe on bpf_link_perf_detach: %s\n%s",
				 strerror(-err), log);
	ASSERT_EQ(0, rmdir(cg)) TH_LOG("rmdir %s: %s", cg, strerror(errno));

	/* The worker reaches the link's detach and waits there. */
	end = now_ns() + 30000000000ULL;
	while (!entered && now_ns() < end) {
		ASSERT_EQ(0, hold_get(&hd, HOLD_ENTERED, &entered));
		if (!entered)
			usleep(1000);
	}
	ASSERT_EQ(1, entered) TH_LOG("the cgroup's release worker did not detach the link in 30 s");

	/*
	 * The owner closes: the close either finishes (nothing made it wait
	 * for the worker) or sleeps on the worker's lock ('D').
	 */
	ASSERT_EQ(0, pthread_create(&t, NULL, closer_run, &c));
	end = now_ns() + 10000000000ULL;
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && now_ns() < end) {
		pid_t tid = __atomic_load_n(&c.tid, __ATOMIC_ACQUIRE);

		state = tid ? task_state(tid) : 0;
		if (state == 'D')
			break;
		usleep(100);
	}
	{
		uint64_t v[HOLD_NR] = { [HOLD_GO] = 1 };

		ASSERT_EQ(0, hold_set(&hd, v));
	}
	pthread_join(t, NULL);
	hold_close(&hd);
	EXPECT_EQ('D', state) TH_LOG("the close did not wait for the detach (it %s)",
				     c.done ? "finished first" : "neither finished nor slept");

	ASSERT_NE(NULL, recorder_wait(&r, PERF_BPF_EVENT_LINK_RELEASE, info.id, 5000));
	link_history(&r, info.id, h, hist, sizeof(hist));
	EXPECT_STREQ("5 6", hist);
out:
	close(prog);
	recorder_close(&r);
	recorder_free(&r);
}

FIXTURE(netns) {
};

FIXTURE_SETUP(netns)
{
}

FIXTURE_TEARDOWN(netns)
{
}

/*
 * A network namespace that exits detaches its links: a flow dissector
 * link attached to a child's namespace gets LINK_DETACH when the child
 * exits, while the link itself lives on until closed. The namespace is
 * dismantled by a worker, which takes tens of seconds on a slow machine.
 */
TEST_F_TIMEOUT(netns, link_auto_detach, 180)
{
	union perf_bpf_event_link_target target = {};
	int go[2], ready[2], prog, nsfd, link, status;
	struct bpf_link_info info;
	struct recorder r;
	char path[64], c;
	struct rec *x;
	pid_t child;

	if (!open_recorder(_metadata, &r, false, true, 16))
		return;
	prog = prog_load(BPF_PROG_TYPE_FLOW_DISSECTOR);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		/* Only the parent's end of go may stay open: its close is the signal. */
		close(go[1]);
		close(ready[0]);
		c = unshare(CLONE_NEWNET) ? 'e' : 'k';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	if (c != 'k') {
		close(go[1]);
		waitpid(child, &status, 0);
		SKIP(return, "no network namespaces (CONFIG_NET_NS)");
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", child);
	nsfd = open(path, O_RDONLY);
	ASSERT_LE(0, nsfd);
	link = link_create_attach(prog, nsfd, BPF_FLOW_DISSECTOR);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(BPF_LINK_TYPE_NETNS, info.type);
	ASSERT_NE(0, info.netns.netns_ino);
	target.netns_ino = info.netns.netns_ino;
	close(nsfd);
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));

	x = recorder_wait(&r, PERF_BPF_EVENT_LINK_DETACH, info.id, 150000);
	ASSERT_NE(NULL, x) TH_LOG("no LINK_DETACH 150 s after the namespace exited");
	EXPECT_EQ(info.prog_id, x->desc.link.prog_id);
	EXPECT_EQ(BPF_LINK_TYPE_NETNS, x->flags);
	EXPECT_NE(getpid(), x->pid);
	check_release_after_detach(_metadata, &r, link, info.id, &target);
	close(prog);
	recorder_close(&r);
	recorder_free(&r);
}

/* ---- privilege ------------------------------------------------------- */

/* Keep only the capabilities of @caps (a mask of CAP_* below 64). */
static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i;

	memset(data, 0, sizeof(data));
	for (i = 0; i < 2; i++) {
		data[i].effective = caps >> (32 * i);
		data[i].permitted = caps >> (32 * i);
	}
	return syscall(__NR_capset, &hdr, data);
}

/* Open a per-task event as the caller; 0 or -errno. */
static int open_self(bool prog, bool obj)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.bpf_event = prog;
	attr.bpf_obj_event = obj;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int read_paranoid(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);

	if (fd < 0)
		return -100;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return atoi(buf);
}

static bool write_paranoid(int level)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	snprintf(buf, sizeof(buf), "%d\n", level);
	ok = write(fd, buf, strlen(buf)) == (ssize_t)strlen(buf);
	close(fd);
	return ok;
}

/*
 * In a child that keeps only @caps: open a per-task event with
 * bpf_obj_event, and one with bpf_event alone. Returns the two results
 * as -errno (0 for success) through @obj and @prog; -1 if the child could
 * not run.
 */
static int child_opens(uint64_t caps, int *obj, int *prog)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (set_caps(caps))
			_exit(255);
		/* Exit status: bit 0 obj refused, bit 1 prog refused. */
		_exit((open_self(false, true) == -EACCES) |
		      (open_self(true, false) == -EACCES) << 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	*obj = WEXITSTATUS(status) & 1 ? -EACCES : 0;
	*prog = WEXITSTATUS(status) & 2 ? -EACCES : 0;
	return 0;
}

/*
 * bpf_obj_event is allowed as text_poke is, through perf_allow_kernel():
 * at perf_event_paranoid <= 1 for anyone, above that with CAP_PERFMON.
 * bpf_event alone on a per-task event with exclude_kernel stays allowed.
 */
TEST(privilege_like_kernel_data)
{
	static const struct {
		int paranoid;
		uint64_t caps;
		int obj;
	} cases[] = {
		{ 2, 0, -EACCES },
		{ 2, 1ULL << CAP_PERFMON, 0 },
		{ 1, 0, 0 },
		{ 1, 1ULL << CAP_PERFMON, 0 },
		{ 0, 0, 0 },
		{ 0, 1ULL << CAP_PERFMON, 0 },
		{ -1, 0, 0 },
		{ -1, 1ULL << CAP_PERFMON, 0 },
	};
	int saved, ret, obj, prog;
	unsigned int i;

	if (geteuid() != 0)
		SKIP(return, "needs root to set perf_event_paranoid");
	ret = open_self(false, true);
	if (ret == -EINVAL)
		SKIP(return, "kernel has no perf_event_attr.bpf_obj_event");
	ASSERT_EQ(0, ret) TH_LOG("privileged open: %s", strerror(-ret));

	saved = read_paranoid();
	ASSERT_NE(-100, saved);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_TRUE(write_paranoid(cases[i].paranoid));
		ASSERT_EQ(0, child_opens(cases[i].caps, &obj, &prog));
		EXPECT_EQ(cases[i].obj, obj)
			TH_LOG("paranoid %d, caps %#llx: bpf_obj_event",
			       cases[i].paranoid,
			       (unsigned long long)cases[i].caps);
		EXPECT_EQ(0, prog)
			TH_LOG("paranoid %d, caps %#llx: bpf_event",
			       cases[i].paranoid,
			       (unsigned long long)cases[i].caps);
	}
	ASSERT_TRUE(write_paranoid(saved));
}

/* ---- stress ---------------------------------------------------------- */

#define STRESS_THREADS		3
#define STRESS_SECONDS		3
#define STRESS_MAX_SECONDS	90
#define STRESS_MAX_OBJS		60000

struct obj_note {
	uint8_t create;		/* record type of the creation */
	uint16_t flags;
	uint32_t id;
	pid_t tid;
	union bpf_event_desc desc;
};

struct stress {
	bool stop;		/* read and set with stress_stopped/_stop() */
	pthread_mutex_t lock;
	struct obj_note *objs;
	size_t nr_objs;
	int errors;
};

static bool stress_stopped(struct stress *s)
{
	return __atomic_load_n(&s->stop, __ATOMIC_RELAXED);
}

static void stress_stop(struct stress *s)
{
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
}

static void note(struct stress *s, int create, uint16_t flags, uint32_t id,
		 const union bpf_event_desc *desc)
{
	pthread_mutex_lock(&s->lock);
	if (s->nr_objs < STRESS_MAX_OBJS)
		s->objs[s->nr_objs++] = (struct obj_note){
			.create = create, .flags = flags, .id = id,
			.tid = gettid_raw(), .desc = *desc,
		};
	else
		stress_stop(s);
	pthread_mutex_unlock(&s->lock);
}

static void *stress_worker(void *arg)
{
	struct stress *s = arg;
	struct bpf_map_info minfo;
	struct bpf_link_info linfo;
	struct bpf_btf_info binfo;
	int prog = prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT);

	if (prog < 0) {
		__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	while (!stress_stopped(s)) {
		int map = map_create(BPF_MAP_TYPE_HASH);
		int btf = btf_load();
		int link = link_create(prog);

		if (map < 0 || btf < 0 || link < 0 ||
		    obj_info(map, &minfo, sizeof(minfo)) ||
		    obj_info(btf, &binfo, sizeof(binfo)) ||
		    obj_info(link, &linfo, sizeof(linfo))) {
			__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
			stress_stop(s);
		} else {
			union bpf_event_desc d = {};

			d.map = (struct perf_bpf_event_map){
				.map_type = minfo.type,
				.key_size = minfo.key_size,
				.value_size = minfo.value_size,
				.max_entries = minfo.max_entries,
				.map_flags = minfo.map_flags,
			};
			memcpy(d.map.name, minfo.name, sizeof(d.map.name));
			note(s, PERF_BPF_EVENT_MAP_CREATE, minfo.type, minfo.id, &d);
			memset(&d, 0, sizeof(d));
			d.btf.size = binfo.btf_size;
			note(s, PERF_BPF_EVENT_BTF_LOAD, 0, binfo.id, &d);
			memset(&d, 0, sizeof(d));
			d.link.prog_id = linfo.prog_id;
			note(s, PERF_BPF_EVENT_LINK_ATTACH, linfo.type, linfo.id,
			     &d);
		}
		if (link >= 0)
			close(link);
		if (btf >= 0)
			close(btf);
		if (map >= 0)
			close(map);
	}
	close(prog);
	return NULL;
}

/* Opens and closes object-record events while the workers run. */
static void *stress_reopener(void *arg)
{
	struct stress *s = arg;
	struct recorder r;

	while (!stress_stopped(s)) {
		if (recorder_open(&r, true, true, 1) == 0) {
			recorder_close(&r);
			if (r.corrupt)
				__atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
			recorder_free(&r);
		}
	}
	return NULL;
}

/* Index of the record of @type for @id, -1 if none, -2 if several. */
static long find_unique(struct recorder *r, int type, uint32_t id)
{
	long found = -1;
	size_t i;

	for (i = 0; i < r->nr_recs; i++) {
		if (r->recs[i].type != type || r->recs[i].id != id)
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

static size_t stress_objs(struct stress *s)
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->nr_objs;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * Run the stress threads for STRESS_SECONDS, and longer if need be until
 * they made @min_objs objects (at most STRESS_MAX_SECONDS in all): a slow
 * machine makes fewer in the same time.
 */
static void run_stress(struct __test_metadata *_metadata, struct stress *s,
		       struct recorder *r, bool drain, size_t min_objs)
{
	pthread_t workers[STRESS_THREADS], reopener;
	uint64_t start = now_ns(), end = start + STRESS_SECONDS * 1000000000ULL;
	uint64_t limit = start + STRESS_MAX_SECONDS * 1000000000ULL;
	int i;

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->objs = calloc(STRESS_MAX_OBJS, sizeof(*s->objs));
	ASSERT_NE(NULL, s->objs);
	for (i = 0; i < STRESS_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&workers[i], NULL, stress_worker, s));
	ASSERT_EQ(0, pthread_create(&reopener, NULL, stress_reopener, s));
	while (!stress_stopped(s) && now_ns() < limit &&
	       (now_ns() < end || stress_objs(s) < min_objs)) {
		if (drain)
			recorder_drain(r);
		usleep(2000);
	}
	stress_stop(s);
	for (i = 0; i < STRESS_THREADS; i++)
		pthread_join(workers[i], NULL);
	pthread_join(reopener, NULL);
	ASSERT_EQ(0, s->errors);
	ASSERT_LE(min_objs ? min_objs : 1, s->nr_objs)
		TH_LOG("%zu objects in %d s", s->nr_objs, STRESS_MAX_SECONDS);
}

static int release_of(int create)
{
	return create + 1;
}

/* Create and free a map on each CPU in turn; 0 or -1. */
static int on_each_cpu_map_churn(void)
{
	int cpu, ncpus = get_nprocs_conf(), ret = 0;
	cpu_set_t saved, one;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -1;
	for (cpu = 0; cpu < ncpus && cpu < CPU_SETSIZE; cpu++) {
		int fd;

		if (!CPU_ISSET(cpu, &saved))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		fd = map_create(BPF_MAP_TYPE_ARRAY);
		if (fd < 0)
			ret = -1;
		else
			close(fd);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	return ret;
}

FIXTURE(stress) {
	struct stress s;
	struct recorder r;
};

FIXTURE_SETUP(stress)
{
	memset(self, 0, sizeof(*self));
}

FIXTURE_TEARDOWN(stress)
{
	recorder_close(&self->r);
	recorder_free(&self->r);
	free(self->s.objs);
}

/* A ring large enough for everything: each record exactly once, in order. */
TEST_F_TIMEOUT(stress, exact_count, 120)
{
	struct recorder *r = &self->r;
	struct stress *s = &self->s;
	size_t i, bad = 0;

	if (!open_recorder(_metadata, r, false, true, 512))
		return;
	run_stress(_metadata, s, r, true, 0);
	/* All releases happened in close(): they are in the rings now. */
	recorder_drain(r);
	ASSERT_EQ(0, r->corrupt);
	ASSERT_EQ(0, r->lost) TH_LOG("%llu records lost with a large ring",
				     (unsigned long long)r->lost);

	for (i = 0; i < s->nr_objs; i++) {
		struct obj_note *o = &s->objs[i];
		long c = find_unique(r, o->create, o->id);
		long f = find_unique(r, release_of(o->create), o->id);

		size_t dsize = bpf_event_desc_size(o->create);

		if (c < 0 || f < 0 ||
		    r->recs[c].flags != o->flags || r->recs[f].flags != o->flags ||
		    memcmp(&r->recs[c].desc, &o->desc, dsize) ||
		    memcmp(&r->recs[f].desc, &o->desc, dsize) ||
		    r->recs[c].tid != (uint32_t)o->tid ||
		    r->recs[f].tid != (uint32_t)o->tid ||
		    r->recs[c].pid != (uint32_t)getpid() ||
		    r->recs[c].time > r->recs[f].time) {
			if (bad++ < 5)
				TH_LOG("object type %d id %u: create %ld free %ld",
				       o->create, o->id, c, f);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu objects with wrong records",
				 bad, s->nr_objs);
	TH_LOG("%zu objects, %zu records", s->nr_objs, r->nr_recs);
}

/*
 * A ring of one page, never drained during the run: loss, not corruption.
 * A record is at least 32 bytes, so a page holds at most 128 of them, and
 * each object gives two: 128 objects per CPU overflow some CPU's ring
 * whatever the CPUs they were made on. A loaded machine makes fewer in
 * STRESS_SECONDS, so the run goes on until there are that many.
 */
TEST_F_TIMEOUT(stress, tiny_buffer_lost, 120)
{
	struct recorder *r = &self->r;
	struct stress *s = &self->s;
	size_t i;

	if (!open_recorder(_metadata, r, false, true, 1))
		return;
	run_stress(_metadata, s, r, false, 128 * get_nprocs_conf());
	/*
	 * A ring reports what it dropped with its next record once there is
	 * room again: make room, then emit a record on every CPU.
	 */
	recorder_drain(r);
	ASSERT_EQ(0, on_each_cpu_map_churn());
	recorder_drain(r);

	EXPECT_EQ(0, r->corrupt);
	EXPECT_LT(0, r->nr_lost_records);
	EXPECT_LT(0, r->lost);
	EXPECT_LE(2 * s->nr_objs, r->nr_recs + r->lost);
	for (i = 0; i < r->nr_recs; i++) {
		EXPECT_LT(PERF_BPF_EVENT_PROG_UNLOAD, r->recs[i].type);
		EXPECT_GE(PERF_BPF_EVENT_BTF_UNLOAD, r->recs[i].type);
		EXPECT_EQ(0, memcmp(r->recs[i].tag, zero_tag, BPF_TAG_SIZE));
		if (r->recs[i].type <= PERF_BPF_EVENT_PROG_UNLOAD ||
		    r->recs[i].type > PERF_BPF_EVENT_BTF_UNLOAD)
			break;
	}
	TH_LOG("%zu records, %llu lost", r->nr_recs, (unsigned long long)r->lost);
}

TEST_HARNESS_MAIN
