// SPDX-License-Identifier: GPL-2.0
/*
 * `bpfrec stat -b` through a trampoline: what one BPF program costs per
 * run.  fentry reads every event on entry, fexit reads them again and adds
 * the difference to a per-CPU accumulator; user space sums the CPUs.  One
 * object per target: user space points both programs at it before loading.
 *
 * An event that cannot be multiplexed (a software one) is read without
 * its enabled and running times: bpf_perf_event_read_value() takes a
 * clock reading for them, on top of cpu-clock's own, and that doubles
 * what a run of the target pays for cpu-clock.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "stat_profile.h"

#define MAX_ERRNO	4095

const volatile __u32 nr_events = 1;
/* possible CPUs: the events map holds event i of cpu c at i * nr_cpus + c */
const volatile __u32 nr_cpus = 1;
/* bit i: event i can be multiplexed, its times are needed to scale it */
const volatile __u32 timed_events;
/* --hist: each run's time into the buckets of its CPU's state */
const volatile bool hist;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stat_profile_cpu);
} state SEC(".maps");

/* Event @i on this CPU into @r: 0, or the helper's error. */
static __always_inline int read_event(__u32 i, __u32 cpu, struct stat_profile_reading *r)
{
	__u64 v;

	if (timed_events & (1U << i))
		return bpf_perf_event_read_value(&events, i * nr_cpus + cpu, (void *)r,
						 sizeof(*r));
	/* its errors come back as the counter, negated */
	v = bpf_perf_event_read(&events, i * nr_cpus + cpu);
	if (v >= (__u64)-MAX_ERRNO)
		return (int)v;
	r->counter = v;
	r->enabled = 0;
	r->running = 0;
	return 0;
}

SEC("fentry/target")
int BPF_PROG(on_entry)
{
	__u32 cpu = bpf_get_smp_processor_id(), i, zero = 0, ok = 0;
	struct stat_profile_cpu *s = bpf_map_lookup_elem(&state, &zero);

	if (!s)
		return 0;
	for (i = 0; i < STAT_PROFILE_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		if (!read_event(i, cpu, &s->entry[i]))
			ok |= 1U << i;
	}
	s->entry_ok = ok;
	/* last: the time of the events' reading is not the run's */
	if (hist)
		s->t0 = bpf_ktime_get_ns();
	return 0;
}

/*
 * The bucket of @d ns (stat_profile.h): its power of two, then 4 bits
 * below it.  In 64 bits throughout: a 32-bit index is zero-extended twice,
 * once for its bounds check and once for the access, and 6.1's verifier
 * does not carry the check over to the access ("unbounded memory access").
 */
static __always_inline __u64 bucket(__u64 d)
{
	__u64 e = 0, shift, v = d;

	if (d < STAT_HIST_SUB)
		return d;
	shift = (v > 0xffffffffULL) << 5;
	v >>= shift;
	e |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	e |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	e |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	e |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	e |= shift;
	e |= v >> 1;
	/* e >= 4: d = 1xxxx... in binary, the 4 bits after the leading one */
	return (e - 3) * STAT_HIST_SUB + ((d >> (e - 4)) & (STAT_HIST_SUB - 1));
}

static __always_inline void hist_add(struct stat_profile_cpu *s, __u64 now)
{
	__u64 d, b;

	if (!s->t0 || now < s->t0)
		return;
	d = now - s->t0;
	s->t0 = 0;
	b = bucket(d);
	if (b < STAT_HIST_BUCKETS)
		s->hist[b]++;
	if (d > s->max)
		s->max = d;
}

SEC("fexit/target")
int BPF_PROG(on_exit)
{
	__u32 cpu = bpf_get_smp_processor_id(), i, zero = 0;
	__u64 t = hist ? bpf_ktime_get_ns() : 0;
	struct stat_profile_cpu *s = bpf_map_lookup_elem(&state, &zero);
	struct stat_profile_reading now;

	if (!s)
		return 0;
	if (hist)
		hist_add(s, t);
	s->runs++;
	for (i = 0; i < STAT_PROFILE_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		if (!(s->entry_ok & (1U << i)) || read_event(i, cpu, &now))
			continue;
		s->accum[i].counter += now.counter - s->entry[i].counter;
		s->accum[i].enabled += now.enabled - s->entry[i].enabled;
		s->accum[i].running += now.running - s->entry[i].running;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
