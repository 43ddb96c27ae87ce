// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of BTF: the facts about a BTF object in the context of the
 * task loading it, once the kernel assigned its id.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

static __always_inline void emit_btf(struct btf *btf)
{
	struct cap_btf *e;

	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));

	fill_hdr(&e->hdr, CAP_BTF_LOAD, BPF_CORE_READ(btf, id));
	e->size = BPF_CORE_READ(btf, data_size);
	/* kernel and module BTF, and their names, came with split BTF (5.11) */
	if (bpf_core_field_exists(btf->kernel_btf))
		e->kernel = BPF_CORE_READ(btf, kernel_btf);
	if (bpf_core_field_exists(btf->name))
		BPF_CORE_READ_STR_INTO(&e->name, btf, name);

	submit(e);
}

/* With trampolines: every BTF object, modules' too, gets its id here. */
SEC("fexit/btf_alloc_id")
int BPF_PROG(btf_fexit, struct btf *btf, int ret)
{
	if (!ret)
		emit_btf(btf);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int btf_enter(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(ctx, 1ULL << BPF_BTF_LOAD);
}

/* This call's BTF has the size passed (attr word 4, btf_size). */
SEC("tracepoint/syscalls/sys_exit_bpf")
int btf_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct cap_call call;
	struct btf *btf;

	if (!call_exit(ctx, &call, 1ULL << BPF_BTF_LOAD))
		return 0;
	btf = fd_object(ctx->ret, "btf", 3);
	if (btf && BPF_CORE_READ(btf, data_size) == call.attr[4])
		emit_btf(btf);
	call_end();
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
