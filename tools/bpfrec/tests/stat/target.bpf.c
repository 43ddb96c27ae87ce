// SPDX-License-Identifier: GPL-2.0
/*
 * Targets of the stat tests and benchmarks: an XDP program with BTF (so
 * fentry/fexit can attach to it) whose name is longer than the 16 bytes
 * bpf_prog_info keeps, to check that the full BTF name is shown.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

__u64 runs;

SEC("xdp")
int stat_target_with_a_long_name(struct xdp_md *ctx)
{
	__sync_fetch_and_add(&runs, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
