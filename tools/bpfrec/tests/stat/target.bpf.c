// SPDX-License-Identifier: GPL-2.0
/*
 * Targets of the stat tests and benchmarks: an XDP program with BTF (so
 * fentry/fexit can attach to it) whose name is longer than the 16 bytes
 * bpf_prog_info keeps, to check that the full BTF name is shown.  With
 * spin set (stat-prog -w) each run first adds up that many numbers: a
 * program that holds the CPU long enough to be sampled in its own code.
 * With bimodal set too (stat-prog -m), every tenth run (the 10th, 20th,
 * ...) adds up 100 times as many: run times of two modes, 9 to 1.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 spin;
const volatile bool bimodal;
__u64 runs, work;

SEC("xdp")
int stat_target_with_a_long_name(struct xdp_md *ctx)
{
	__u32 i, n = spin;

	/* test runs are one at a time: runs counts them in order */
	if (bimodal && runs % 10 == 9)
		n = spin * 100;
	/* bounded: the verifier knows spin, .rodata is frozen at load */
	for (i = 0; i < n; i++)
		__sync_fetch_and_add(&work, i);
	__sync_fetch_and_add(&runs, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
