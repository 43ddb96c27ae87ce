// SPDX-License-Identifier: GPL-2.0
/*
 * Load and attach the capture, and drain its ring buffer.  The capture
 * is one BPF object (bpf_skel/capture_<kind>.bpf.c linked together) whose
 * programs are named by kind ("prog_", "map_", "link_", "btf_").  All
 * kinds are loaded at once (libbpf parses the vmlinux BTF once per load:
 * most of the start-up); if that fails, each kind is loaded alone from a
 * fresh copy, so that a CO-RE relocation or a hook the running kernel
 * lacks loses that kind only, and says so.
 *
 * Paths: BPF trampolines at the function that assigns the id (fentry),
 * which cost nothing to anyone else; or, where the kernel refuses
 * trampolines or lacks the function, the syscalls:sys_enter_bpf and
 * sys_exit_bpf tracepoints, whose programs run for bpf() only.  (Any
 * syscall tracepoint makes every syscall of the machine take the
 * kernel's traced entry and exit: bench/run-syscall-cost.sh measures
 * what that costs.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/capture.h"
#include "util/core_btf.h"
#include "util/debug.h"
#include "util/facts.h"
#include "util/perf_data/perf_data.h"
#include "util/syscall_cost.h"
#include "util/vmlinux_btf.h"
/* after the types it uses: it is shared with the BPF side, which has no uapi headers */
#include "bpf_skel/capture.h"
#include "bpf_skel/capture.skel.h"

static const struct {
	const char *name;		/* "programs", as said */
	const char *one;		/* "program" */
	const char *prefix;		/* of its programs' names */
	const char *fentry_func;	/* the kernel function its trampoline hooks */
	__u16 record;			/* the PERF_BPF_EVENT_* of a creation */
} kinds[CAP_NR_KINDS] = {
	{ "programs", "program", "prog_", "perf_event_bpf_event", PERF_BPF_EVENT_PROG_LOAD },
	{ "maps", "map", "map_", "bpf_map_new_fd", PERF_BPF_EVENT_MAP_CREATE },
	{ "links", "link", "link_", "bpf_link_settle", PERF_BPF_EVENT_LINK_ATTACH },
	{ "BTF", "BTF", "btf_", "btf_alloc_id", PERF_BPF_EVENT_BTF_LOAD },
};

#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"
#define SYS_ENTER_BPF_ID	"/events/syscalls/sys_enter_bpf/id"

const char *capture_path_name(enum capture_path path)
{
	static const char *const names[] = {
		[CAPTURE_AUTO] = "auto",
		[CAPTURE_FENTRY] = "fentry",
		[CAPTURE_SYSCALL] = "syscall",
		[CAPTURE_OFF] = "off",
	};

	return names[path];
}

/*
 * Whether the kernel refuses trampoline programs outright: a security
 * module may, even to root, before the verifier looks at the program.
 * Asked with one two-instruction program rather than learnt from a failed
 * load of the capture, which parses the vmlinux BTF and relocates every
 * program first: most of the recorder's start-up.  A kernel that takes
 * trampolines rejects this one for want of a btf_id, with EINVAL.
 */
static bool trampolines_refused(void)
{
	const struct bpf_insn insns[] = {
		/* r0 = 0; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EPERM || errno == EACCES;
}

/*
 * libbpf finds a tracepoint's id in tracefs: mount it where it is missing
 * (said by the recorder).  -EACCES when this user may not read it (root
 * only by default, CAP_PERFMON is not enough), -ENOENT when the kernel
 * has no bpf() syscall tracepoints (CONFIG_FTRACE_SYSCALLS).
 */
static int tracefs_ready(struct capture *c)
{
	if (!access(TRACEFS SYS_ENTER_BPF_ID, R_OK))
		return 0;
	if (errno == EACCES || errno == EPERM)
		return -EACCES;
	if (!access(DEBUGFS_TRACING SYS_ENTER_BPF_ID, R_OK))
		return 0;
	if (!access(TRACEFS "/events", F_OK))
		return -ENOENT;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	c->mounted_tracefs = true;
	return access(TRACEFS SYS_ENTER_BPF_ID, R_OK) ? -ENOENT : 0;
}

/* The maps every loaded copy of the capture uses. */
static int shared_maps(struct capture *c, size_t buf_bytes)
{
	struct cap_state st = { .wakeup_bytes = buf_bytes / 4 };
	__u32 zero = 0;

	c->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cap_events", 0, 0, buf_bytes, NULL);
	if (c->events_fd < 0)
		return -errno;
	c->state_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "cap_state", sizeof(zero), sizeof(st),
				     1, NULL);
	if (c->state_fd < 0 || bpf_map_update_elem(c->state_fd, &zero, &st, BPF_ANY))
		return -errno;
	/* entries live for one syscall: allocated when used */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	c->calls_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "cap_calls", sizeof(__u32),
				     sizeof(struct cap_call), CAP_MAX_CALLS, &opts);
	if (c->calls_fd < 0)
		return -errno;
	c->tasks_fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "cap_tasks", sizeof(__u64),
				     sizeof(struct cap_task_seen), CAP_MAX_CALLS, NULL);
	return c->tasks_fd < 0 ? -errno : 0;
}

static int reuse(struct bpf_object *obj, const char *name, int fd)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, name);

	return map ? bpf_map__reuse_fd(map, fd) : -ENOENT;
}

/* The kind a program of the capture belongs to, by its name. */
static int prog_kind(const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	int k;

	for (k = 0; k < CAP_NR_KINDS; k++)
		if (!strncmp(name, kinds[k].prefix, strlen(kinds[k].prefix)))
			return k;
	return -1;
}

static bool on_path(const struct bpf_program *prog, enum capture_path path)
{
	return (path == CAPTURE_FENTRY) == (bpf_program__type(prog) == BPF_PROG_TYPE_TRACING);
}

static void links_destroy(struct capture *c, unsigned int mask)
{
	struct capture_kind *ck;
	size_t i;
	int k;

	for (k = 0; k < CAP_NR_KINDS; k++) {
		if (!(mask & (1U << k)))
			continue;
		ck = &c->kind[k];
		for (i = 0; i < sizeof(ck->links) / sizeof(ck->links[0]); i++)
			bpf_link__destroy(ck->links[i]);
		memset(ck->links, 0, sizeof(ck->links));
	}
}

/*
 * A copy of the capture with the programs of the kinds in @mask only, each
 * by its kind's path, loaded and attached; kept in c->skel[] on success.
 */
static int load(struct capture *c, unsigned int mask)
{
	char btf_path[32];
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct capture_bpf *skel;
	struct capture_kind *ck;
	struct bpf_program *prog;
	size_t n;
	int err, k;

	/* CO-RE relocates against this copy of the vmlinux BTF */
	if (c->btf_fd >= 0) {
		snprintf(btf_path, sizeof(btf_path), "/proc/self/fd/%d", c->btf_fd);
		opts.btf_custom_path = btf_path;
	}
	skel = capture_bpf__open_opts(&opts);
	if (!skel)
		return -errno;
	err = reuse(skel->obj, "cap_events", c->events_fd);
	if (!err)
		err = reuse(skel->obj, "cap_state", c->state_fd);
	if (!err)
		err = reuse(skel->obj, "cap_calls", c->calls_fd);
	if (!err)
		err = reuse(skel->obj, "cap_tasks", c->tasks_fd);
	bpf_object__for_each_program(prog, skel->obj) {
		k = prog_kind(prog);
		bpf_program__set_autoload(prog, k >= 0 && (mask & (1U << k)) &&
					  on_path(prog, c->kind[k].path));
	}
	if (!err)
		err = bpf_object__load(skel->obj);
	bpf_object__for_each_program(prog, skel->obj) {
		if (err || !bpf_program__autoload(prog))
			continue;
		ck = &c->kind[prog_kind(prog)];
		/* at most two programs of a kind are on one path */
		for (n = 0; n + 1 < sizeof(ck->links) / sizeof(ck->links[0]) && ck->links[n]; n++)
			;
		if (!(ck->links[n] = bpf_program__attach(prog)))
			err = -errno;
	}
	if (err) {
		links_destroy(c, mask);
		capture_bpf__destroy(skel);
		return err;
	}
	c->skel[c->nr_skel++] = skel;
	for (k = 0; k < CAP_NR_KINDS; k++)
		if (mask & (1U << k))
			c->kind[k].on = true;
	return 0;
}

/*
 * A memfd with the vmlinux types the capture relocates against: the part of
 * @vmlinux its relocations can use (util/core_btf.c), which spares libbpf a
 * scan of every kernel type per relocated type, or else the whole.
 */
static int core_btf_fd(const struct btf *vmlinux)
{
	struct capture_bpf *skel = vmlinux ? capture_bpf__open() : NULL;
	struct btf *subset = NULL;
	int fd = -1;

	if (skel)
		subset = core_btf_subset(bpf_object__btf(skel->obj), vmlinux);
	capture_bpf__destroy(skel);
	if (subset)
		fd = core_btf_memfd(subset);
	btf__free(subset);
	return fd >= 0 ? fd : vmlinux_btf_memfd();
}

static bool kernel_has_func(const struct btf *vmlinux, const char *name)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

/*
 * The path of kind @k: auto takes trampolines unless the kernel refuses
 * them or lacks the kind's function (missing, or inlined away).
 */
static enum capture_path kind_path(int k, enum capture_path want, bool refused,
				   const struct btf *vmlinux)
{
	if (want != CAPTURE_AUTO)
		return want;
	if (refused || !kernel_has_func(vmlinux, kinds[k].fentry_func))
		return CAPTURE_SYSCALL;
	return CAPTURE_FENTRY;
}

/* Kind @k alone, after a load of every kind failed; auto falls back to syscall. */
static int kind_retry(struct capture *c, int k, enum capture_path want)
{
	struct capture_kind *ck = &c->kind[k];
	int err = load(c, 1U << k);

	if (err && want == CAPTURE_AUTO && ck->path == CAPTURE_FENTRY) {
		ck->path = CAPTURE_SYSCALL;
		err = tracefs_ready(c);
		if (!err)
			err = load(c, 1U << k);
	}
	return err;
}

/* Quiet but for -v, which shows why a kind failed (util/debug.h). */
static int no_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return debug_libbpf_verbose(level, fmt, ap);
}

/* What the recorder shows of libbpf once the capture is loaded. */
static int warn_only(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return debug_libbpf_print(level, fmt, ap);
}

int capture_start(struct capture *c, const struct capture_opts *o,
		  ring_buffer_sample_fn fn, void *ctx)
{
	bool refused = o->path != CAPTURE_SYSCALL && trampolines_refused();
	struct btf *vmlinux = NULL;
	unsigned int mask = 0, syscall = 0;
	struct capture_kind *ck;
	int k, err;

	memset(c, 0, sizeof(*c));
	c->events_fd = c->state_fd = c->calls_fd = c->tasks_fd = c->btf_fd = -1;
	/* -v loads the capture all the same, for libbpf to say why it fails */
	if (o->path == CAPTURE_FENTRY && refused && verbose <= 0)
		return -EPERM;
	if (o->path == CAPTURE_FENTRY)
		refused = false;
	err = shared_maps(c, o->buf_bytes);
	if (err)
		goto fail;
	vmlinux = vmlinux_btf_load();
	for (k = 0; k < CAP_NR_KINDS; k++) {
		ck = &c->kind[k];
		if (!(o->kinds & (1U << k)))
			continue;
		ck->path = kind_path(k, o->path, refused, vmlinux);
		if (ck->path == CAPTURE_FENTRY && !kernel_has_func(vmlinux, kinds[k].fentry_func))
			ck->err = -ENOENT;
		else if (ck->path == CAPTURE_SYSCALL)
			syscall |= 1U << k;
		else
			mask |= 1U << k;
	}
	c->refused = refused;
	if (mask || syscall)
		c->btf_fd = core_btf_fd(vmlinux);
	btf__free(vmlinux);
	if (syscall) {
		err = tracefs_ready(c);
		for (k = 0; err && k < CAP_NR_KINDS; k++)
			if (syscall & (1U << k))
				c->kind[k].err = err;
		if (!err)
			mask |= syscall;
		/* the price of the traced path is told to the user: before it */
		if (!err && o->measure_cost)
			c->syscall_ns_before = syscall_cost_quick_ns();
	}
	/* a kind that fails is said in one line, without libbpf's verifier log */
	libbpf_set_print(no_print);
	if (mask && load(c, mask)) {
		for (k = 0; k < CAP_NR_KINDS; k++)
			if (mask & (1U << k))
				c->kind[k].err = kind_retry(c, k, o->path);
	}
	libbpf_set_print(warn_only);
	if (c->syscall_ns_before) {
		for (k = 0; k < CAP_NR_KINDS; k++)
			if ((syscall & (1U << k)) && c->kind[k].on)
				break;
		if (k < CAP_NR_KINDS)
			c->syscall_ns_after = syscall_cost_quick_ns();
		else
			c->syscall_ns_before = 0;
	}
	if (c->btf_fd >= 0)
		close(c->btf_fd);
	c->btf_fd = -1;
	err = -ENOENT;
	for (k = CAP_NR_KINDS - 1; k >= 0; k--)
		if (c->kind[k].err)
			err = c->kind[k].err;
	if (!c->nr_skel)
		goto fail;
	c->rb = ring_buffer__new(c->events_fd, fn, ctx, NULL);
	if (c->rb)
		return 0;
	err = -errno;
fail:
	capture_stop(c);
	return err;
}

void capture_describe(const struct capture *c, char *buf, size_t len)
{
	static const enum capture_path paths[] = { CAPTURE_FENTRY, CAPTURE_SYSCALL };
	size_t used = 0, p;
	int k, n;

	buf[0] = 0;
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		for (k = 0, n = 0; k < CAP_NR_KINDS && used < len; k++) {
			if (!c->kind[k].on || c->kind[k].path != paths[p])
				continue;
			used += snprintf(buf + used, len - used, "%s%s", n++ ? ", " : used ? "; " : "",
					 kinds[k].name);
		}
		if (n && used < len)
			used += snprintf(buf + used, len - used, " (%s)",
					 paths[p] == CAPTURE_FENTRY ? "fentry" :
					 "syscall: sys_enter_bpf/sys_exit_bpf tracepoints");
	}
}

/* Why kind @k is not captured. */
static void why_not(const struct capture *c, int k, char *buf, size_t len)
{
	const struct capture_kind *ck = &c->kind[k];

	if (ck->err == -ENOENT && ck->path == CAPTURE_FENTRY)
		snprintf(buf, len, "the kernel has no function %s to hook", kinds[k].fentry_func);
	else if (ck->err == -ENOENT)
		snprintf(buf, len, "the kernel has no syscalls:sys_enter_bpf tracepoint");
	else if (ck->err == -EACCES && ck->path == CAPTURE_SYSCALL)
		snprintf(buf, len, "the bpf() tracepoints' ids are in " TRACEFS
			 ", unreadable to this user (give read access or run as root)");
	else
		snprintf(buf, len, "%s capture failed (%s)", capture_path_name(ck->path),
			 strerror(-ck->err));
}

void capture_say_missing(const struct capture *c, unsigned int asked)
{
	char why[128];
	int k;

	for (k = 0; k < CAP_NR_KINDS; k++) {
		if (!(asked & (1U << k)) || c->kind[k].on)
			continue;
		why_not(c, k, why, sizeof(why));
		pr_warning("%s are not captured: %s\n", kinds[k].name, why);
	}
}

void capture_say_failed(const struct capture *c, const char *prefix)
{
	char why[128] = "nothing asked for";
	int k;

	for (k = 0; k < CAP_NR_KINDS; k++) {
		if (c->kind[k].err) {
			why_not(c, k, why, sizeof(why));
			break;
		}
	}
	fprintf(stderr, "%s%s\n", prefix, why);
}

int capture_epoll_fd(const struct capture *c)
{
	return ring_buffer__epoll_fd(c->rb);
}

int capture_drain(struct capture *c)
{
	return ring_buffer__consume(c->rb);
}

__u64 capture_drops(const struct capture *c)
{
	struct cap_state st = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(c->state_fd, &zero, &st);
	return st.drops;
}

struct bpf_object *capture_object(const struct capture *c, int i)
{
	return i < c->nr_skel ? c->skel[i]->obj : NULL;
}

/* Fills @info (zeroed first) for the object of @fd; false without one. */
static bool obj_info(int fd, void *info, __u32 len)
{
	memset(info, 0, len);
	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, info, &len);
}

/* The programs, maps and BTF of @obj. */
static void object_mark_self(struct bpf_object *obj, struct facts *f, const struct pd_origin *self)
{
	struct bpf_prog_info prog;
	struct bpf_map_info map;
	struct bpf_btf_info btf;
	const struct btf *obj_btf;
	struct bpf_program *p;
	struct bpf_map *m;

	bpf_object__for_each_program(p, obj)
		if (obj_info(bpf_program__fd(p), &prog, sizeof(prog)))
			facts_mark_self(f, PD_PROG, prog.id, self);
	bpf_object__for_each_map(m, obj)
		if (obj_info(bpf_map__fd(m), &map, sizeof(map)))
			facts_mark_self(f, PD_MAP, map.id, self);
	obj_btf = bpf_object__btf(obj);
	if (obj_btf && obj_info(btf__fd(obj_btf), &btf, sizeof(btf)))
		facts_mark_self(f, PD_BTF, btf.id, self);
}

static void link_mark_self(struct bpf_link *l, struct facts *f, const struct pd_origin *self)
{
	struct bpf_link_info link;

	if (l && obj_info(bpf_link__fd(l), &link, sizeof(link)))
		facts_mark_self(f, PD_LINK, link.id, self);
}

/*
 * The capture's objects exist before the recording starts, so they are
 * synthesised like everybody's: mark them, so that no one takes them
 * for objects of the system being recorded.  So are those of the other
 * skeletons the recorder loads (skel_mark_self()).
 */
void capture_mark_self(const struct capture *c, struct facts *f)
{
	const struct capture_kind *ck;
	struct pd_origin self;
	size_t i;
	int k;

	facts_self_origin(&self);
	for (i = 0; i < (size_t)c->nr_skel; i++)
		object_mark_self(c->skel[i]->obj, f, &self);
	for (k = 0; k < CAP_NR_KINDS; k++) {
		ck = &c->kind[k];
		for (i = 0; i < sizeof(ck->links) / sizeof(ck->links[0]); i++)
			link_mark_self(ck->links[i], f, &self);
	}
}

void skel_mark_self(const struct bpf_object_skeleton *sk, struct facts *f)
{
	struct pd_origin self;
	int i;

	facts_self_origin(&self);
	object_mark_self(*sk->obj, f, &self);
	for (i = 0; i < sk->prog_cnt; i++)
		link_mark_self(*sk->progs[i].link, f, &self);
}

void capture_missed(struct capture *c, const struct pd_bpf_event *e)
{
	struct capture_kind *ck;
	int k;

	for (k = 0; k < CAP_NR_KINDS && kinds[k].record != e->type; k++)
		;
	if (k == CAP_NR_KINDS || !c->kind[k].on)
		return;
	ck = &c->kind[k];
	/* a module's BTF comes with the module, not through bpf() */
	if (ck->path == CAPTURE_SYSCALL && e->type == PERF_BPF_EVENT_BTF_LOAD &&
	    (e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL))
		return;
	ck->missed++;
	if (c->warned)
		return;
	c->warned = true;
	pr_warning("warning: the capture has no facts of %s %u, resolved by id instead; counts at the end\n",
		   kinds[k].one, e->id);
}

bool capture_in_call(const struct capture *c, __u32 tid)
{
	struct cap_call call;

	return c->calls_fd >= 0 && !bpf_map_lookup_elem(c->calls_fd, &tid, &call);
}

void capture_report_missed(const struct capture *c)
{
	char buf[160];
	size_t used = 0;
	int k;

	for (k = 0; k < CAP_NR_KINDS && used < sizeof(buf); k++)
		if (c->kind[k].missed)
			used += snprintf(buf + used, sizeof(buf) - used, "%s%llu %s",
					 used ? ", " : "", (unsigned long long)c->kind[k].missed,
					 c->kind[k].missed == 1 ? kinds[k].one : kinds[k].name);
	if (used)
		pr_warning("records without captured facts: %s (resolved by id, if still there)\n",
			   buf);
}

void capture_stop(struct capture *c)
{
	int i;

	ring_buffer__free(c->rb);
	c->rb = NULL;
	links_destroy(c, CAPTURE_ALL);
	for (i = 0; i < c->nr_skel; i++)
		capture_bpf__destroy(c->skel[i]);
	c->nr_skel = 0;
	for (i = 0; i < CAP_NR_KINDS; i++)
		c->kind[i].on = false;
	if (c->events_fd >= 0)
		close(c->events_fd);
	if (c->state_fd >= 0)
		close(c->state_fd);
	if (c->calls_fd >= 0)
		close(c->calls_fd);
	if (c->tasks_fd >= 0)
		close(c->tasks_fd);
	/* why each kind is not captured stays, to be said */
	c->events_fd = c->state_fd = c->calls_fd = c->tasks_fd = -1;
}
