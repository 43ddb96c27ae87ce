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
extern const void __per_cpu_offset __ksym;

__u64 drops;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} freed SEC(".maps");

/* Sum of a program's per-CPU stats, as bpf_prog_get_stats() sums them. */
static __always_inline void sum_stats(struct bpf_prog *prog, struct stat_freed *e)
{
	void *stats = BPF_CORE_READ(prog, stats);
	__u64 off, cnt, nsecs;
	__u32 cpu;

	for (cpu = 0; cpu < MAX_CPUS && cpu < nr_cpus; cpu++) {
		struct bpf_prog_stats *s;

		if (bpf_probe_read_kernel(&off, sizeof(off),
					  (const __u64 *)&__per_cpu_offset + cpu))
			break;
		s = stats + off;
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
