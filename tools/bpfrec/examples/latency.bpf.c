// SPDX-License-Identifier: GPL-2.0
/*
 * How long each call of a kernel function takes, here hrtimer_nanosleep()
 * (every nanosleep and clock_nanosleep): a kprobe notes the start per
 * thread, a kretprobe sends the time taken through the ring buffer
 * "latency", which bpfrec records as event ringbuf:latency and bpfrec
 * script decodes with struct latency (a struct named after its map).
 *
 *   bpfrec record --object latency.bpf.o -- sleep 1
 *   bpfrec record --object latency.bpf.o --set min_ns=1000000 --duration 10
 *   bpfrec script | grep ringbuf
 *
 * Another function: change both sections (kprobe/F, kretprobe/F).  On a
 * kernel with BPF trampolines, fentry/F and fexit/F do the same cheaper.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* calls shorter than this are not sent (bpfrec record --set min_ns=N) */
const volatile __u64 min_ns = 0;

struct latency {
	__u64 ns;
	__u32 pid;
	__u32 tid;
	char comm[16];
};

/* in BTF: the struct of a local variable is not, and script needs it */
struct latency *latency_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} latency SEC(".maps");

SEC("kprobe/hrtimer_nanosleep")
int BPF_KPROBE(sleep_enter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&starts, &tid, &now, BPF_ANY);
	return 0;
}

SEC("kretprobe/hrtimer_nanosleep")
int BPF_KRETPROBE(sleep_exit)
{
	__u64 id = bpf_get_current_pid_tgid(), *start, ns;
	__u32 tid = (__u32)id;
	struct latency *l;

	start = bpf_map_lookup_elem(&starts, &tid);
	if (!start)
		return 0;
	ns = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&starts, &tid);
	if (ns < min_ns)
		return 0;
	l = bpf_ringbuf_reserve(&latency, sizeof(*l), 0);
	if (!l)
		return 0;
	l->ns = ns;
	l->pid = id >> 32;
	l->tid = tid;
	bpf_get_current_comm(l->comm, sizeof(l->comm));
	bpf_ringbuf_submit(l, 0);
	return 0;
}
