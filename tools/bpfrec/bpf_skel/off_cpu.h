/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What off_cpu.bpf.c reports of the time tasks spend off CPU.  Shared by
 * the BPF side and user space: fixed-size, no pointers.
 */
#ifndef __BPFREC_OFF_CPU_H
#define __BPFREC_OFF_CPU_H

/* frames kept per stack, kernel and user each (at most perf_event_max_stack) */
#define OFFCPU_MAX_FRAMES	64

/* the stack map's slots (--off-cpu-stacks): each stack hashes to one of them */
#define OFFCPU_STACK_SLOTS	16384

/*
 * Stack ids from OFFCPU_SPILL_ID up name stacks that found their slot of
 * the stack map taken by another stack: they are kept in the map
 * "spilled", under 30 bits of a 64-bit hash of their frames, which the
 * entry keeps to tell two such stacks apart.
 */
#define OFFCPU_SPILL_ID		(1U << 30)

struct offcpu_spilled {
	__u64 hash;
	__u64 ips[OFFCPU_MAX_FRAMES];	/* innermost first, zeros after the last */
};

/* The task states to record (--off-cpu-state), one bit each. */
enum offcpu_state_bit {
	OFFCPU_R = 1 << 0,	/* preempted or yielded: still runnable */
	OFFCPU_S = 1 << 1,	/* sleeping, interruptible */
	OFFCPU_D = 1 << 2,	/* sleeping, uninterruptible (disk, locks) */
	OFFCPU_T = 1 << 3,	/* stopped or traced */
	OFFCPU_I = 1 << 4,	/* idle kernel thread (D that does not count as load) */
};

/* Which threads (--off-cpu-threads). */
enum offcpu_threads {
	OFFCPU_USER_THREADS = 1 << 0,
	OFFCPU_KERNEL_THREADS = 1 << 1,
};

/*
 * One off-CPU interval, or the sum of those that share it: the thread,
 * the stacks it left the CPU with (ids in the stack map, or from
 * OFFCPU_SPILL_ID up in "spilled"; negative: the -errno of a stack that
 * could not be read), the state bit and cgroup.
 */
struct offcpu_key {
	__u32 pid;		/* the thread */
	__u32 tgid;
	__s32 kstack;
	__s32 ustack;
	__u32 state;		/* enum offcpu_state_bit */
	__u32 pad;
	__u64 cgroup;
	/*
	 * --wakers: the task that woke it (sched_waking), with its stacks;
	 * waker_comm[0] is 0 when none was seen (preempted, or not asked).
	 */
	__u32 waker_pid;
	__u32 waker_tgid;
	__s32 waker_kstack;
	__s32 waker_ustack;
	char waker_comm[16];
};

/*
 * An interval at or above the threshold, sent through the
 * PERF_EVENT_ARRAY as it ends: the recorder writes it as a sample of
 * "offcpu-time" with TIME = @time and PERIOD = @period.  With
 * OFFCPU_F_USTACK a struct offcpu_ustack follows, cut after its size
 * bytes of data.
 */
struct offcpu_direct {
	struct offcpu_key key;
	__u64 time;		/* when the thread came back on CPU */
	__u64 period;		/* ns off CPU */
	__u32 cpu;
	__u32 flags;		/* OFFCPU_F_* */
};

#define OFFCPU_F_USTACK		(1U << 0)
/* the copy is the waker's, sent just before the interval it woke */
#define OFFCPU_F_WAKER		(1U << 1)

/*
 * --call-graph dwarf: the user registers and the top of the user stack
 * as the thread left the CPU, for the reader to unwind with the files'
 * CFI (.eh_frame) where frame pointers are missing (libc's).  The
 * registers are perf's x86-64 user set, in the order of the bits of
 * OFFCPU_REGS_MASK (the sample_regs_user of perf --call-graph dwarf).
 */
#define OFFCPU_NR_REGS		20
#define OFFCPU_REGS_MASK	0xff0fffULL
/* the most of the stack copied: the task storage holds one copy per thread */
#define OFFCPU_STACK_MAX	16384

struct offcpu_ustack {
	__u64 regs[OFFCPU_NR_REGS];
	__u64 size;		/* bytes of data copied, a multiple of 8; 0: none */
	__u8 data[OFFCPU_STACK_MAX];
};

/* What a direct interval with a stack copy sends. */
struct offcpu_direct_ustack {
	struct offcpu_direct d;
	struct offcpu_ustack u;
};

#endif /* __BPFREC_OFF_CPU_H */
