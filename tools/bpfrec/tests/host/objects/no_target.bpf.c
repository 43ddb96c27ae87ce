// SPDX-License-Identifier: GPL-2.0
/* A tracepoint that does not exist: the attach target is named. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tracepoint/sched/no_such_tracepoint")
int nowhere(void *ctx)
{
	return 0;
}
