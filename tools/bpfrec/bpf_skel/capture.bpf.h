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

/* Entry of bpf(): remember a call of command @a or @b for the exit. */
static __always_inline int call_enter(const struct trace_event_raw_sys_enter *ctx,
				      __u32 a, __u32 b)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct cap_call call = { .cmd = ctx->args[0] };

	if (call.cmd != a && call.cmd != b)
		return 0;
	call.start = bpf_ktime_get_boot_ns();
	/* a short attr (size argument) leaves zeroes: no check will match */
	bpf_probe_read_user(call.attr, sizeof(call.attr), (const void *)ctx->args[1]);
	bpf_map_update_elem(&cap_calls, &tid, &call, BPF_ANY);
	return 0;
}

/* Exit of bpf(): the call of command @a or @b entry noted, if it succeeded. */
static __always_inline bool call_exit(const struct trace_event_raw_sys_exit *ctx,
				      struct cap_call *call, __u32 a, __u32 b)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct cap_call *c = bpf_map_lookup_elem(&cap_calls, &tid);

	/* every kind's exit runs: the call is the one kind's whose command it is */
	if (!c || (c->cmd != a && c->cmd != b))
		return false;
	*call = *c;
	bpf_map_delete_elem(&cap_calls, &tid);
	return ctx->ret >= 0;
}

/*
 * The object behind the caller's file descriptor @fd, if the anonymous
 * inode's name says it is a @want ("bpf-prog", "bpf-map", ...).
 */
static __always_inline void *fd_object(long fd, const char *want, int len)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file;
	const unsigned char *dname;
	char name[12];
	int i;

	if (fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	dname = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), dname) != len + 1)
		return NULL;
	for (i = 0; i < len && i < (int)sizeof(name); i++)
		if (name[i] != want[i])
			return NULL;
	return BPF_CORE_READ(file, private_data);
}

#endif /* __BPFREC_CAPTURE_BPF_H */
