// SPDX-License-Identifier: GPL-2.0
/*
 * The capture's global functions, which every kind's programs call: who
 * the task creating or changing a BPF object is (its executable's path,
 * its cgroup's path, its parent), and the object behind one of its file
 * descriptors.  Inline, each call site would be checked by the verifier
 * and relocated by libbpf again; a global function is checked once per
 * program, and libbpf relocates it once.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

/*
 * Say who the current task is before the object record it is about to
 * send, unless it was said already with the same executable and cgroup.
 * The ring buffer keeps the order of reservations: user space has read
 * the task before the object.
 *
 * Every kind's capture calls it, so it is one global function that the
 * kinds' files share once linked: the verifier checks a global function
 * once per program, where an inline copy is checked at every call site
 * (link_exit has three).
 */
__noinline int say_task(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 key = bpf_get_current_pid_tgid();
	struct cap_task_seen now, *seen;
	struct cap_task *e;
	struct file *exe;

	exe = BPF_CORE_READ(task, mm, exe_file);
	now.exe = (__u64)exe;
	now.cgroup_id = bpf_get_current_cgroup_id();
	seen = bpf_map_lookup_elem(&cap_tasks, &key);
	if (seen && seen->exe == now.exe && seen->cgroup_id == now.cgroup_id)
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	fill_hdr(&e->hdr, CAP_TASK, 0);
	e->gid = bpf_get_current_uid_gid() >> 32;
	e->loginuid = (__u32)-1;
	if (bpf_core_field_exists(task->loginuid))
		e->loginuid = BPF_CORE_READ(task, loginuid.val);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->reserved = 0;
	e->cgroup_id = now.cgroup_id;
	BPF_CORE_READ_STR_INTO(&e->pcomm, task, real_parent, comm);
	if (exe)
		dentry_path(&e->exe, BPF_CORE_READ(exe, f_path.dentry),
			    BPF_CORE_READ(exe, f_path.mnt));
	else
		path_clear(&e->exe);
	kn_path(&e->cgroup, BPF_CORE_READ(task, cgroups, dfl_cgrp, kn));
	submit(e);
	bpf_map_update_elem(&cap_tasks, &key, &now, BPF_ANY);
	return 0;
}

/* The caller's file of descriptor @fd, as an address; 0 if none. */
__noinline __u64 fd_file_addr(long fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file;

	if (fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]))
		return 0;
	return (__u64)file;
}

/*
 * The object behind the caller's fd @fd when the anonymous inode is named
 * exactly the @len bytes that name8() packed into @want; 0 if not.
 */
__noinline __u64 fd_object_addr(long fd, __u64 want, int len)
{
	struct file *file = (void *)fd_file_addr(fd);
	union {
		char c[16];
		__u64 word;
	} name = {};
	const unsigned char *dname;
	__u64 mask;

	if (!file || len <= 0 || len > 8)
		return 0;
	dname = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	/* the whole name, and no longer than asked */
	if (bpf_probe_read_kernel_str(name.c, sizeof(name.c), dname) != len + 1)
		return 0;
	mask = len == 8 ? ~0ULL : (1ULL << (8 * len)) - 1;
	if ((name.word & mask) != want)
		return 0;
	return (__u64)BPF_CORE_READ(file, private_data);
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
