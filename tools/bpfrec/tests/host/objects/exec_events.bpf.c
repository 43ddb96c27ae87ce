// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF object as libbpf-tools writes them: a ring buffer "events" of
 * struct exec_event, named after neither the map nor its singular, and in
 * BTF through the value of a per-CPU heap map.  bpfrec script decodes its
 * records as the only struct of their size, or with --decode
 * events=exec_event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct exec_event {
	__u32 pid;
	__u32 tid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_event);
} heap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("tracepoint/sched/sched_process_exec")
int exec(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 zero = 0;
	struct exec_event *e = bpf_map_lookup_elem(&heap, &zero);

	if (!e)
		return 0;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_output(&events, e, sizeof(*e), 0);
	return 0;
}
