// SPDX-License-Identifier: GPL-2.0
/*
 * Two programs and a map; the verifier takes the first program and
 * rejects the second (a read past the end of a map value): bpfrec must
 * name it, show its log's tail, and leave nothing behind.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

SEC("tracepoint/sched/sched_process_exec")
int good_first(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&hits, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int bad_second(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&hits, &key);

	/* no NULL check, and 8 bytes past the value: two reasons to refuse */
	return v[1];
}
