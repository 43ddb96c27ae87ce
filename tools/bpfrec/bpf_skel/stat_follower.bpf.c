// SPDX-License-Identifier: GPL-2.0
/*
 * A session's follower of shared counters: fexit on the leader, so it
 * runs right after each reading, on the same CPU, while the task being
 * switched out (whose counts the diff are) is still current.  It adds the
 * diffs that pass its filter to its own accumulator: the whole machine,
 * some CPUs, some processes or threads, or per cgroup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stat_bperf.h"

const volatile __u32 filter_type = BPERF_FILTER_GLOBAL;

/* the leader's: user space hands its fd over before loading */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} diff SEC(".maps");

/* CPU, tgid, tid or cgroup id -> slot in accum */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BPERF_MAX_FILTERS);
	__type(key, __u64);
	__type(value, __u32);
} filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BPERF_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} accum SEC(".maps");

static __always_inline void add(__u32 slot, const struct bpf_perf_event_value *d)
{
	struct bpf_perf_event_value *a = bpf_map_lookup_elem(&accum, &slot);

	if (!a)
		return;
	a->counter += d->counter;
	a->enabled += d->enabled;
	a->running += d->running;
}

/* Linux < 6.2 kept the ancestors' ids, later kernels the ancestors. */
struct cgroup___ids {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

static __always_inline __u64 ancestor_id(struct cgroup *cgrp, int level)
{
	struct cgroup___ids *old = (void *)cgrp;

	if (bpf_core_field_exists(old->ancestor_ids))
		return BPF_CORE_READ(old, ancestor_ids[level]);
	return BPF_CORE_READ(cgrp, ancestors[level], kn, id);
}

/* The cgroup of the current task and its ancestors, innermost first. */
static __always_inline void by_cgroup(const struct bpf_perf_event_value *d)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct cgroup *cgrp = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	int level = BPF_CORE_READ(cgrp, level), i;

	for (i = 0; i < BPERF_MAX_CGROUP_LEVELS; i++) {
		__u64 id;
		__u32 *slot;

		if (i > level)
			break;
		/* the cgroup itself is the ancestor at its own level */
		id = ancestor_id(cgrp, level - i);
		slot = bpf_map_lookup_elem(&filter, &id);
		if (slot)
			add(*slot, d);
	}
}

SEC("fexit/on_switch")
int BPF_PROG(on_leader)
{
	struct bpf_perf_event_value *d;
	__u32 zero = 0, *slot;
	__u64 key;

	d = bpf_map_lookup_elem(&diff, &zero);
	if (!d)
		return 0;
	switch (filter_type) {
	case BPERF_FILTER_GLOBAL:
		add(0, d);
		return 0;
	case BPERF_FILTER_CGROUP:
		by_cgroup(d);
		return 0;
	case BPERF_FILTER_CPU:
		key = bpf_get_smp_processor_id();
		break;
	case BPERF_FILTER_TGID:
		key = bpf_get_current_pid_tgid() >> 32;
		break;
	default:
		key = (__u32)bpf_get_current_pid_tgid();
		break;
	}
	slot = bpf_map_lookup_elem(&filter, &key);
	if (slot)
		add(*slot, d);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
