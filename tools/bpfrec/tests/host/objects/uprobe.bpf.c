// SPDX-License-Identifier: GPL-2.0
/*
 * A uprobe and a uretprobe on libc's getppid(), which bash calls once as
 * it starts (for $PPID): a record per call and per return, with the comm.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct calls {
	__u32 ret;
	char comm[16];
};

struct calls *calls_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} calls SEC(".maps");

static int send(void *ctx, __u32 ret)
{
	struct calls c = { .ret = ret };

	bpf_get_current_comm(c.comm, sizeof(c.comm));
	bpf_perf_event_output(ctx, &calls, BPF_F_CURRENT_CPU, &c, sizeof(c));
	return 0;
}

SEC("uprobe//lib/x86_64-linux-gnu/libc.so.6:getppid")
int getppid_enter(void *ctx)
{
	return send(ctx, 0);
}

SEC("uretprobe//lib/x86_64-linux-gnu/libc.so.6:getppid")
int getppid_exit(void *ctx)
{
	return send(ctx, 1);
}
