/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about BPF objects captured in kernel context by capture_*.bpf.c,
 * in the context of the task that creates the object, while it still
 * exists.  Shared by the BPF side and user space: fixed-size, no pointers.
 */
#ifndef __BPFREC_CAPTURE_H
#define __BPFREC_CAPTURE_H

#define CAP_OBJ_NAME_LEN	16	/* BPF_OBJ_NAME_LEN */
#define CAP_COMM_LEN		16	/* TASK_COMM_LEN */
#define CAP_MAX_MAP_IDS		64	/* MAX_USED_MAPS */
#define CAP_MAX_FUNCS		8
#define CAP_FUNC_NAME_LEN	64
/* words of a bpf() attr the syscall path checks the new object against */
#define CAP_ATTR_WORDS		5
/* a path's names, leaf first, each NUL-terminated; a name is read into half of it */
#define CAP_PATH_LEN		1024
#define CAP_PATH_DEPTH		24
/* the xlated instructions of a program go in records of this many bytes */
#define CAP_INSNS_CHUNK		4096
/* and at most this many of them (256 KiB, 32768 instructions) */
#define CAP_INSNS_MAX_CHUNKS	64
/*
 * A program's bpf_metadata_* variables: at most this many (a power of
 * two), names and values of at most these many bytes, as perf keeps them
 * (BPF_METADATA_KEY_LEN, BPF_METADATA_VALUE_LEN).
 */
#define CAP_META_MAX		16
#define CAP_META_NAME_LEN	64
#define CAP_META_VALUE_LEN	256
/* of the variables of a .rodata map's section, this many are looked at */
#define CAP_META_SCAN_VARS	512

enum cap_kind {
	CAP_PROG_LOAD = 1,
	CAP_MAP_CREATE,
	CAP_LINK_ATTACH,
	CAP_BTF_LOAD,
	/* records that complete the four above, or that change a link */
	CAP_TASK,		/* who creates objects: sent before its first one */
	CAP_LINK_DETACH,	/* BPF_LINK_DETACH succeeded */
	CAP_LINK_UPDATE,	/* BPF_LINK_UPDATE succeeded */
	CAP_PROG_MAPS,		/* where a program's maps are, for its instructions */
	CAP_PROG_INSNS,		/* a piece of a program's xlated instructions */
	CAP_LEGACY_ATTACH,	/* BPF_PROG_ATTACH of a cgroup program succeeded */
	CAP_LEGACY_DETACH,	/* BPF_PROG_DETACH of a cgroup program succeeded */
	CAP_PROG_META,		/* a program's bpf_metadata_* variables */
};

/* One kind per capture object, so that a kind that fails loses only itself. */
#define CAP_NR_KINDS		4

/* Shared by the capture objects (one array entry): user space sets, BPF counts. */
struct cap_state {
	__u64 wakeup_bytes;	/* wake the reader once this much is pending */
	__u64 drops;		/* facts the ring buffer had no room for */
};

/* A bpf() call in progress that creates an object (the syscall path), by tid. */
struct cap_call {
	__u64 start;			/* boot time ns at entry */
	__u32 cmd;
	__u32 attr[CAP_ATTR_WORDS];	/* the attr's first words, as passed */
	__u32 old_prog_id;		/* BPF_LINK_UPDATE: the link's program at entry */
	__u32 reserved;
};

/* What was last said of a task (cap_tasks), to say it again only when it changed. */
struct cap_task_seen {
	__u64 exe;			/* the struct file of its executable */
	__u64 cgroup_id;
};

/* calls in progress at once, of every thread of the machine */
#define CAP_MAX_CALLS		8192

/* Who created the object and when (CLOCK_MONOTONIC, like our perf events). */
struct cap_hdr {
	__u32 kind;		/* enum cap_kind */
	__u32 id;		/* object id, already assigned */
	__u64 time;
	__u32 pid;
	__u32 tid;
	__u32 uid;
	__u32 cpu;
	char comm[CAP_COMM_LEN];
};

/* Arrays are valid up to their counts only; strings are NUL-terminated. */
struct cap_prog {
	struct cap_hdr hdr;
	__u32 type;
	__u8 tag[8];
	__u64 load_time;	/* boot time ns, as bpf_prog_info reports it */
	__u32 owner_uid;	/* bpf_prog_info.created_by_uid */
	__u32 jited_len;
	__u32 xlated_len;
	__u32 btf_id;
	__u32 nr_jited_ksyms;
	__u32 nr_func_info;
	__u32 nr_line_info;	/* count only: the records are not read */
	__u32 nr_map_ids;	/* may exceed CAP_MAX_MAP_IDS: ids truncated */
	__u32 nr_func_names;	/* func_info[] and func_names[] filled */
	__u32 nr_ksyms;		/* ksym_*[] and sub_tags[] filled */
	__u32 map_ids[CAP_MAX_MAP_IDS];
	/* JIT images, one per sub-program, as bpf_prog_info reports them */
	__u64 ksym_addrs[CAP_MAX_FUNCS];
	__u32 ksym_lens[CAP_MAX_FUNCS];
	__u8 sub_tags[CAP_MAX_FUNCS][8];
	/* struct bpf_func_info: insn_off, type_id */
	__u32 func_info[CAP_MAX_FUNCS][2];
	char name[CAP_OBJ_NAME_LEN];
	char func_names[CAP_MAX_FUNCS][CAP_FUNC_NAME_LEN];
};

struct cap_map {
	struct cap_hdr hdr;
	__u32 type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 flags;
	__u32 btf_id;
	__u32 btf_key_type_id;
	__u32 btf_value_type_id;
	char name[CAP_OBJ_NAME_LEN];
};

/*
 * A path, as the names from the leaf up to the root (exclusive), each
 * NUL-terminated: "sh\0bin\0usr\0" is /usr/bin/sh.  cut says the walk
 * stopped before the root (too deep, or out of room).
 */
struct cap_path {
	__u16 len;		/* bytes of names[] used */
	__u16 depth;		/* names */
	__u32 cut;
	char names[CAP_PATH_LEN];
};

/*
 * Who a task is, sent before the first object it creates (and again if
 * its executable or cgroup changed), in its own context: right even when
 * the task is gone by the time the recorder reads it.
 */
struct cap_task {
	struct cap_hdr hdr;	/* id 0 */
	__u32 gid;
	__u32 loginuid;		/* (u32)-1: unset, or no audit */
	__u32 ppid;		/* the parent's tgid */
	__u32 reserved;
	__u64 cgroup_id;	/* of the cgroup v2 hierarchy */
	char pcomm[CAP_COMM_LEN];
	struct cap_path exe;
	struct cap_path cgroup;	/* below the cgroup v2 root */
};

/* The target kinds of a link (cap_link.target_kind). */
enum cap_target {
	CAP_TARGET_NONE,
	CAP_TARGET_CGROUP,	/* target_id: cgroup id, path: the cgroup */
	CAP_TARGET_DEV,		/* ifindex, ifname, netns */
	CAP_TARGET_NETNS,	/* netns */
	CAP_TARGET_STRUCT_OPS,	/* ifname: the struct_ops map's name */
	CAP_TARGET_UPROBE,	/* path: the binary, offset, target_id: uprobes */
};

struct cap_link {
	struct cap_hdr hdr;
	__u32 type;
	__u32 prog_id;
	__u32 attach_type;	/* the program's expected_attach_type */
	__u32 attach_btf_id;
	char attach_func[CAP_FUNC_NAME_LEN];
	char tp_name[CAP_FUNC_NAME_LEN];	/* raw_tp links: the tracepoint */
	char module[CAP_FUNC_NAME_LEN];		/* tracing links: the traced module's BTF */
	__u32 target_kind;	/* enum cap_target */
	__u32 ifindex;
	__u32 netns;		/* inode number of the network namespace */
	__u32 reserved;
	__u64 target_id;
	__u64 offset;
	char ifname[CAP_OBJ_NAME_LEN];
	struct cap_path path;
};

/* BPF_LINK_DETACH and BPF_LINK_UPDATE, by the task that called them. */
struct cap_link_change {
	struct cap_hdr hdr;	/* id: the link */
	__u32 type;
	__u32 prog_id;		/* the link's program after the call */
	__u32 old_prog_id;	/* LINK_UPDATE: before it */
	__u32 attach_type;
};

/*
 * A legacy attachment, which makes no link: BPF_PROG_ATTACH or
 * BPF_PROG_DETACH of a cgroup program, by the task that called it.  The
 * program is the one the call named; a detach may name none (a cgroup
 * that takes one program of the type needs no fd), and then id is 0.
 */
struct cap_legacy {
	struct cap_hdr hdr;	/* id: the program, or 0 */
	__u32 attach_type;	/* the call's enum bpf_attach_type */
	__u32 attach_flags;	/* BPF_F_ALLOW_MULTI, BPF_F_REPLACE, ... */
	__u32 old_prog_id;	/* BPF_F_REPLACE: the program replaced */
	__u32 target_kind;	/* enum cap_target: CAP_TARGET_CGROUP */
	__u64 target_id;	/* the cgroup's id */
	struct cap_path path;	/* the cgroup, below the cgroup v2 root */
};

/*
 * Where the maps of program @id are, as its instructions hold them: a
 * map's address, and for an array of one entry the address of its value
 * (instructions may point into it), as the kernel tells them apart when
 * it dumps the instructions (bpf_insn_prepare_dump()).
 */
struct cap_prog_maps {
	__u32 kind;
	__u32 id;
	__u32 nr;
	__u32 reserved;
	__u64 addrs[CAP_MAX_MAP_IDS];
	__u64 values[CAP_MAX_MAP_IDS];		/* 0: none */
	__u32 value_sizes[CAP_MAX_MAP_IDS];
};

/* Bytes @off to @off + @len of program @id's @total bytes of instructions. */
struct cap_prog_insns {
	__u32 kind;
	__u32 id;
	__u32 off;
	__u32 len;
	__u32 total;
	__u32 reserved;
	__u8 data[CAP_INSNS_CHUNK];
};

/* How a metadata variable's bytes are printed (its BTF type, resolved). */
enum cap_meta_fmt {
	CAP_META_BYTES,		/* anything else: hex bytes */
	CAP_META_UNSIGNED,	/* an integer or enum of 1, 2, 4, 8 or 16 bytes */
	CAP_META_SIGNED,
	CAP_META_STRING,	/* an array of char */
	CAP_META_PTR,
};

struct cap_meta_var {
	__u32 fmt;		/* enum cap_meta_fmt */
	__u32 size;		/* the variable's bytes */
	__u32 len;		/* of them in value[] */
	__u32 reserved;
	char name[CAP_META_NAME_LEN];	/* after "bpf_metadata_", cut to fit */
	__u8 value[CAP_META_VALUE_LEN];
};

/*
 * The bpf_metadata_* variables of program @id: those of the first map it
 * uses that is a .rodata section (an array of one entry whose value's
 * BTF is a DATASEC), read from the map's value at load, as bpftool and
 * perf find them by id later.  @seen may exceed @nr: the rest is lost.
 */
struct cap_prog_meta {
	__u32 kind;
	__u32 id;
	__u32 nr;
	__u32 seen;
	struct cap_meta_var vars[CAP_META_MAX];
};

struct cap_btf {
	struct cap_hdr hdr;
	__u32 size;		/* raw BTF data size */
	__u32 kernel;		/* vmlinux or module BTF */
	char name[CAP_FUNC_NAME_LEN];
};

#endif /* __BPFREC_CAPTURE_H */
