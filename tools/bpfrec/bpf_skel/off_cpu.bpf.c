// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU time for `bpfrec record --off-cpu`: on sched_switch, the task
 * leaving the CPU gets its start time, state and stacks in task storage;
 * when it comes back, the interval is sent at once through a
 * PERF_EVENT_ARRAY if it lasted at least thresh_ns, else added to the
 * aggregate of its (pid, tgid, stacks, state, cgroup), which user space
 * reads when the recording stops.
 *
 * The stacks go into a stack map, once each: the unwinding is the cost of
 * every switch, and a stack map cannot be read from BPF, so a direct
 * interval carries stack ids, which the recorder reads as it drains
 * (entries are never replaced: no BPF_F_REUSE_STACKID).  A stack map keeps
 * one stack per slot, so a stack whose slot another holds is refused; with
 * a few hundred stacks in 16384 slots that happens a few times a run.
 * Such a stack is read again with bpf_get_stack() and kept in a hash map
 * by a hash of its frames (spill()), so that none is lost.  tp_btf and raw
 * helpers only: no trampoline, no kprobe.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "off_cpu.h"

#define PF_KTHREAD		0x00200000
#define CLONE_THREAD		0x00010000
/* task->__state bits (include/linux/sched.h) */
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define __TASK_STOPPED		0x0004
#define __TASK_TRACED		0x0008
#define TASK_NOLOAD		0x0400

#define EFAULT			14
#define EEXIST			17

const volatile __u64 thresh_ns = 500000;
const volatile __u32 states = OFFCPU_S | OFFCPU_D;
const volatile __u32 threads = OFFCPU_USER_THREADS;
const volatile bool has_pid;		/* pid_filter holds the tgids to record */
const volatile bool has_tid;		/* tid_filter holds the threads to record */
const volatile bool has_cgroup;		/* cgroup_filter[0]: record its subtree only */
const volatile bool follow_forks;	/* new processes of a recorded tgid are recorded */
const volatile __u32 ustack_size;	/* --call-graph dwarf: bytes of user stack to copy */
const volatile bool wakers;		/* --wakers: who woke each interval */

bool enabled;
__u64 out_lost;				/* direct intervals the rings had no room for */
__u64 agg_lost;				/* short intervals the aggregate had no room for */
__u64 unstarted;			/* intervals that found task storage busy or full */
__u64 unseen_back;			/* intervals whose end no sched_switch told (end_unseen()) */
__u64 unended;				/* ...of which the end could not be recovered either */
__u64 spills;				/* stacks kept in "spilled": their slot was taken */

struct start {
	__u64 time;
	__u64 runtime;			/* the task's CPU time (se.sum_exec_runtime) then */
	struct offcpu_key key;		/* pid and tgid filled when it comes back */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct start);
} starts SEC(".maps");

/* --call-graph dwarf: the copy of each thread's registers and top of stack */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_direct_ustack);
} ucopies SEC(".maps");

/* --wakers with --call-graph dwarf: the copy of the waker's, kept by the woken thread */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_direct_ustack);
} wcopies SEC(".maps");

/* --wakers with --call-graph dwarf: the first copy of each waker's stack of the aggregate */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_ustack);
	__uint(max_entries, 2048);
} agg_wcopies SEC(".maps");

/* --call-graph dwarf: the first copy of each stack of the aggregate */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_ustack);
	__uint(max_entries, 2048);
} agg_ucopies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_FRAMES * sizeof(__u64));
	__uint(max_entries, OFFCPU_STACK_SLOTS);	/* --off-cpu-stacks */
} stacks SEC(".maps");

/*
 * The stacks whose slot of "stacks" was taken, by OFFCPU_SPILL_ID + 30
 * bits of their hash: a quarter as many as "stacks" holds, at least 1024.
 * The map is preallocated. A map that allocates as it goes has only one
 * element of this size ready per CPU in a context like sched_switch, so
 * when both stacks of one switch spilled, the second failed with -ENOMEM.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct offcpu_spilled);
	__uint(max_entries, OFFCPU_STACK_SLOTS / 4);
} spilled SEC(".maps");

/* where spill() reads a stack: too big for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct offcpu_spilled);
	__uint(max_entries, 1);
} spill_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct offcpu_key);
	__type(value, __u64);
	__uint(max_entries, 16384);
} aggregate SEC(".maps");

/* slot N: the offcpu-time event of CPU N */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 4096);
} pid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 4096);
} tid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} cgroup_filter SEC(".maps");

/* The state a task left the CPU in, as one bit; 0 for those never recorded (dead, parked). */
static __always_inline __u32 state_bit(bool preempt, unsigned int s)
{
	if (preempt || !s)
		return OFFCPU_R;
	if (s & (__TASK_STOPPED | __TASK_TRACED))
		return OFFCPU_T;
	if (s & TASK_UNINTERRUPTIBLE)
		return s & TASK_NOLOAD ? OFFCPU_I : OFFCPU_D;
	if (s & TASK_INTERRUPTIBLE)
		return OFFCPU_S;
	return 0;
}

/*
 * The stack of current that bpf_get_stackid() refused with -EEXIST (its
 * slot holds another stack): read with bpf_get_stack(), which zeroes the
 * frames after the last, and kept in "spilled" under 30 bits of a hash of
 * all the frames.  The entry keeps the whole hash: a different stack
 * under the same key stays refused, so a stack is never named wrongly.
 */
static __always_inline __s32 spill(void *ctx, __u64 flags)
{
	struct offcpu_spilled *buf, *old;
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 zero = 0, key;
	int i;

	buf = bpf_map_lookup_elem(&spill_buf, &zero);
	if (!buf || bpf_get_stack(ctx, buf->ips, sizeof(buf->ips), flags) <= 0)
		return -EEXIST;
	for (i = 0; i < OFFCPU_MAX_FRAMES; i++) {
		h ^= buf->ips[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	/* the last mixing step of MurmurHash3, so that every bit moves the low ones */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	buf->hash = h;
	key = OFFCPU_SPILL_ID | (h & (OFFCPU_SPILL_ID - 1));
	old = bpf_map_lookup_elem(&spilled, &key);
	if (!old) {
		if (!bpf_map_update_elem(&spilled, &key, buf, BPF_NOEXIST)) {
			__sync_fetch_and_add(&spills, 1);
			return key;
		}
		/* another CPU kept it in between, or the map is full */
		old = bpf_map_lookup_elem(&spilled, &key);
		if (!old)
			return -EEXIST;
	}
	return old->hash == h ? key : -EEXIST;
}

/* The id of current's kernel or user stack (@flags as bpf_get_stackid's). */
static __always_inline __s32 stack_id(void *ctx, __u64 flags)
{
	__s32 id = bpf_get_stackid(ctx, &stacks, flags);

	return id == -EEXIST ? spill(ctx, flags) : id;
}

/* @t is current: the cgroup test and the stacks work on current only. */
static __always_inline bool wanted(struct task_struct *t, __u32 state, bool kthread)
{
	__u32 id;

	if (!(states & state))
		return false;
	if (!(threads & (kthread ? OFFCPU_KERNEL_THREADS : OFFCPU_USER_THREADS)))
		return false;
	id = t->pid;
	if (has_tid && !bpf_map_lookup_elem(&tid_filter, &id))
		return false;
	id = t->tgid;
	if (has_pid && !bpf_map_lookup_elem(&pid_filter, &id))
		return false;
	if (has_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return false;
	return true;
}

/*
 * The user registers of current (@t) and up to ustack_size bytes above
 * its stack pointer, into @u.  A read that crosses the end of the stack's
 * mapping fails as a whole: then up to a page boundary one page lower,
 * down to the page of the stack pointer.
 */
static __always_inline void copy_ustack(struct task_struct *t, struct offcpu_ustack *u)
{
	struct pt_regs *r;
	__u64 sp, len, end;
	int i;

	u->size = 0;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!r)
		return;
	/* perf's order: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 */
	u->regs[0] = r->ax;
	u->regs[1] = r->bx;
	u->regs[2] = r->cx;
	u->regs[3] = r->dx;
	u->regs[4] = r->si;
	u->regs[5] = r->di;
	u->regs[6] = r->bp;
	u->regs[7] = r->sp;
	u->regs[8] = r->ip;
	u->regs[9] = r->flags;
	u->regs[10] = 0;
	u->regs[11] = 0;
	u->regs[12] = r->r8;
	u->regs[13] = r->r9;
	u->regs[14] = r->r10;
	u->regs[15] = r->r11;
	u->regs[16] = r->r12;
	u->regs[17] = r->r13;
	u->regs[18] = r->r14;
	u->regs[19] = r->r15;
	sp = r->sp;
	len = ustack_size;
	for (i = 0; i <= OFFCPU_STACK_MAX / 4096; i++) {
		if (len > OFFCPU_STACK_MAX)
			len = OFFCPU_STACK_MAX;
		len &= ~7ULL;
		if (len < 8)
			return;
		if (!bpf_probe_read_user(u->data, len, (void *)sp)) {
			u->size = len;
			return;
		}
		/* the mapping ends before sp + len: up to the page boundary below it */
		end = (sp + len - 1) & ~4095ULL;
		if (end <= sp)
			return;
		len = end - sp;
	}
}

static __always_inline void leave(void *ctx, struct task_struct *prev, struct start *s,
				  __u32 state, bool kthread, __u64 now)
{
	if (!s)
		s = bpf_task_storage_get(&starts, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		__sync_fetch_and_add(&unstarted, 1);
		return;
	}
	s->runtime = prev->se.sum_exec_runtime;
	s->time = now;
	s->key.state = state;
	/* from its caller: the first frame would be this program */
	s->key.kstack = stack_id(ctx, 1 & BPF_F_SKIP_FIELD_MASK);
	/* a kernel thread has no user stack to unwind */
	s->key.ustack = kthread ? -EFAULT : stack_id(ctx, BPF_F_USER_STACK);
	s->key.cgroup = bpf_get_current_cgroup_id();
	/* who wakes it is not known yet */
	s->key.waker_pid = 0;
	s->key.waker_tgid = 0;
	s->key.waker_kstack = 0;
	s->key.waker_ustack = 0;
	__builtin_memset(s->key.waker_comm, 0, sizeof(s->key.waker_comm));
	if (ustack_size && !kthread) {
		struct offcpu_direct_ustack *c = bpf_task_storage_get(&ucopies, prev, NULL,
								      BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (c)
			copy_ustack(prev, &c->u);
	}
}

static __always_inline void aggregate_add(struct task_struct *t, struct offcpu_key *key,
					  __u64 delta)
{
	__u64 *total = bpf_map_lookup_elem(&aggregate, key);
	struct offcpu_direct_ustack *c;

	if (total) {
		__sync_fetch_and_add(total, delta);
		return;
	}
	if (!bpf_map_update_elem(&aggregate, key, &delta, BPF_NOEXIST)) {
		/* a new stack: its first copy stands for the others */
		c = ustack_size ? bpf_task_storage_get(&ucopies, t, NULL, 0) : NULL;
		if (c && c->u.size)
			bpf_map_update_elem(&agg_ucopies, key, &c->u, BPF_NOEXIST);
		c = ustack_size && wakers && key->waker_comm[0] ?
		    bpf_task_storage_get(&wcopies, t, NULL, 0) : NULL;
		if (c && c->u.size)
			bpf_map_update_elem(&agg_wcopies, key, &c->u, BPF_NOEXIST);
		return;
	}
	/* another CPU added it in between, or the map is full */
	total = bpf_map_lookup_elem(&aggregate, key);
	if (total)
		__sync_fetch_and_add(total, delta);
	else
		__sync_fetch_and_add(&agg_lost, 1);
}

/* The interval of @next that began at s->time ends at @now: sum it or send it. */
static __always_inline void end_interval(void *ctx, struct task_struct *next, struct start *s,
					 __u64 now)
{
	struct offcpu_direct_ustack *c;
	struct offcpu_direct d;
	__u64 delta, size;

	delta = now - s->time;
	/* once: a task that was not recorded this time keeps no stale start */
	s->time = 0;
	s->key.pid = next->pid;
	s->key.tgid = next->tgid;
	if (delta < thresh_ns) {
		aggregate_add(next, &s->key, delta);
		return;
	}
	d.key = s->key;
	d.time = now;
	d.period = delta;
	d.cpu = bpf_get_smp_processor_id();
	d.flags = 0;
	/* the waker's copy first: the recorder keeps it for the interval that follows */
	c = ustack_size && wakers && d.key.waker_comm[0] ?
	    bpf_task_storage_get(&wcopies, next, NULL, 0) : NULL;
	if (c && c->u.size) {
		size = c->u.size;
		if (size > OFFCPU_STACK_MAX)
			size = OFFCPU_STACK_MAX;
		c->d = d;
		c->d.flags = OFFCPU_F_USTACK | OFFCPU_F_WAKER;
		if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, c,
					  offsetof(struct offcpu_direct_ustack, u.data) + size))
			__sync_fetch_and_add(&out_lost, 1);
	}
	c = ustack_size ? bpf_task_storage_get(&ucopies, next, NULL, 0) : NULL;
	if (c && c->u.size) {
		/* the interval goes out with the copy, cut after its data */
		size = c->u.size;
		if (size > OFFCPU_STACK_MAX)
			size = OFFCPU_STACK_MAX;
		c->d = d;
		c->d.flags = OFFCPU_F_USTACK;
		if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, c,
					  offsetof(struct offcpu_direct_ustack, u.data) + size))
			__sync_fetch_and_add(&out_lost, 1);
		return;
	}
	if (bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, &d, sizeof(d)))
		__sync_fetch_and_add(&out_lost, 1);
}

static __always_inline void come_back(void *ctx, struct task_struct *next, __u64 now)
{
	struct start *s = bpf_task_storage_get(&starts, next, NULL, 0);

	if (s && s->time)
		end_interval(ctx, next, s, now);
}

/*
 * @prev leaves the CPU while its last interval is still open: the kernel
 * ran it again without a sched_switch that named it as next.  The 6.18
 * host kernel did this to about one sleep in 200 beside two busy loops,
 * and its own sched_switch trace event misses the same switches.  The
 * task has run since it came back, and only since then: its CPU time
 * since it left tells when that was.  The interval is closed there, and
 * counted, so that the recorder says how many ends it recovered.
 */
static __always_inline void end_unseen(void *ctx, struct task_struct *prev, struct start *s,
				       __u64 now)
{
	__u64 ran = prev->se.sum_exec_runtime - s->runtime;

	__sync_fetch_and_add(&unseen_back, 1);
	if (ran >= now - s->time) {
		/* the clocks disagree: no end to trust, and the interval is lost */
		__sync_fetch_and_add(&unended, 1);
		s->time = 0;
		return;
	}
	end_interval(ctx, prev, s, now - ran);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct start *s;
	bool kthread;
	__u32 state;
	__u64 now;

	if (!enabled)
		return 0;
	now = bpf_ktime_get_ns();
	kthread = prev->flags & PF_KTHREAD;
	state = state_bit(preempt, prev_state);
	/* also when it is not wanted now: its exit must not leave an interval open */
	s = bpf_task_storage_get(&starts, prev, NULL, 0);
	if (s && s->time)
		end_unseen(ctx, prev, s, now);
	if (wanted(prev, state, kthread))
		leave(ctx, prev, s, state, kthread, now);
	come_back(ctx, next, now);
	return 0;
}

/*
 * --wakers: the task that wakes a recorded one, in its own context (that
 * of try_to_wake_up()): its ids, name and stacks go to the woken one's
 * start, the last waker before it runs again.  A wakeup from an
 * interrupt names the task it interrupted, as offwaketime does.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	struct task_struct *cur;
	struct start *s;
	bool kthread;

	if (!enabled)
		return 0;
	s = bpf_task_storage_get(&starts, p, NULL, 0);
	if (!s || !s->time)
		return 0;
	cur = bpf_get_current_task_btf();
	kthread = cur->flags & PF_KTHREAD;
	s->key.waker_pid = cur->pid;
	s->key.waker_tgid = cur->tgid;
	bpf_get_current_comm(s->key.waker_comm, sizeof(s->key.waker_comm));
	if (!s->key.waker_comm[0])
		s->key.waker_comm[0] = '?';
	s->key.waker_kstack = stack_id(ctx, 1 & BPF_F_SKIP_FIELD_MASK);
	s->key.waker_ustack = kthread ? -EFAULT : stack_id(ctx, BPF_F_USER_STACK);
	if (ustack_size) {
		struct offcpu_direct_ustack *c = bpf_task_storage_get(&wcopies, p, NULL,
				kthread ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);

		/* a kernel thread's wakeup leaves no copy of an earlier waker behind */
		if (c && kthread)
			c->u.size = 0;
		else if (c)
			copy_ustack(cur, &c->u);
	}
	return 0;
}

/* A process started by a recorded one is recorded too (a workload's children). */
SEC("tp_btf/task_newtask")
int BPF_PROG(on_newtask, struct task_struct *task, __u64 clone_flags)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child;
	__u8 one = 1;

	if (!follow_forks || (clone_flags & CLONE_THREAD))
		return 0;
	if (!bpf_map_lookup_elem(&pid_filter, &parent))
		return 0;
	child = task->tgid;
	bpf_map_update_elem(&pid_filter, &child, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
