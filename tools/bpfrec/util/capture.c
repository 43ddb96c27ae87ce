// SPDX-License-Identifier: GPL-2.0
/*
 * Load and attach capture.bpf.c, and drain its ring buffer.  Programs are
 * the point; the map, link and BTF hooks are attached when the running
 * kernel has the function they hook (some are static in kernel/bpf and a
 * kernel build may inline them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/capture.h"
#include "util/facts.h"
#include "bpf_skel/capture.skel.h"

static int warn_only(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool kernel_has_func(const struct btf *vmlinux, const char *name)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

/*
 * Trampoline hooks: the optional ones only where the kernel has their
 * function; the names of those left out go to @missing.
 */
static void select_trampolines(struct capture_bpf *skel, char *missing, size_t len)
{
	const struct {
		struct bpf_program *prog;
		const char *func;
	} opt[] = {
		{ skel->progs.map_create, "bpf_map_new_fd" },
		{ skel->progs.link_attach, "bpf_link_settle" },
		{ skel->progs.btf_load, "btf_alloc_id" },
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t i, used = 0;

	bpf_program__set_autoload(skel->progs.bpf_exit, false);
	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		if (kernel_has_func(vmlinux, opt[i].func))
			continue;
		bpf_program__set_autoload(opt[i].prog, false);
		used += snprintf(missing + used, len - used, "%s%s", used ? ", " : "",
				 opt[i].func);
		if (used >= len)
			break;
	}
	btf__free(vmlinux);
}

/* Without trampolines: the bpf() syscall exit hook alone. */
static void select_syscall_exit(struct capture_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.bpf_exit);
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

static struct capture_bpf *load(size_t buf_bytes, bool trampolines, char *missing, size_t len,
				int *err)
{
	struct capture_bpf *skel = capture_bpf__open();

	missing[0] = 0;
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	skel->rodata->self_tgid = getpid();
	skel->rodata->wakeup_bytes = buf_bytes / 4;
	*err = bpf_map__set_max_entries(skel->maps.events, buf_bytes);
	if (*err)
		goto fail;
	if (trampolines)
		select_trampolines(skel, missing, len);
	else
		select_syscall_exit(skel);
	*err = capture_bpf__load(skel);
	if (!*err)
		*err = capture_bpf__attach(skel);
	if (!*err)
		return skel;
fail:
	capture_bpf__destroy(skel);
	return NULL;
}

int capture_start(struct capture *c, size_t buf_bytes, ring_buffer_sample_fn fn, void *ctx)
{
	char missing[128];
	int err;

	memset(c, 0, sizeof(*c));
	libbpf_set_print(warn_only);
	if (!trampolines_refused()) {
		/* this attempt may fail by design: only the fallback's errors matter */
		libbpf_set_print(NULL);
		c->skel = load(buf_bytes, true, missing, sizeof(missing), &err);
		libbpf_set_print(warn_only);
	}
	if (!c->skel)
		c->skel = load(buf_bytes, false, missing, sizeof(missing), &err);
	if (!c->skel)
		return err;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), fn, ctx, NULL);
	if (!c->rb) {
		err = -errno;
		capture_bpf__destroy(c->skel);
		c->skel = NULL;
		return err;
	}
	if (missing[0])
		fprintf(stderr, "bpfrec: kernel lacks %s: those objects are resolved by id only\n",
			missing);
	return 0;
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
	return __atomic_load_n(&c->skel->bss->drops, __ATOMIC_RELAXED);
}

struct bpf_object *capture_object(const struct capture *c)
{
	return c->skel->obj;
}

/* Fills @info (zeroed first) for the object of @fd; false without one. */
static bool obj_info(int fd, void *info, __u32 len)
{
	memset(info, 0, len);
	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, info, &len);
}

/*
 * The capture's objects exist before the recording starts, so they are
 * synthesised like everybody's: mark them, so that no one takes them
 * for objects of the system being recorded.
 */
void capture_mark_self(const struct capture *c, struct facts *f)
{
	const struct bpf_object_skeleton *sk = c->skel->skeleton;
	struct pd_origin self = { .pid = getpid(), .tid = getpid(), .uid = getuid() };
	struct bpf_prog_info prog;
	struct bpf_map_info map;
	struct bpf_link_info link;
	struct bpf_btf_info btf;
	const struct btf *obj_btf;
	int i;

	/* the skeleton is loaded and attached by the main thread */
	prctl(PR_GET_NAME, self.comm);
	for (i = 0; i < sk->prog_cnt; i++) {
		struct bpf_link *l = *sk->progs[i].link;

		if (obj_info(bpf_program__fd(*sk->progs[i].prog), &prog, sizeof(prog)))
			facts_mark_self(f, FACT_PROG, prog.id, &self);
		if (l && obj_info(bpf_link__fd(l), &link, sizeof(link)))
			facts_mark_self(f, FACT_LINK, link.id, &self);
	}
	for (i = 0; i < sk->map_cnt; i++) {
		if (obj_info(bpf_map__fd(*sk->maps[i].map), &map, sizeof(map)))
			facts_mark_self(f, FACT_MAP, map.id, &self);
	}
	obj_btf = bpf_object__btf(c->skel->obj);
	if (obj_btf && obj_info(btf__fd(obj_btf), &btf, sizeof(btf)))
		facts_mark_self(f, FACT_BTF, btf.id, &self);
}

void capture_stop(struct capture *c)
{
	ring_buffer__free(c->rb);
	capture_bpf__destroy(c->skel);
	memset(c, 0, sizeof(*c));
}
