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

enum cap_kind {
	CAP_PROG_LOAD = 1,
	CAP_MAP_CREATE,
	CAP_LINK_ATTACH,
	CAP_BTF_LOAD,
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

struct cap_link {
	struct cap_hdr hdr;
	__u32 type;
	__u32 prog_id;
	__u32 attach_type;	/* the program's expected_attach_type */
	__u32 attach_btf_id;
	char attach_func[CAP_FUNC_NAME_LEN];
	char tp_name[CAP_FUNC_NAME_LEN];	/* raw_tp links: the tracepoint */
};

struct cap_btf {
	struct cap_hdr hdr;
	__u32 size;		/* raw BTF data size */
	__u32 kernel;		/* vmlinux or module BTF */
	char name[CAP_FUNC_NAME_LEN];
};

#endif /* __BPFREC_CAPTURE_H */
