// SPDX-License-Identifier: GPL-2.0
/*
 * A program with two bpf_metadata_* variables, as bpftool documents
 * them (bpftool-prog(8)): the program reads one, so that its .rodata map
 * is among the maps the program uses, where bpftool and perf look.  It
 * also calls a helper and a sub-program, and reads a map, so that its
 * dump has calls, a map reference and a pseudo call.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

volatile const char bpf_metadata_owner[] SEC(".rodata") = "bpfrec test";
volatile const int bpf_metadata_level SEC(".rodata") = -42;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __noinline int count(__u64 *v)
{
	if (v)
		__sync_fetch_and_add(v, bpf_get_smp_processor_id() + 1);
	return 0;
}

SEC("raw_tp/sys_enter")
int meta_prog(void *ctx)
{
	__u32 zero = 0;

	if (bpf_metadata_level > 0)
		return 0;
	return count(bpf_map_lookup_elem(&hits, &zero));
}
