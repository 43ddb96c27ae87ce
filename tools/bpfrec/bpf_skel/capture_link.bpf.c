// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of links: the facts about a link in the context of the task
 * attaching it, once the kernel assigned its id.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

static __always_inline void emit_link(struct bpf_link *link, __u32 id)
{
	struct bpf_prog *prog;
	struct cap_link *e;
	const char *func;

	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));

	prog = BPF_CORE_READ(link, prog);
	fill_hdr(&e->hdr, CAP_LINK_ATTACH, id);
	e->type = BPF_CORE_READ(link, type);
	e->prog_id = BPF_CORE_READ(prog, aux, id);
	e->attach_type = BPF_CORE_READ(prog, expected_attach_type);
	e->attach_btf_id = BPF_CORE_READ(prog, aux, attach_btf_id);
	if (bpf_core_field_exists(prog->aux->attach_func_name)) {
		func = BPF_CORE_READ(prog, aux, attach_func_name);
		if (func)
			bpf_probe_read_kernel_str(e->attach_func, sizeof(e->attach_func), func);
	}
	/*
	 * A raw_tp program names no function: the link holds the tracepoint.
	 * The syscalls report it only while the link lives, which a short
	 * one may not do until the recorder asks.
	 */
	if (e->type == BPF_LINK_TYPE_RAW_TRACEPOINT &&
	    bpf_core_type_exists(struct bpf_raw_tp_link)) {
		struct bpf_raw_tp_link *rl = container_of(link, struct bpf_raw_tp_link, link);

		func = BPF_CORE_READ(rl, btp, tp, name);
		if (func)
			bpf_probe_read_kernel_str(e->tp_name, sizeof(e->tp_name), func);
	}

	submit(e);
}

/* With trampolines: the link gets its id in here, the primer holds it. */
SEC("fentry/bpf_link_settle")
int BPF_PROG(link_fentry, struct bpf_link_primer *primer)
{
	emit_link(BPF_CORE_READ(primer, link), BPF_CORE_READ(primer, id));
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int link_enter(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(ctx, BPF_LINK_CREATE, BPF_RAW_TRACEPOINT_OPEN);
}

/*
 * This call's link holds the program of the fd passed: attr word 0 for
 * BPF_LINK_CREATE, word 2 for BPF_RAW_TRACEPOINT_OPEN.  A struct_ops
 * link holds a map, not a program: taken as it is.
 */
SEC("tracepoint/syscalls/sys_exit_bpf")
int link_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct bpf_prog *prog;
	struct bpf_link *link;
	struct cap_call call;
	__u32 prog_fd;

	if (!call_exit(ctx, &call, BPF_LINK_CREATE, BPF_RAW_TRACEPOINT_OPEN))
		return 0;
	link = fd_object(ctx->ret, "bpf_link", 8);
	if (!link)
		return 0;
	prog = BPF_CORE_READ(link, prog);
	prog_fd = call.cmd == BPF_LINK_CREATE ? call.attr[0] : call.attr[2];
	if (!prog || prog == fd_object(prog_fd, "bpf-prog", 8))
		emit_link(link, BPF_CORE_READ(link, id));
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
