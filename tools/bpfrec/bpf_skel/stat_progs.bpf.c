// SPDX-License-Identifier: GPL-2.0
/*
 * The final run statistics of every BPF program that is freed, for
 * `bpfrec stat --all-progs`: a program loaded, run and unloaded between
 * two looks of user space still shows what it cost.
 *
 * bpf_prog_free() hands the program to a workqueue (bpf_prog_free_deferred)
 * that frees its per-CPU stats; the workqueue tracepoint fires before that
 * function runs, with the stats intact.  A raw tracepoint, not a
 * trampoline: it works on kernels that refuse fentry.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stat_progs.h"

#define MAX_CPUS 1024

/* possible CPUs: the per-CPU stats exist for each */
const volatile __u32 nr_cpus = 1;

extern const void bpf_prog_free_deferred __ksym;
/*
 * A per-CPU array of our own: where its element's copy for a CPU lies,
 * against the per-CPU pointer the array holds, is that CPU's per-CPU
 * offset.  __per_cpu_offset[] and per-CPU variables are not in the
 * kallsyms of every kernel (only with KALLSYMS_ALL), this works on all.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pcpu SEC(".maps");

/* A pointer as a plain number: the verifier forbids arithmetic on it. */
static __always_inline __u64 addr_of(void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}

__u64 drops;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} freed SEC(".maps");

/* Sum of a program's per-CPU stats, as bpf_prog_get_stats() sums them. */
static __always_inline void sum_stats(struct bpf_prog *prog, struct stat_freed *e)
{
	__u64 arr = addr_of(&pcpu);
	void *stats = BPF_CORE_READ(prog, stats);
	__u64 base, cnt, nsecs;
	__u32 cpu, zero = 0;

	if (bpf_probe_read_kernel(&base, sizeof(base),
				  (void *)(arr + bpf_core_field_offset(struct bpf_array, pptrs))))
		return;
	for (cpu = 0; cpu < MAX_CPUS && cpu < nr_cpus; cpu++) {
		void *elem = bpf_map_lookup_percpu_elem(&pcpu, &zero, cpu);
		struct bpf_prog_stats *s;

		if (!elem)
			break;
		s = stats + (addr_of(elem) - base);
		/* u64_stats_t: a plain 64-bit counter on 64-bit kernels */
		if (bpf_core_read(&cnt, sizeof(cnt), &s->cnt) ||
		    bpf_core_read(&nsecs, sizeof(nsecs), &s->nsecs))
			break;
		e->run_cnt += cnt;
		e->run_time_ns += nsecs;
	}
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(prog_freed, struct work_struct *work)
{
	struct bpf_prog_aux *aux;
	struct bpf_prog *prog;
	struct stat_freed *e;

	if ((void *)work->func != &bpf_prog_free_deferred)
		return 0;
	aux = (void *)work - bpf_core_field_offset(struct bpf_prog_aux, work);
	prog = BPF_CORE_READ(aux, prog);
	if (!prog)
		return 0;
	e = bpf_ringbuf_reserve(&freed, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&drops, 1);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->load_time = BPF_CORE_READ(aux, load_time);
	e->type = BPF_CORE_READ(prog, type);
	BPF_CORE_READ_INTO(&e->tag, prog, tag);
	BPF_CORE_READ_STR_INTO(&e->name, aux, name);
	sum_stats(prog, e);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
