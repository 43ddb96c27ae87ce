// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the stat -b benchmark: fentry and fexit programs that do
 * nothing, attached to the target (tests/stat/target.bpf.c) by stat-prog
 * -f.  What they cost per run is what any trampoline-based profiler pays
 * before it reads a counter.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("fentry/stat_target_with_a_long_name")
int BPF_PROG(floor_entry)
{
	return 0;
}

SEC("fexit/stat_target_with_a_long_name")
int BPF_PROG(floor_exit)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
