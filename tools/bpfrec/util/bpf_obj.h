/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of the BPF objects a recording is about: programs, maps,
 * links and BTF, with who created them and how each fact was learnt.
 * The recorder fills it (capture, syscalls, synthesis), the perf.data
 * writer stores it, the reader gives it back to script and report.
 *
 * The pd_ prefix: pd_origin, pd_map, pd_link and pd_capture are also the
 * items of the BPFREC perf.data feature, laid out as stored.
 */
#ifndef BPFREC_BPF_OBJ_H
#define BPFREC_BPF_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>

/*
 * The kinds of BPF objects, the one enum of every layer: records, facts,
 * the file's features, script's and report's rows.
 */
enum pd_kind { PD_PROG, PD_MAP, PD_LINK, PD_BTF, PD_NR_KINDS };

/* "prog", "map", "link", "btf": a kind as script --kinds and report name it. */
const char *pd_kind_name(enum pd_kind kind);

#define PD_COMM_LEN		16
#define PD_NAME_LEN		16	/* BPF_OBJ_NAME_LEN */
#define PD_BTF_NAME_LEN		64
#define PD_TARGET_LEN		128
#define PD_PATH_LEN		256
#define PD_SHA256_LEN		32
/* a bpf_metadata_* variable's name and value, as perf keeps them */
#define PD_META_KEY_LEN		64
#define PD_META_VALUE_LEN	256
/* and at most this many of a program */
#define PD_META_MAX		16

/* Origin and quality marks of a fact (pd_*.flags). */
#define PD_F_SYNTHESISED	(1U << 0) /* existed when recording started */
#define PD_F_UNRESOLVED		(1U << 1) /* only the id is known */
#define PD_F_CAPTURED		(1U << 2) /* facts taken in kernel context */
#define PD_F_SYSCALL		(1U << 3) /* facts from BPF_OBJ_GET_INFO_BY_FD */
#define PD_F_PERF		(1U << 4) /* read from perf's BPF_PROG_INFO */
#define PD_F_SELF		(1U << 5) /* the recorder's own (its capture) */
#define PD_F_RECORDED		(1U << 6) /* a live record announced its creation */
#define PD_F_OBJECT		(1U << 7) /* loaded by bpfrec for the user (--object) */
#define PD_F_DESCRIBED		(1U << 8) /* from the description its record carried */
#define PD_F_SHA256		(1U << 9) /* pd_prog.sha256 holds the instructions' hash */
#define PD_F_META		(1U << 10) /* pd_prog.meta holds its bpf_metadata_* variables */
/* A source told what the object is: nothing needs to be asked. */
#define PD_F_KNOWN		(PD_F_CAPTURED | PD_F_SYSCALL | PD_F_DESCRIBED)

/*
 * Who created an object, when known (all zero otherwise).  This struct,
 * pd_map, pd_link and pd_capture are also laid out as the BPFREC feature
 * stores them: add fields at the end only.
 */
struct pd_origin {
	__u32 pid;			/* tgid of the creating task */
	__u32 tid;
	__u32 uid;
	__u32 loader;			/* its pd_loader's index, 0: none known */
	__u64 time;			/* perf clock, like sample times */
	char comm[PD_COMM_LEN];
};

/*
 * A bpf_metadata_NAME variable of a program's .rodata (bpftool prog show:
 * "metadata:"): NAME, and its value printed as perf prints it (a string
 * in double quotes, a number), both NUL-terminated.
 */
struct pd_meta {
	char key[PD_META_KEY_LEN];
	char value[PD_META_VALUE_LEN];
};

struct pd_prog {
	__u32 id;
	__u32 flags;			/* PD_F_* */
	__u32 type;			/* enum bpf_prog_type */
	__u8 tag[BPF_TAG_SIZE];
	char name[PD_NAME_LEN];
	__u64 load_time;		/* bpf_prog_info.load_time (boottime ns) */
	struct pd_origin origin;
	__u32 jited_len;
	__u32 xlated_len;
	__u32 btf_id;

	__u32 nr_map_ids;
	__u32 *map_ids;

	/* One entry per JITed sub-program, all three arrays nr_ksyms long. */
	__u32 nr_ksyms;
	__u64 *ksym_addrs;
	__u32 *ksym_lens;
	__u8 (*sub_tags)[BPF_TAG_SIZE];

	/* BTF function and line info, records as the kernel returns them. */
	__u32 nr_func_info;
	struct bpf_func_info *func_info;
	__u32 nr_line_info;
	struct bpf_line_info *line_info;
	/*
	 * Line info records the program has, known without line_info[]:
	 * the in-kernel capture reads only the count, and a short-lived
	 * program is gone before the syscalls could fetch the records.
	 */
	__u32 nr_lines;

	/* Function names resolved from BTF func_info, one per sub-program. */
	__u32 nr_func_names;
	char **func_names;

	/*
	 * SHA-256 of the xlated instructions as BPF_OBJ_GET_INFO_BY_FD gives
	 * them to root (maps by id), when flags has PD_F_SHA256.
	 */
	__u8 sha256[PD_SHA256_LEN];

	/* Its bpf_metadata_* variables, with PD_F_META. */
	__u32 nr_meta;
	struct pd_meta *meta;
};

struct pd_map {
	__u32 id;
	__u32 flags;			/* PD_F_* */
	__u32 type;			/* enum bpf_map_type */
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 map_flags;
	__u32 btf_id;
	__u32 btf_key_type_id;
	__u32 btf_value_type_id;
	__u64 map_extra;
	char name[PD_NAME_LEN];
	struct pd_origin origin;
};

struct pd_link {
	__u32 id;
	__u32 flags;			/* PD_F_* */
	__u32 type;			/* enum bpf_link_type */
	__u32 prog_id;
	__u32 attach_type;		/* enum bpf_attach_type, if known */
	__u32 reserved;
	char target[PD_TARGET_LEN];	/* "tracepoint sched:sched_switch", ... */
	struct pd_origin origin;
};

struct pd_btf {
	__u32 id;
	__u32 flags;			/* PD_F_* */
	bool kernel;			/* vmlinux or module BTF */
	__u32 size;			/* btf_size reported by the kernel */
	char name[PD_BTF_NAME_LEN];
	struct pd_origin origin;
	/* Raw BTF; stored in perf's BPF_BTF feature when present. */
	__u32 data_len;
	void *data;
};

/*
 * A task that created or changed objects, as the capture saw it in its
 * own context: objects name it by index (pd_origin.loader).  Stored as it
 * is (no pointer, no padding): add fields at the end only.
 */
#define PD_LOADER_EXE_CUT	(1U << 0) /* exe is the end of a longer path */
#define PD_LOADER_CGROUP_CUT	(1U << 1)

struct pd_loader {
	__u32 index;			/* from 1, in the order first seen */
	__u32 pid;
	__u32 tid;
	__u32 ppid;			/* the parent's tgid */
	__u32 uid;
	__u32 gid;
	__u32 loginuid;			/* (u32)-1: unset, or no audit */
	__u32 flags;			/* PD_LOADER_* */
	__u64 cgroup_id;		/* cgroup v2 */
	__u64 time;			/* when it was seen, perf clock */
	char comm[PD_COMM_LEN];
	char pcomm[PD_COMM_LEN];	/* the parent's */
	char exe[PD_PATH_LEN];		/* "" when unknown (a kernel thread) */
	char cgroup[PD_PATH_LEN];	/* "/" for the root */
};

/* Facts about the capture itself (pd_capture.flags). */
#define PD_CAP_BPF_OBJ_EVENT	(1U << 0) /* kernel emitted map/link/btf */
#define PD_CAP_KERNEL_CAPTURE	(1U << 1) /* in-kernel fact capture ran */
/*
 * The tracing data keeps the recording machine's kallsyms, addresses and
 * all, as /proc/kallsyms showed them to the recorder: sampled recordings
 * only, for script and report to name the samples' kernel frames (and
 * libtraceevent the tracepoint fields that print kernel addresses) on
 * any machine.  A file that has it tells where its kernel was (KASLR).
 */
#define PD_CAP_KALLSYMS		(1U << 2)

struct pd_capture {
	__u32 flags;			/* PD_CAP_* */
	__u32 reserved;
	__u64 start_time;		/* perf clock */
	__u64 end_time;
	__u64 lost_records;		/* records lost in perf ring buffers */
	__u64 lost_facts;		/* facts lost by the in-kernel capture */
};

/* Free a program's arrays and zero their counts; the scalars stay. */
void pd_prog_free_arrays(struct pd_prog *p);

/* Deep copies and release of facts. */
int pd_btf_copy(struct pd_btf *dst, const struct pd_btf *src);
void pd_btf_release(struct pd_btf *b);

#endif /* BPFREC_BPF_OBJ_H */
