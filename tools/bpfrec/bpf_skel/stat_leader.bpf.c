// SPDX-License-Identifier: GPL-2.0
/*
 * The leader of shared counters: one per distinct perf_event_attr on the
 * machine, whatever the number of sessions counting it.  At every context
 * switch it reads the CPU's perf event and leaves the difference since
 * its last run in a per-CPU diff map; the sessions' followers (fexit on
 * this program) take the diff that belongs to them.  It also keeps the
 * per-CPU running total: a session of the whole machine or of some CPUs
 * reads that and needs no follower, so it costs nothing per switch (and
 * no trampoline).  A raw tracepoint
 * program, not tp_btf: a trampoline cannot attach to another tracing one,
 * and BPF_PROG_TEST_RUN can run a raw tracepoint program on a given CPU.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "stat_bperf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} prev SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} diff SEC(".maps");

/* the sum of the diffs: what the CPU's event counted while the leader lived */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} total SEC(".maps");

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch)
{
	__u32 zero = 0;
	struct bpf_perf_event_value now, *p, *d, *t;

	p = bpf_map_lookup_elem(&prev, &zero);
	d = bpf_map_lookup_elem(&diff, &zero);
	t = bpf_map_lookup_elem(&total, &zero);
	if (!p || !d || !t)
		return BPERF_OK;
	if (bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU, &now, sizeof(now))) {
		__builtin_memset(d, 0, sizeof(*d));
		return BPERF_NO_EVENT;
	}
	/* a new event in the slot (re-installed): its start is the baseline */
	if (now.enabled < p->enabled) {
		__builtin_memset(d, 0, sizeof(*d));
	} else {
		d->counter = now.counter - p->counter;
		d->enabled = now.enabled - p->enabled;
		d->running = now.running - p->running;
		t->counter += d->counter;
		t->enabled += d->enabled;
		t->running += d->running;
	}
	*p = now;
	return BPERF_OK;
}

char LICENSE[] SEC("license") = "GPL";
