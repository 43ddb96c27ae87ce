// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of links: the facts about a link in the context of the task
 * attaching it, once the kernel assigned its id.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

/* What the link is attached to, named as a person would name it. */
static __always_inline void link_target(struct cap_link *e, struct bpf_link *link,
					struct bpf_prog *prog)
{
	struct bpf_cgroup_link *cl = (void *)link;	/* each has its link first */
	struct bpf_struct_ops_link *sl = (void *)link;
	struct bpf_netns_link *nl = (void *)link;
	struct bpf_xdp_link *xl = (void *)link;
	struct bpf_uprobe_multi_link *ul;
	struct kernfs_node *kn;
	struct net_device *dev;
	struct bpf_uprobe *up;
	struct btf *btf;

	path_clear(&e->path);
	switch (e->type) {
	case BPF_LINK_TYPE_CGROUP:
		kn = BPF_CORE_READ(cl, cgroup, kn);
		e->target_kind = CAP_TARGET_CGROUP;
		e->target_id = BPF_CORE_READ(kn, id);
		kn_path(&e->path, kn);
		break;
	case BPF_LINK_TYPE_XDP:
		dev = BPF_CORE_READ(xl, dev);
		e->target_kind = CAP_TARGET_DEV;
		e->ifindex = BPF_CORE_READ(dev, ifindex);
		BPF_CORE_READ_STR_INTO(&e->ifname, dev, name);
		e->netns = BPF_CORE_READ(dev, nd_net.net, ns.inum);
		break;
	case BPF_LINK_TYPE_NETNS:
		e->target_kind = CAP_TARGET_NETNS;
		e->netns = BPF_CORE_READ(nl, net, ns.inum);
		break;
	case BPF_LINK_TYPE_STRUCT_OPS:
		/* struct_ops links came with their struct in 6.4 */
		if (!bpf_core_type_exists(struct bpf_struct_ops_link))
			break;
		e->target_kind = CAP_TARGET_STRUCT_OPS;
		BPF_CORE_READ_STR_INTO(&e->ifname, sl, map, name);
		break;
	case BPF_LINK_TYPE_UPROBE_MULTI:
		if (!bpf_core_type_exists(struct bpf_uprobe_multi_link))
			break;
		ul = (void *)link - bpf_core_field_offset(struct bpf_uprobe_multi_link, link);
		e->target_kind = CAP_TARGET_UPROBE;
		e->target_id = BPF_CORE_READ(ul, cnt);
		up = BPF_CORE_READ(ul, uprobes);
		if (up)
			e->offset = BPF_CORE_READ(up, offset);
		dentry_path(&e->path, BPF_CORE_READ(ul, path.dentry), BPF_CORE_READ(ul, path.mnt));
		break;
	case BPF_LINK_TYPE_TRACING:
		btf = BPF_CORE_READ(prog, aux, attach_btf);
		if (btf && bpf_core_field_exists(btf->name))
			BPF_CORE_READ_STR_INTO(&e->module, btf, name);
		break;
	}
}

static __always_inline void emit_link(struct bpf_link *link, __u32 id)
{
	struct bpf_prog *prog;
	struct cap_link *e;
	const char *func;

	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	/* the path is read up to its length only */
	__builtin_memset(e, 0, offsetof(struct cap_link, path));

	prog = BPF_CORE_READ(link, prog);
	fill_hdr(&e->hdr, CAP_LINK_ATTACH, id);
	e->type = BPF_CORE_READ(link, type);
	e->prog_id = BPF_CORE_READ(prog, aux, id);
	e->attach_type = BPF_CORE_READ(prog, expected_attach_type);
	e->attach_btf_id = BPF_CORE_READ(prog, aux, attach_btf_id);
	if (bpf_core_field_exists(prog->aux->attach_func_name)) {
		func = BPF_CORE_READ(prog, aux, attach_func_name);
		if (func)
			bpf_probe_read_kernel_str(e->attach_func, sizeof(e->attach_func), func);
	}
	/*
	 * A raw_tp program names no function: the link holds the tracepoint.
	 * The syscalls report it only while the link lives, which a short
	 * one may not do until the recorder asks.
	 */
	if (e->type == BPF_LINK_TYPE_RAW_TRACEPOINT &&
	    bpf_core_type_exists(struct bpf_raw_tp_link)) {
		struct bpf_raw_tp_link *rl = container_of(link, struct bpf_raw_tp_link, link);

		func = BPF_CORE_READ(rl, btp, tp, name);
		if (func)
			bpf_probe_read_kernel_str(e->tp_name, sizeof(e->tp_name), func);
	}
	link_target(e, link, prog);

	submit(e);
}

/* With trampolines: the link gets its id in here, the primer holds it. */
SEC("fentry/bpf_link_settle")
int BPF_PROG(link_fentry, struct bpf_link_primer *primer)
{
	emit_link(BPF_CORE_READ(primer, link), BPF_CORE_READ(primer, id));
	return 0;
}

#define LINK_CMDS (1ULL << BPF_LINK_CREATE | 1ULL << BPF_RAW_TRACEPOINT_OPEN | \
		   1ULL << BPF_LINK_DETACH | 1ULL << BPF_LINK_UPDATE | \
		   1ULL << BPF_PROG_ATTACH | 1ULL << BPF_PROG_DETACH)

/* uapi values, which never change: vmlinux.h has enums only */
#define CGROUP2_SUPER_MAGIC	0x63677270
#define CAP_F_REPLACE		(1U << 2)	/* BPF_F_REPLACE */
/* attach types whose BPF_PROG_ATTACH names an ifindex, not an fd */
#define CAP_TCX_INGRESS		46
#define CAP_TCX_EGRESS		47
#define CAP_NETKIT_PRIMARY	54
#define CAP_NETKIT_PEER		55

/*
 * The link of fd @fd: named "bpf_link" by the call that made it, but
 * "bpf-link" when it came from BPF_LINK_GET_FD_BY_ID or a pinned file.
 */
static __always_inline struct bpf_link *fd_link(long fd)
{
	struct bpf_link *link = fd_object(fd, "bpf_link", 8);

	return link ? link : fd_object(fd, "bpf-link", 8);
}

static __always_inline __u32 prog_id(struct bpf_prog *prog)
{
	return prog ? BPF_CORE_READ(prog, aux, id) : 0;
}

/* A BPF_LINK_UPDATE remembers the link's program, to say which one it replaced. */
SEC("tracepoint/syscalls/sys_enter_bpf")
int link_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct bpf_link *link;
	struct cap_call call;

	if (!call_begin(ctx, LINK_CMDS, &call))
		return 0;
	if (call.cmd == BPF_LINK_UPDATE) {
		link = fd_link(call.attr[0]);
		if (link)
			call.old_prog_id = prog_id(BPF_CORE_READ(link, prog));
	}
	call_remember(&call);
	return 0;
}

/* A BPF_LINK_DETACH or BPF_LINK_UPDATE that succeeded: attr word 0 is the link's fd. */
static __always_inline void link_changed(const struct cap_call *call)
{
	struct cap_link_change *e;
	struct bpf_link *link;
	struct bpf_prog *prog;

	link = fd_link(call->attr[0]);
	if (!link)
		return;
	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));
	fill_hdr(&e->hdr, call->cmd == BPF_LINK_DETACH ? CAP_LINK_DETACH : CAP_LINK_UPDATE,
		 BPF_CORE_READ(link, id));
	prog = BPF_CORE_READ(link, prog);
	e->type = BPF_CORE_READ(link, type);
	e->prog_id = prog_id(prog);
	e->attach_type = prog ? BPF_CORE_READ(prog, expected_attach_type) : 0;
	if (call->cmd == BPF_LINK_UPDATE)
		e->old_prog_id = call->old_prog_id;
	submit(e);
}

/* The cgroup v2 directory the caller's fd @fd is open on, NULL for any other file. */
static __always_inline struct kernfs_node *fd_cgroup(long fd)
{
	struct file *file = fd_file(fd);
	struct dentry *d;

	if (!file)
		return NULL;
	d = BPF_CORE_READ(file, f_path.dentry);
	if (BPF_CORE_READ(d, d_sb, s_magic) != CGROUP2_SUPER_MAGIC)
		return NULL;
	/* kernfs_dentry_node(): the inode's private data */
	return BPF_CORE_READ(d, d_inode, i_private);
}

/*
 * A BPF_PROG_ATTACH or BPF_PROG_DETACH that succeeded, on a cgroup: the
 * legacy attachment, which makes no link.  Attr words 0 to 4 are
 * target_fd, attach_bpf_fd, attach_type, attach_flags and replace_bpf_fd.
 * Other targets of these commands (sockmaps, lirc devices, the netns of
 * flow dissectors) are not cgroup directories and are left out; tcx and
 * netkit name an ifindex in word 0, never taken for an fd.
 */
static __always_inline void legacy_changed(const struct cap_call *call)
{
	__u32 type = call->attr[2];
	struct kernfs_node *kn;
	struct cap_legacy *e;

	if (type == CAP_TCX_INGRESS || type == CAP_TCX_EGRESS ||
	    type == CAP_NETKIT_PRIMARY || type == CAP_NETKIT_PEER)
		return;
	kn = fd_cgroup(call->attr[0]);
	if (!kn)
		return;
	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	/* the path is read up to its length only */
	__builtin_memset(e, 0, offsetof(struct cap_legacy, path));
	fill_hdr(&e->hdr, call->cmd == BPF_PROG_ATTACH ? CAP_LEGACY_ATTACH : CAP_LEGACY_DETACH,
		 prog_id(fd_object(call->attr[1], "bpf-prog", 8)));
	e->attach_type = type;
	e->attach_flags = call->attr[3];
	if (call->cmd == BPF_PROG_ATTACH && (call->attr[3] & CAP_F_REPLACE))
		e->old_prog_id = prog_id(fd_object(call->attr[4], "bpf-prog", 8));
	e->target_kind = CAP_TARGET_CGROUP;
	e->target_id = BPF_CORE_READ(kn, id);
	kn_path(&e->path, kn);
	submit(e);
}

/*
 * This call's link holds the program of the fd passed: attr word 0 for
 * BPF_LINK_CREATE, word 2 for BPF_RAW_TRACEPOINT_OPEN.  A struct_ops
 * link holds a map, not a program: taken as it is.
 */
static __always_inline void link_created(const struct trace_event_raw_sys_exit *ctx,
					 const struct cap_call *call)
{
	struct bpf_prog *prog;
	struct bpf_link *link;
	__u32 prog_fd;

	link = fd_object(ctx->ret, "bpf_link", 8);
	if (!link)
		return;
	prog = BPF_CORE_READ(link, prog);
	prog_fd = call->cmd == BPF_LINK_CREATE ? call->attr[0] : call->attr[2];
	if (!prog || prog == fd_object(prog_fd, "bpf-prog", 8))
		emit_link(link, BPF_CORE_READ(link, id));
}

SEC("tracepoint/syscalls/sys_exit_bpf")
int link_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct cap_call call;

	if (!call_exit(ctx, &call, LINK_CMDS))
		return 0;
	if (call.cmd == BPF_LINK_DETACH || call.cmd == BPF_LINK_UPDATE)
		link_changed(&call);
	else if (call.cmd == BPF_PROG_ATTACH || call.cmd == BPF_PROG_DETACH)
		legacy_changed(&call);
	else
		link_created(ctx, &call);
	call_end();
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
