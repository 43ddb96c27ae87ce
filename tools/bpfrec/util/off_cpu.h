/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The off-CPU sampler of `bpfrec record --off-cpu` (bpf_skel/off_cpu.bpf.c):
 * the time threads spend off CPU, with the kernel and user stacks they
 * left it with, as samples of the event perf names "offcpu-time".  An
 * interval of at least the threshold is a sample of its own, written as
 * it ends; the shorter ones are summed per (thread, stacks, state,
 * cgroup) and written when the recording stops.  PERIOD is the time off
 * CPU in ns, TIME when it ended (the stop, for the sums).
 */
#ifndef BPFREC_OFF_CPU_H
#define BPFREC_OFF_CPU_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "util/ksyms.h"

/* The event's name: perf knows its samples by it. */
#define OFFCPU_EVENT		"offcpu-time"
/* --wakers: who woke each interval, a sample just before it (ADDR: the woken tid) */
#define OFFCPU_WAKER_EVENT	"offcpu-waker"
/*
 * The threshold of direct samples: 0.5 ms.  perf's was 500 us until 6.16,
 * which made it 500 ms; bpfrec keeps the shorter one, since it writes a
 * direct sample as the interval ends and sums the rest only at the stop.
 */
#define OFFCPU_DEFAULT_THRESH_NS	500000ULL
/* the most --off-cpu-stacks takes: half a GiB of stack map */
#define OFFCPU_STACK_SLOTS_MAX		(1 << 20)

struct evlist;
struct evsel;
struct kallsyms_copy;
struct facts;
struct pd_writer;
struct off_cpu_bpf;
struct offcpu_ustack;

struct off_cpu_opts {
	__u64 thresh_ns;
	__u32 states;		/* enum offcpu_state_bit */
	__u32 threads;		/* enum offcpu_threads */
	const char *cgroup;	/* its subtree only; NULL: every cgroup */
	const pid_t *pids;	/* processes to record; none: every one */
	int nr_pids;
	const pid_t *tids;	/* threads to record; none: every one */
	int nr_tids;
	bool workload;		/* the workload and the processes it starts */
	__u32 ustack_size;	/* --call-graph dwarf: user stack bytes to copy; 0: none */
	bool wakers;		/* --wakers: who woke each interval */
	__u32 stack_slots;	/* --off-cpu-stacks: slots of the stack map */
	/* the kernel's symbols, read by the sampler at the start: they name the
	 * profiler's own frames, which are left out of the stacks */
	const struct kallsyms_copy *kallsyms;
};

struct off_cpu {
	struct off_cpu_opts o;
	struct off_cpu_bpf *skel;
	struct evsel *ev;
	struct pd_writer *w;
	int cgroup_fd;
	__u64 direct;		/* intervals written as they ended */
	__u64 sums;		/* samples of summed intervals */
	__u64 total_ns;		/* their periods */
	__u64 lost;		/* direct intervals lost by the rings */
	__u64 no_stack;		/* samples lacking a stack that could not be read */
	__u64 ustacks;		/* samples with a copy of the user stack */
	__u64 wakers;		/* intervals written with their waker */
	__u64 waker_id;		/* the offcpu-waker event's id in the file */
	struct offcpu_ustack *ucopy;	/* one copy read, aligned (--call-graph dwarf) */
	struct offcpu_ustack *wcopy;	/* the waker's, sent before its interval */
	__u64 wcopy_time;	/* the interval wcopy is for: its time (0: none) ... */
	__u32 wcopy_tid;	/* ... and woken thread */
	struct ksyms ksyms;	/* parsed from o.kallsyms at the first stack */
	bool ksyms_tried;
};

/* The defaults: 0.5 ms, states S and D, user threads, every task. */
void off_cpu_opts_default(struct off_cpu_opts *o);
/* Each parser returns 0, or -EINVAL for input it does not take. */
/* --off-cpu-thresh: milliseconds as perf 6.16+, or with a unit (500us, 2ms, 1s) */
int off_cpu_parse_thresh(const char *s, __u64 *ns);
/* --off-cpu-state: letters of R S D T I, commas allowed ("S,D") */
int off_cpu_parse_states(const char *s, __u32 *states);
/* --off-cpu-threads: user, kernel or all */
int off_cpu_parse_threads(const char *s, __u32 *threads);
/* --off-cpu-stacks: 1 to OFFCPU_STACK_SLOTS_MAX */
int off_cpu_parse_slots(const char *s, __u32 *slots);

/* The cgroup is one and the stack copy not too big: else one line printed and -EINVAL. */
int off_cpu_check(const struct off_cpu_opts *o);
/*
 * Load the BPF side and add the offcpu-time event to @el (the writer is
 * opened after).  One line printed on failure.
 */
int off_cpu_open(struct off_cpu *oc, const struct off_cpu_opts *o, struct evlist *el);
/* Once the events are enabled: filter @workload (0: none) and attach. */
int off_cpu_start(struct off_cpu *oc, struct pd_writer *w, pid_t workload);
/* Stop measuring: before the events are disabled, which the BPF side writes into. */
void off_cpu_stop(struct off_cpu *oc);
/* Write the summed intervals, at @time, once the direct ones were drained. */
int off_cpu_finish(struct off_cpu *oc, __u64 time);
/* One line on stderr: what was written, and what was lost. */
void off_cpu_report(const struct off_cpu *oc);
/* Mark its BPF objects as the recorder's own. */
void off_cpu_mark(const struct off_cpu *oc, struct facts *f);
/* Also after a failed or no off_cpu_open(), on a zeroed @oc. */
void off_cpu_close(struct off_cpu *oc);

#endif /* BPFREC_OFF_CPU_H */
