/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the capture's files (capture_<kind>.bpf.c, one per kind of BPF
 * object, linked into one object) have in common: the maps they share
 * (weak, so that the linker keeps one of each; user space creates them
 * and hands them to every object it loads), the header of a captured
 * fact, and the two halves of the syscall path.
 *
 * The syscall path is for kernels that refuse BPF trampolines: the
 * syscalls:sys_enter_bpf and sys_exit_bpf tracepoints, which run for the
 * bpf() syscall only (their arguments are the syscall's, on every
 * architecture).  Entry notes, per thread, the command and the first
 * words of its attr; exit finds the new object through the fd it returns
 * and checks that the object is the one this call made, because another
 * thread of the process may have closed the fd and reused its number in
 * between.
 */
#ifndef __BPFREC_CAPTURE_BPF_H
#define __BPFREC_CAPTURE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* replaced by user space's */
} cap_events SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_state);
} cap_state SEC(".maps") __weak;

/* The bpf() calls in progress that create an object, by tid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CAP_MAX_CALLS);
	/* entries live for one syscall: allocated when used */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct cap_call);
} cap_calls SEC(".maps") __weak;

/* Who was said of each task (its tid), by say_task(). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CAP_MAX_CALLS);
	__type(key, __u64);
	__type(value, struct cap_task_seen);
} cap_tasks SEC(".maps") __weak;

/* kernfs_node.parent before 6.15 renamed it __parent */
struct kernfs_node___old {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline struct cap_state *state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cap_state, &zero);
}

static __always_inline void *reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&cap_events, size, 0);
	struct cap_state *s;

	if (!e) {
		s = state();
		if (s)
			__sync_fetch_and_add(&s->drops, 1);
	}
	return e;
}

/*
 * Wake the recorder once this much is pending rather than per record: a
 * storm is thousands of records and user space also polls on a timeout.
 */
static __always_inline void submit(void *e)
{
	struct cap_state *s = state();
	__u64 wakeup = s ? s->wakeup_bytes : 0;
	bool wake = bpf_ringbuf_query(&cap_events, BPF_RB_AVAIL_DATA) >= wakeup;

	bpf_ringbuf_submit(e, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/*
 * The first @size bytes of @data, a record built in a per-CPU buffer, as
 * one record of the ring: for records whose size is known only at run
 * time (bpf_ringbuf_reserve() takes a constant), so that a short one does
 * not take the ring's room, and the reader's memory traffic, of the
 * longest.  @size must be bounded for the verifier.
 */
static __always_inline void output(const void *data, __u64 size)
{
	struct cap_state *s = state();
	__u64 wakeup = s ? s->wakeup_bytes : 0;
	__u64 flags = bpf_ringbuf_query(&cap_events, BPF_RB_AVAIL_DATA) >= wakeup ?
		      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_output(&cap_events, (void *)data, size, flags) && s)
		__sync_fetch_and_add(&s->drops, 1);
}

static __always_inline void fill_hdr(struct cap_hdr *h, __u32 kind, __u32 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	h->kind = kind;
	h->id = id;
	h->time = bpf_ktime_get_ns();
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->uid = (__u32)bpf_get_current_uid_gid();
	h->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* Whether @cmd is one of the commands of mask @cmds (1 << cmd each). */
static __always_inline bool cmd_in(__u32 cmd, __u64 cmds)
{
	return cmd < 64 && (cmds & (1ULL << cmd));
}

/* Entry of bpf(): a call of one of the commands @cmds, to remember for the exit. */
static __always_inline bool call_begin(const struct trace_event_raw_sys_enter *ctx,
				       __u64 cmds, struct cap_call *call)
{
	__builtin_memset(call, 0, sizeof(*call));
	call->cmd = ctx->args[0];
	if (!cmd_in(call->cmd, cmds))
		return false;
	call->start = bpf_ktime_get_boot_ns();
	/* a short attr (size argument) leaves zeroes: no check will match */
	bpf_probe_read_user(call->attr, sizeof(call->attr), (const void *)ctx->args[1]);
	return true;
}

static __always_inline void call_remember(const struct cap_call *call)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_update_elem(&cap_calls, &tid, call, BPF_ANY);
}

/* Entry of bpf(): remember a call of one of the commands @cmds for the exit. */
static __always_inline int call_enter(const struct trace_event_raw_sys_enter *ctx, __u64 cmds)
{
	struct cap_call call;

	if (call_begin(ctx, cmds, &call))
		call_remember(&call);
	return 0;
}

/* The end of this task's call: after its facts are sent (call_exit()). */
static __always_inline void call_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&cap_calls, &tid);
}

/*
 * Exit of bpf(): the call of one of the commands @cmds entry noted, if it
 * succeeded.  Its entry stays until the caller has sent the call's facts
 * and calls call_end(): user space takes a task still in cap_calls as one
 * whose facts are still to come (util/sink.c), so the entry must not go
 * before they are in the ring.
 */
static __always_inline bool call_exit(const struct trace_event_raw_sys_exit *ctx,
				      struct cap_call *call, __u64 cmds)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct cap_call *c = bpf_map_lookup_elem(&cap_calls, &tid);

	/* every kind's exit runs: the call is the one kind's whose command it is */
	if (!c || !cmd_in(c->cmd, cmds))
		return false;
	*call = *c;
	if (ctx->ret >= 0)
		return true;
	call_end();
	return false;
}

/*
 * The caller's file of descriptor @fd, 0 if none; and the object behind
 * it if the anonymous inode's name is the @len bytes packed in @name by
 * name8() ("bpf-prog", "bpf-map", ...), else 0.  Global functions of
 * capture_shared.bpf.c, for the reason say_task() is one.  They return
 * addresses as integers, the only kind of value a global function can.
 */
__u64 fd_file_addr(long fd);
__u64 fd_object_addr(long fd, __u64 name, int len);

/* The first @len (up to 8) bytes of @s as one little-endian word: a constant for a literal. */
static __always_inline __u64 name8(const char *s, int len)
{
	__u64 v = 0;
	int i;

	for (i = 0; i < len && i < 8; i++)
		v |= (__u64)(unsigned char)s[i] << (8 * i);
	return v;
}

static __always_inline struct file *fd_file(long fd)
{
	return (void *)fd_file_addr(fd);
}

static __always_inline void *fd_object(long fd, const char *want, int len)
{
	return (void *)fd_object_addr(fd, name8(want, len), len);
}

/* Add @name to @p, whose names go leaf first: false when there is no room. */
static __always_inline bool path_add(struct cap_path *p, const void *name)
{
	__u32 off = p->len;
	long n;

	if (off >= CAP_PATH_LEN / 2) {
		p->cut = 1;
		return false;
	}
	n = bpf_probe_read_kernel_str(p->names + (off & (CAP_PATH_LEN / 2 - 1)),
				      CAP_PATH_LEN / 2, name);
	if (n <= 0) {
		p->cut = 1;
		return false;
	}
	p->len = off + n;
	p->depth++;
	return true;
}

static __always_inline void path_clear(struct cap_path *p)
{
	p->len = 0;
	p->depth = 0;
	p->cut = 0;
}

struct dentry_walk {
	struct cap_path *p;
	struct dentry *d;
	struct vfsmount *vfs;
	struct mount *mnt;
	bool done;
};

/*
 * One step of dentry_path(): a bpf_loop() callback, which the verifier
 * checks once rather than once per step of the walk.
 */
static long dentry_step(__u32 i, void *data)
{
	/* locals: CO-RE relocates the kernel's types, not this walk's */
	struct dentry_walk *w = data;
	struct dentry *d = w->d, *parent;
	struct mount *mnt = w->mnt, *up;
	struct vfsmount *vfs = w->vfs;

	if (d == BPF_CORE_READ(vfs, mnt_root)) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (!up || up == mnt) {
			w->done = true;
			return 1;
		}
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfs = (void *)up + bpf_core_field_offset(struct mount, mnt);
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d || !path_add(w->p, BPF_CORE_READ(d, d_name.name))) {
		w->done = true;
		return 1;
	}
	w->d = parent;
	return 0;
}

/* The path of @dentry on @vfs, crossing mounts up to the task's namespace's root. */
static __always_inline void dentry_path(struct cap_path *p, struct dentry *d,
					struct vfsmount *vfs)
{
	struct dentry_walk w = {
		.p = p,
		.d = d,
		.vfs = vfs,
		.mnt = (void *)vfs - bpf_core_field_offset(struct mount, mnt),
	};

	path_clear(p);
	if (!d || !vfs)
		return;
	bpf_loop(CAP_PATH_DEPTH, dentry_step, &w, 0);
	if (!w.done)
		p->cut = 1;
}

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	struct kernfs_node___old *old = (void *)kn;

	if (bpf_core_field_exists(kn->__parent))
		return BPF_CORE_READ(kn, __parent);
	return BPF_CORE_READ(old, parent);
}

struct kn_walk {
	struct cap_path *p;
	struct kernfs_node *kn;
};

/* One step of kn_path(), a bpf_loop() callback as dentry_step() is. */
static long kn_step(__u32 i, void *data)
{
	struct kn_walk *w = data;
	struct kernfs_node *kn = w->kn, *up;

	if (!kn)
		return 1;
	up = kn_parent(kn);
	if (!up || !path_add(w->p, BPF_CORE_READ(kn, name))) {
		w->kn = NULL;
		return 1;
	}
	w->kn = up;
	return 0;
}

/* The path of cgroup @kn below its hierarchy's root. */
static __always_inline void kn_path(struct cap_path *p, struct kernfs_node *kn)
{
	struct kn_walk w = { .p = p, .kn = kn };

	path_clear(p);
	bpf_loop(CAP_PATH_DEPTH, kn_step, &w, 0);
	kn = w.kn;
	if (kn && kn_parent(kn))
		p->cut = 1;
}

/*
 * Say who the current task is (capture_shared.bpf.c).  A global function:
 * the verifier checks it once per program rather than at every call.
 */
int say_task(void);

#endif /* __BPFREC_CAPTURE_BPF_H */
