// SPDX-License-Identifier: GPL-2.0
/*
 * A caller and its callee for the tail-call checks of stat -b (stat-prog
 * -T): each run of the caller tail-calls the callee in slot 0 of its
 * PROG_ARRAY once, so that after N test runs of the caller the callee has
 * run N times, every one of them reached by tail call.  XDP programs with
 * BTF, as target.bpf.c: fentry/fexit can attach to both.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} callees SEC(".maps");

/* in one struct: stat-prog -T -i reads it from the .bss map by layout */
struct {
	__u64 caller;
	__u64 callee;
} runs;

SEC("xdp")
int stat_tail_callee(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&runs.callee, 1);
	return XDP_PASS;
}

SEC("xdp")
int stat_tail_caller(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&runs.caller, 1);
	bpf_tail_call(ctx, &callees, 0);
	/* reached only when slot 0 is empty */
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
