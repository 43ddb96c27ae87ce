// SPDX-License-Identifier: GPL-2.0
/*
 * A map libbpf pins by name (LIBBPF_PIN_BY_NAME), which bpfrec must pin
 * in a directory of its own and remove at exit, and a 16-byte global,
 * which --set must refuse (it parses numbers into 8 bytes).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __int128 wide = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} bpfrec_sec_pin SEC(".maps");

SEC("tracepoint/sched/sched_process_exec")
int count_exec(void *ctx)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&bpfrec_sec_pin, &zero);

	if (n && wide)
		__sync_fetch_and_add(n, 1);
	return 0;
}
