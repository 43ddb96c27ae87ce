// SPDX-License-Identifier: GPL-2.0
/*
 * Every exec, by the comm it takes: one record per exec through the
 * PERF_EVENT_ARRAY map "execs", which bpfrec records as event
 * bpf-output:execs, and which bpfrec script decodes with struct execs
 * (a struct named after its map: bpfrec's convention).
 *
 *   bpfrec record --object execs.bpf.o -- sh -c 'true; true; true'
 *   bpfrec record --object execs.bpf.o --set comm=true --duration 10
 *   bpfrec script | grep bpf-output
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* only execs taking this comm when set (bpfrec record --set comm=NAME) */
const volatile char comm[16] = "";

struct execs {
	__u32 pid;
	__u32 ppid;
	char comm[16];
};

/* in BTF: the struct of a local variable is not, and script needs it */
struct execs *execs_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} execs SEC(".maps");

static bool wanted(const char *c)
{
	int i;

	if (!comm[0])
		return true;
	for (i = 0; i < sizeof(comm); i++) {
		if (c[i] != comm[i])
			return false;
		if (!c[i])
			break;
	}
	return true;
}

SEC("tracepoint/sched/sched_process_exec")
int count_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct execs e = {};

	e.pid = bpf_get_current_pid_tgid() >> 32;
	e.ppid = BPF_CORE_READ(task, real_parent, tgid);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	if (!wanted(e.comm))
		return 0;
	bpf_perf_event_output(ctx, &execs, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
