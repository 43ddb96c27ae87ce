// SPDX-License-Identifier: GPL-2.0
/*
 * `bpfrec stat -b`: what one BPF program costs per run.  fentry reads
 * every event on entry, fexit reads them again and adds the difference to
 * a per-CPU accumulator; user space sums the CPUs.  One object per
 * target: user space points both programs at it before loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "stat_profile.h"

const volatile __u32 nr_events = 1;
/* possible CPUs: the events map holds event i of cpu c at i * nr_cpus + c */
const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* On entry; zeroed when the read failed, so that fexit skips it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_PROFILE_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} entry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_PROFILE_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} accum SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} runs SEC(".maps");

SEC("fentry/target")
int BPF_PROG(on_entry)
{
	__u32 cpu = bpf_get_smp_processor_id(), i;

	for (i = 0; i < STAT_PROFILE_MAX_EVENTS; i++) {
		/* a copy: with its address taken, a 6.1 verifier loses the counter */
		__u32 key = i;
		struct bpf_perf_event_value *v;

		if (i >= nr_events)
			break;
		v = bpf_map_lookup_elem(&entry, &key);
		if (!v)
			break;
		if (bpf_perf_event_read_value(&events, i * nr_cpus + cpu, v, sizeof(*v)))
			__builtin_memset(v, 0, sizeof(*v));
	}
	return 0;
}

SEC("fexit/target")
int BPF_PROG(on_exit)
{
	__u32 cpu = bpf_get_smp_processor_id(), i, zero = 0;
	struct bpf_perf_event_value now;
	__u64 *n = bpf_map_lookup_elem(&runs, &zero);

	if (n)
		*n += 1;
	for (i = 0; i < STAT_PROFILE_MAX_EVENTS; i++) {
		__u32 key = i;
		struct bpf_perf_event_value *before, *acc;

		if (i >= nr_events)
			break;
		before = bpf_map_lookup_elem(&entry, &key);
		acc = bpf_map_lookup_elem(&accum, &key);
		if (!before || !acc)
			break;
		if (!before->enabled ||
		    bpf_perf_event_read_value(&events, i * nr_cpus + cpu, &now, sizeof(now)))
			continue;
		acc->counter += now.counter - before->counter;
		acc->enabled += now.enabled - before->enabled;
		acc->running += now.running - before->running;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
