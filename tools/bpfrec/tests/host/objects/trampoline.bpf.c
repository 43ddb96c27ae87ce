// SPDX-License-Identifier: GPL-2.0
/* fentry and fexit on a function every kernel has: needs BPF trampolines. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u64 calls, returns;

SEC("fentry/hrtimer_nanosleep")
int BPF_PROG(enter)
{
	calls++;
	return 0;
}

SEC("fexit/hrtimer_nanosleep")
int BPF_PROG(leave)
{
	returns++;
	return 0;
}
