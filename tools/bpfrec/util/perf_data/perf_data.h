/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data (PERFILE2) writer and reader for bpfrec: the records, the
 * header features, and the BPF object facts (util/bpf_obj.h) they carry.
 *
 * File layout written by pd_writer:
 *
 *   file header | attr + its ids | data: raw perf records | feature table
 *   | features: HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC TOTAL_MEM
 *     CMDLINE EVENT_DESC SAMPLE_TIME BPF_PROG_INFO BPF_BTF | BPFREC
 *
 * BPF_PROG_INFO and BPF_BTF use perf's own encoding so Linux perf shows
 * them.  Everything perf has no place for (loader pid/comm, synthesised
 * and unresolved marks, maps, links, BTF metadata, lost counts) lives in
 * the BPFREC feature, on a feature bit above every bit perf knows: perf
 * 6.1 only visits bits below HEADER_LAST_FEATURE and skips ours silently.
 *
 * Crash safety: the data size in the file header is rewritten after
 * every flush, so a recorder killed at any point leaves a file that perf
 * and pd_reader read up to the last flush.  The facts are in the data
 * too (PD_RECORD_FACTS records, which perf skips).  Features are written
 * by pd_writer_close() only, the facts ones rebuilt from those records;
 * a file that never got them is "not finalised": pd_reader then takes
 * the facts from the records, and reads the data on to the end of the
 * file, up to the last complete record, with a warning.
 */
#ifndef BPFREC_PERF_DATA_H
#define BPFREC_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include "util/bpf_obj.h"

/*
 * Record types of the kernel series.  The patched uapi header declares
 * them as enum constants, which #ifndef cannot see: these macros take
 * their names, with the same values, so they must never differ.  Series
 * v1 named 6 LINK_DETACH; v2 renamed it LINK_RELEASE (the link's id is
 * released) and gave LINK_DETACH the new 9.
 */
#ifndef PERF_BPF_EVENT_MAP_CREATE
#define PERF_BPF_EVENT_MAP_CREATE	3
#endif
#ifndef PERF_BPF_EVENT_MAP_FREE
#define PERF_BPF_EVENT_MAP_FREE		4
#endif
#ifndef PERF_BPF_EVENT_LINK_ATTACH
#define PERF_BPF_EVENT_LINK_ATTACH	5
#endif
#ifndef PERF_BPF_EVENT_LINK_RELEASE
#define PERF_BPF_EVENT_LINK_RELEASE	6
#endif
#ifndef PERF_BPF_EVENT_BTF_LOAD
#define PERF_BPF_EVENT_BTF_LOAD		7
#endif
#ifndef PERF_BPF_EVENT_BTF_UNLOAD
#define PERF_BPF_EVENT_BTF_UNLOAD	8
#endif
#ifndef PERF_BPF_EVENT_LINK_DETACH
#define PERF_BPF_EVENT_LINK_DETACH	9
#endif
#ifndef PERF_BPF_EVENT_LINK_UPDATE
#define PERF_BPF_EVENT_LINK_UPDATE	10
#endif
#ifndef PERF_BPF_EVENT_FLAG_BTF_KERNEL
#define PERF_BPF_EVENT_FLAG_BTF_KERNEL	(1U << 0)
#endif
#ifndef PERF_BPF_EVENT_FLAG_BTF_MODULE
#define PERF_BPF_EVENT_FLAG_BTF_MODULE	(1U << 1)
#endif
/*
 * Set by bpfrec, never by a kernel, in the flags of the MAP_*, LINK_* and
 * BTF_* records it writes from what its capture saw, on kernels that do
 * not write them (whose flags then hold a map or link type, or BTF_*
 * flags, below this bit).  A release found by the end-of-recording scan
 * (..._GONE below) carries in its tag the time (perf clock, u64) the
 * object was last seen to exist: it went between then and the record's
 * time.
 */
#define PD_BPF_EVENT_FLAG_CAPTURED	(1U << 15)
#define PD_BPF_EVENT_FLAG_GONE		(1U << 14)
/*
 * A legacy attachment (BPF_PROG_ATTACH, BPF_PROG_DETACH of a cgroup
 * program), which makes no link: its LINK_ATTACH and LINK_DETACH records
 * carry an id of bpfrec's, PD_LEGACY_ID_BASE and above, where the kernel
 * never gives a link id (its ids are positive ints).  Its facts are a
 * link's: the program, the attach type, the cgroup as target.
 */
#define PD_BPF_EVENT_FLAG_LEGACY	(1U << 13)
#define PD_BPF_EVENT_FLAGS_BPFREC	(PD_BPF_EVENT_FLAG_CAPTURED | PD_BPF_EVENT_FLAG_GONE | \
					 PD_BPF_EVENT_FLAG_LEGACY)
#define PD_LEGACY_ID_BASE		(1U << 31)
/* the last type this reader knows */
#define PD_BPF_EVENT_LAST		PERF_BPF_EVENT_LINK_UPDATE

/*
 * attr.bpf_obj_event sits right after attr.sigtrap (bit 37 of the flags
 * word at offset 40).  Accessed by bit number so the code does not depend
 * on which perf_event.h is on the include path.
 */
#define PD_ATTR_BPF_OBJ_EVENT_BIT	38

void pd_attr_set_bpf_obj_event(struct perf_event_attr *attr, bool on);
bool pd_attr_bpf_obj_event(const struct perf_event_attr *attr);

/* "PROG_LOAD", "MAP_CREATE", ...; NULL for an unknown type. */
const char *pd_bpf_event_name(__u16 type);

/* What a BPF_EVENT record says happened to its object. */
enum pd_bpf_change {
	PD_BPF_CREATE,			/* PROG_LOAD, MAP_CREATE, LINK_ATTACH, BTF_LOAD */
	PD_BPF_RELEASE,			/* its id is gone: ..._UNLOAD, MAP_FREE, LINK_RELEASE */
	PD_BPF_CHANGE,			/* LINK_DETACH, LINK_UPDATE: the link lives on */
};

/* The kind of object of record type @type and what happened; false for a type not known. */
bool pd_bpf_event_kind(__u16 type, enum pd_kind *kind, enum pd_bpf_change *change);

/* Body of PERF_RECORD_BPF_EVENT: the fixed part, then the description. */
#define PD_BPF_EVENT_FIXED	16	/* type, flags, id, tag */

/*
 * A BPF_EVENT record, decoded.  Object records of kernels with series v2
 * describe their object after the tag (struct perf_bpf_event_map, _link
 * or _btf by type); desc_len is how many bytes the record had there (0:
 * none, from an older kernel or a program record).  A description is
 * used only whole: described says it held every field of its struct
 * (longer ones are from a later kernel, whose added fields are skipped);
 * a shorter one is taken as none, and desc is then all zero.  Names are
 * NUL-terminated.  One exception: a link's description without its
 * target (16 bytes, as series v2 and its backports write it) is whole,
 * and its target zero; pd_bpf_link_has_target() tells.
 */
struct pd_bpf_event {
	__u16 type;			/* PERF_BPF_EVENT_* */
	__u16 flags;			/* as the kernel sets them */
	__u32 id;
	__u8 tag[BPF_TAG_SIZE];
	/* the first 16 bytes are the record's: the rest is decoded */
	__u16 marks;			/* PD_BPF_EVENT_FLAGS_BPFREC, out of the record's flags */
	__u16 desc_len;
	bool described;
	union {
		struct perf_bpf_event_map map;
		struct perf_bpf_event_link link;
		struct perf_bpf_event_btf btf;
	} desc;
};

/* Bytes of the description of a record of @type (0: it has none). */
size_t pd_bpf_desc_size(__u16 type);
/* Whether the described link record @e carried its target. */
bool pd_bpf_link_has_target(const struct pd_bpf_event *e);
/*
 * Decode BPF_EVENT @body of @len bytes (after the header, without the
 * sample_id trailer) into @e; false when shorter than the fixed part.
 */
bool pd_bpf_event_decode(const void *body, size_t len, struct pd_bpf_event *e);
/*
 * The name of the BTF a described BTF_* record is about, as
 * BPF_OBJ_GET_INFO_BY_FD gives it: a module's, "vmlinux", or "" (BTF of
 * BPF_BTF_LOAD, or no description).
 */
const char *pd_bpf_btf_name(const struct pd_bpf_event *e);

/*
 * perf's record of the end of a round: every record before it is older
 * than every record after the round that follows it.
 */
#define PD_RECORD_FINISHED_ROUND	68

/* Feature bit of our own facts: far above anything perf assigns. */
#define PD_FEAT_BPFREC		255

/*
 * A sample of PERF_RECORD_SAMPLE, or the sample_id trailer of any other
 * record (pid, tid, time, id, stream_id, cpu only).  Which fields are in
 * a record is its event's sample_type; the others read 0.  The arrays
 * point into the record (decoding) or into the caller's memory
 * (encoding): nothing is allocated.
 */
struct pd_sample {
	__u32 pid;
	__u32 tid;
	__u64 time;
	__u32 cpu;
	__u32 reserved;
	__u64 id;			/* ID, or IDENTIFIER: the same value */
	__u64 stream_id;

	__u64 ip;
	__u64 addr;
	__u64 period;
	struct {
		__u64 time_enabled;	/* PERF_FORMAT_TOTAL_TIME_ENABLED */
		__u64 time_running;	/* PERF_FORMAT_TOTAL_TIME_RUNNING */
		__u64 nr;		/* counters: 1 without PERF_FORMAT_GROUP */
		/*
		 * As on disk: a group's nr entries of { value; id if
		 * PERF_FORMAT_ID; lost if PERF_FORMAT_LOST }, a single
		 * counter's { value; enabled; running; id; lost } (the
		 * fields read_format asks for).  Read with pd_read_value().
		 */
		const __u64 *values;
	} read;
	__u64 nr_callchain;
	const __u64 *callchain;
	__u32 raw_size;			/* read: padded as the kernel pads it */
	const void *raw;
	__u64 nr_branches;
	__u64 branch_hw_idx;		/* PERF_SAMPLE_BRANCH_HW_INDEX */
	const struct perf_branch_entry *branches;
	__u64 regs_user_abi;		/* PERF_SAMPLE_REGS_ABI_*; 0: no regs */
	const __u64 *regs_user;		/* hweight(attr.sample_regs_user) */
	__u64 stack_user_size;		/* a multiple of 8, as the kernel copies */
	const void *stack_user;
	__u64 stack_user_dyn_size;	/* present when stack_user_size is */
	__u64 weight;			/* WEIGHT, or WEIGHT_STRUCT's union */
	__u64 data_src;
	__u64 transaction;
	__u64 regs_intr_abi;
	const __u64 *regs_intr;		/* hweight(attr.sample_regs_intr) */
	__u64 phys_addr;
	__u64 cgroup;
	__u64 data_page_size;
	__u64 code_page_size;
	__u64 aux_size;			/* a multiple of 8 too */
	const void *aux;
};

/* Counter @i of a sample's read_format values. */
struct pd_read_value {
	__u64 value;
	__u64 id;
	__u64 lost;
};

void pd_read_value(const struct perf_event_attr *attr, const struct pd_sample *s,
		   __u64 i, struct pd_read_value *v);

/*
 * Decode the body of a PERF_RECORD_SAMPLE (@len bytes after the header)
 * as @attr lays it out, field by field in the kernel's order, each one
 * checked against @len.  Returns 0, or -EINVAL with the name of the field
 * that does not fit in @why ("CALLCHAIN", ...).
 */
int pd_sample_decode(const struct perf_event_attr *attr, const void *body, size_t len,
		     struct pd_sample *s, const char **why);
/* The sample_id trailer at the end of a non-sample record of @size bytes. */
int pd_sample_id_decode(const struct perf_event_attr *attr,
			const struct perf_event_header *rec, struct pd_sample *s);
/* Bytes of the sample_id trailer @attr asks for (0 without sample_id_all). */
size_t pd_sample_id_size(const struct perf_event_attr *attr);

/*
 * An event of the recording, as the writer stores it: its attr (the size
 * the kernel took is kept), the name perf shows (HEADER_EVENT_DESC), and
 * the ids of its per-CPU instances (PERF_EVENT_IOC_ID), by which records
 * are told apart.
 */
struct pd_event {
	const struct perf_event_attr *attr;
	const char *name;
	const __u64 *ids;
	size_t nr_ids;
};

/* ---- writer ---------------------------------------------------------- */

struct pd_writer;

struct pd_writer_config {
	const struct pd_event *events;	/* the first one is the default */
	size_t nr_events;
	int argc;			/* CMDLINE */
	char *const *argv;
	bool stat;			/* counts: HEADER_STAT, for perf stat report */
	const char *version;		/* HEADER_VERSION: "bpfrec-" and what --version says */
};

/*
 * Write a valid empty perf.data into @fd, an empty file open for reading
 * and writing, which stays the caller's (pd_writer_close() does not close
 * it): bpfrec's commands create it with util/out_file.h.
 * Returns 0 and sets *wp, or a negative errno.
 */
int pd_writer_open_fd(struct pd_writer **wp, int fd,
		      const struct pd_writer_config *cfg);
/*
 * The same into @fd, and the recording streamed live to @pipe_fd as perf's
 * pipe mode (perf record -o -): a header, the attrs and features first,
 * then each flush of the data as it is written to @fd, which the facts
 * are read back from.  Neither fd is closed by pd_writer_close(), which
 * ends the stream with the features known only then and writes no
 * header into @fd: it is a store to discard.
 */
int pd_writer_open_pipe(struct pd_writer **wp, int fd, int pipe_fd,
			const struct pd_writer_config *cfg);
/* The same into @path, created or truncated (the tests' files). */
int pd_writer_open(struct pd_writer **wp, const char *path,
		   const struct pd_writer_config *cfg);

/*
 * Append one complete record (header.size bytes, 8-byte multiple) as it
 * came from a ring buffer; a record that wrapped around the end of the
 * ring must be made contiguous first.
 */
int pd_write_raw(struct pd_writer *w, const struct perf_event_header *rec);

/*
 * Build and append records; the sample_id fields come from @s, laid out
 * as the event of @s->id asks (the first event when no event has it).
 */
int pd_write_bpf_event(struct pd_writer *w, __u16 type, __u16 flags,
		       __u32 id, const __u8 tag[BPF_TAG_SIZE],
		       const struct pd_sample *s);
/* An object's record with its description (@e->desc, pd_bpf_desc_size() bytes). */
int pd_write_bpf_object(struct pd_writer *w, const struct pd_bpf_event *e,
			const struct pd_sample *s);
int pd_write_ksymbol(struct pd_writer *w, __u64 addr, __u32 len,
		     __u16 ksym_type, __u16 flags, const char *name,
		     const struct pd_sample *s);
int pd_write_comm(struct pd_writer *w, __u32 pid, __u32 tid,
		  const char *comm, bool exec, const struct pd_sample *s);
int pd_write_lost(struct pd_writer *w, __u64 id, __u64 lost,
		  const struct pd_sample *s);

/* PERF_RECORD_MMAP, as the kernel writes it or as perf synthesises it. */
struct pd_mmap {
	__u32 pid;			/* -1: the kernel */
	__u32 tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;
	const char *filename;
};

/*
 * perf finds the kernel's map and relocation from the MMAP of
 * "[kernel.kallsyms]_text" at _text (pgoff = its address): a file with
 * kernel samples needs one, else perf warns that the maps were restricted.
 */
int pd_write_mmap(struct pd_writer *w, const struct pd_mmap *m, __u16 misc,
		  const struct pd_sample *s);
/* PERF_RECORD_MMAP2 with the device and inode, as perf synthesises it. */
struct pd_mmap2 {
	__u32 pid;
	__u32 tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;
	__u32 maj;
	__u32 min;
	__u64 ino;
	__u64 ino_generation;
	__u32 prot;			/* PROT_* */
	__u32 flags;			/* MAP_SHARED or MAP_PRIVATE */
	const char *filename;
};

int pd_write_mmap2(struct pd_writer *w, const struct pd_mmap2 *m, __u16 misc,
		   const struct pd_sample *s);
/*
 * A PERF_RECORD_SAMPLE of the event whose id is @s->id, with the fields
 * its sample_type selects.  -E2BIG beyond 64 KiB, -EINVAL for an id that
 * is none of the events' ids.
 */
int pd_write_sample(struct pd_writer *w, __u16 misc, const struct pd_sample *s);

/*
 * End of one drain of all ring buffers: appends FINISHED_ROUND (readers
 * may then sort what came before) and flushes.
 */
int pd_write_finished_round(struct pd_writer *w);

/*
 * Counts, as `perf stat record` writes them (stat_write.c): the
 * configuration, the thread and CPU maps the counts are indexed by, then
 * per round one STAT record per counter (cumulative values: perf stat
 * report takes the deltas of an interval itself) and a STAT_ROUND.
 * The file's events are the counters, one id each, and the writer was
 * opened with .stat set.
 */
#define PD_RECORD_THREAD_MAP	73
#define PD_RECORD_CPU_MAP	74
#define PD_RECORD_STAT_CONFIG	75
#define PD_RECORD_STAT		76
#define PD_RECORD_STAT_ROUND	77

enum pd_stat_round { PD_STAT_ROUND_INTERVAL, PD_STAT_ROUND_FINAL };

/* perf's aggregation over CPUs and threads: one sum (AGGR_GLOBAL). */
int pd_write_stat_config(struct pd_writer *w, __u64 interval_ms);
/* One thread (@pid, @comm) and "any CPU": the counts are system totals. */
int pd_write_stat_maps(struct pd_writer *w, __u32 pid, const char *comm);
int pd_write_stat(struct pd_writer *w, __u64 id, __u64 val, __u64 ena, __u64 run);
/* @time: ns since the start (INTERVAL), or the whole run's (FINAL). */
int pd_write_stat_round(struct pd_writer *w, enum pd_stat_round type, __u64 time);

/*
 * The run-time histogram of one program, as `stat -b --hist -o FILE`
 * writes it into a stat file (hist.c): the log-linear buckets of
 * bpf_skel/stat_profile.h (below 16 ns one per ns, then 16 per power of
 * two), each its runs.
 */
#define PD_HIST_BUCKETS		976
#define PD_HIST_NAME_LEN	128

struct pd_hist {
	__u32 id;
	char name[PD_HIST_NAME_LEN];	/* NUL-terminated */
	__u64 max_ns;			/* the longest run */
	__u64 buckets[PD_HIST_BUCKETS];
};

int pd_write_hist(struct pd_writer *w, const struct pd_hist *h);
/*
 * Whether @rec (a record of pd_reader_next(), size checked) is a
 * histogram: 1 and *@h decoded, 0 when it is not one, or -EINVAL with
 * *@why when it is one but malformed.
 */
int pd_hist_decode(const struct perf_event_header *rec, struct pd_hist *h, const char **why);
/*
 * perf's PERF_RECORD_BPF_METADATA (perf 6.16 and later): the metadata of
 * the program whose image is @prog_name ("bpf_prog_TAG_NAME"), one record
 * per image, as perf writes it.  Perf before 6.16 stops reading a file at
 * a record of a type it does not know: record --perf-metadata only.
 */
#define PD_RECORD_BPF_METADATA	84
int pd_write_bpf_metadata(struct pd_writer *w, const char *prog_name, const struct pd_meta *meta,
			  __u32 nr);
/*
 * Program @id's xlated instructions (@len bytes, at most PD_INSNS_MAX),
 * as the kernel dumps them, kept in the data for script --dump.
 */
#define PD_INSNS_MAX		(256 << 10)
int pd_writer_add_insns(struct pd_writer *w, __u32 id, const void *insns, size_t len);

/* Write buffered records and commit the data size in the file header. */
int pd_writer_flush(struct pd_writer *w);

/*
 * Add facts: written into the data at once (the caller keeps its
 * memory), so that they survive a recorder killed or a full disk.  A
 * later fact with the same kind and id replaces the earlier one.  An
 * error of the file stays (the writer fails from then on); -E2BIG (a
 * fact no record can hold) does not.
 */
int pd_writer_add_prog(struct pd_writer *w, const struct pd_prog *p);
int pd_writer_add_map(struct pd_writer *w, const struct pd_map *m);
int pd_writer_add_link(struct pd_writer *w, const struct pd_link *l);
int pd_writer_add_btf(struct pd_writer *w, const struct pd_btf *b);
int pd_writer_set_capture(struct pd_writer *w, const struct pd_capture *c);
/* A loader, once per index (pd_origin.loader): few, kept until the features are written. */
int pd_writer_add_loader(struct pd_writer *w, const struct pd_loader *d);

/*
 * The facts of @kind and @id as added last, read back from the file into
 * @fact (a pd_prog, pd_map, ... zeroed by the caller, its arrays then the
 * caller's), or -ENOENT when none were added.
 */
int pd_writer_fact(struct pd_writer *w, enum pd_kind kind, __u32 id, void *fact);
bool pd_writer_has_fact(const struct pd_writer *w, enum pd_kind kind, __u32 id);

/*
 * HEADER_TRACING_DATA as perf writes it (built by util/tracing_data.c):
 * the tracepoints' formats and /proc/kallsyms of record time, megabytes:
 * @data (from malloc()) is the writer's from now on, not copied; a later
 * call replaces it.
 */
void pd_writer_give_tracing_data(struct pd_writer *w, void *data, size_t len);

struct pd_writer_stats {
	__u64 records;
	__u64 data_bytes;		/* data section size so far */
	__u64 lost;			/* sum of LOST records written */
};

void pd_writer_stats(const struct pd_writer *w, struct pd_writer_stats *st);

/*
 * Flush, write the features, finalise the header, close (the file of
 * pd_writer_open() only) and free.
 * Returns 0 or the first error met (negative errno); frees @w always.
 * Not async-signal-safe: a signal handler should only set a flag (or use
 * a signalfd) and let the main loop call this.  Nothing is lost by that:
 * the file on disk is valid after every flush.
 */
int pd_writer_close(struct pd_writer *w);


/* ---- reader ---------------------------------------------------------- */

struct pd_reader;

/* Header facts, from the file header and the features present. */
struct pd_file_info {
	__u64 data_offset;
	__u64 data_size;		/* as read (after the crash fallback) */
	bool finalised;			/* feature section present */
	bool pipe;			/* pipe mode: attrs and features in the stream */
	size_t nr_events;
	struct pd_event_info {
		struct perf_event_attr attr;	/* zero beyond what the file had */
		char *name;			/* HEADER_EVENT_DESC, else NULL */
		__u64 *ids;
		size_t nr_ids;
	} *events;
	char *hostname;			/* NULL when the feature is absent */
	char *osrelease;
	char *version;
	char *arch;
	char *cpudesc;
	char *cmdline;			/* arguments joined by spaces */
	__u32 nr_cpus_online;
	__u32 nr_cpus_avail;
	__u64 total_mem_kb;
	bool stat;			/* HEADER_STAT: written by perf stat record or bpfrec stat -o */
	__u64 first_sample_time;
	__u64 last_sample_time;
	/* HEADER_CLOCKID and HEADER_CLOCK_DATA */
	__u64 clock_res_ns;
	bool has_clock_data;
	__u32 clockid;
	__u64 clock_tod_ns;		/* wall clock ... */
	__u64 clock_ref_ns;		/* ... and clockid's time at the same moment */
	/* HEADER_TRACING_DATA's place in the file, size 0 when absent */
	__u64 tracing_data_offset;
	__u64 tracing_data_size;
};

/* PERF_RECORD_KSYMBOL, decoded. */
struct pd_ksymbol {
	__u64 addr;
	__u32 len;
	__u16 ksym_type;
	__u16 flags;
	const char *name;
};

/* One decoded record, in file order. */
struct pd_record {
	__u32 type;			/* PERF_RECORD_* */
	__u16 misc;
	__u16 size;
	__u64 offset;			/* file offset of the record */
	const struct perf_event_header *raw;	/* its bytes, as long as .sample */
	int event;			/* index in pd_file_info.events, -1: none */
	bool has_sample;		/* a sample or sample_id trailer was parsed */
	struct pd_sample sample;	/* valid until the next record is read */
	union {
		struct pd_bpf_event bpf;
		struct pd_ksymbol ksymbol;
		struct {
			__u32 pid;
			__u32 tid;
			const char *comm;
		} comm;
		struct {
			__u32 pid;
			__u32 tid;
			__u64 start;
			__u64 len;
			__u64 pgoff;
			const char *filename;
			__u32 prot;		/* MMAP2 only: PROT_*; 0 for MMAP */
			__u8 build_id_size;	/* MMAP2 with ..._MMAP_BUILD_ID, else 0 */
			__u8 build_id[20];
		} mmap;			/* MMAP and MMAP2 */
		struct {
			__u64 id;
			__u64 lost;
		} lost;
		struct {
			__u32 pid;
			__u32 ppid;
			__u32 tid;
			__u32 ptid;
			__u64 time;
		} task;			/* FORK and EXIT */
	};
};

/*
 * Open a file or a memory buffer and parse its header and features.
 * On failure returns NULL and writes one line (no newline) to @err.
 * A memory buffer must stay valid until pd_reader_close(); one that is
 * not 8-byte aligned is copied.
 */
struct pd_reader *pd_reader_open(const char *path, char *err, size_t errlen);
struct pd_reader *pd_reader_open_mem(const void *buf, size_t len,
				     char *err, size_t errlen);

const struct pd_file_info *pd_reader_info(const struct pd_reader *r);

/*
 * The facts of the file's objects, decoded when asked for: a storm's file
 * describes hundreds of thousands, which a reader does not hold.  NULL
 * when the file has none for @id.  A pointer stays valid for at least the
 * next PD_FACTS_CACHE - 1 lookups.
 */
#define PD_FACTS_CACHE		16

const struct pd_prog *pd_reader_prog(struct pd_reader *r, __u32 id);
const struct pd_map *pd_reader_map(struct pd_reader *r, __u32 id);
const struct pd_link *pd_reader_link(struct pd_reader *r, __u32 id);
const struct pd_btf *pd_reader_btf(struct pd_reader *r, __u32 id);
/* The objects of @kind in id order: an iterator zeroed first, then true and *id each. */
struct pd_fact_iter {
	size_t group[2], pos[2];
};

bool pd_reader_next_fact(struct pd_reader *r, enum pd_kind kind, struct pd_fact_iter *it,
			 __u32 *id);
/* Loader @index (pd_origin.loader), NULL when the file has none. */
const struct pd_loader *pd_reader_loader(const struct pd_reader *r, __u32 index);
/*
 * The loader the capture saw last as task @tid at or before @time: who
 * did what a record of that task says (a detach), NULL when none.
 */
const struct pd_loader *pd_reader_loader_of(const struct pd_reader *r, __u32 tid, __u64 time);
/* The BPFREC capture facts, NULL in a file without them. */
const struct pd_capture *pd_reader_capture(const struct pd_reader *r);

/*
 * Next record in file order: 1 and *rec filled, 0 at the end, negative
 * errno on malformed data (message in pd_reader_error()).  Strings in
 * *rec stay valid until the next call.  A file cut short ends at its
 * last complete record, with pd_reader_warning() set.
 */
int pd_reader_next(struct pd_reader *r, struct pd_record *rec);
/*
 * Decode again a record read before, from a copy of its bytes (@raw,
 * 8-byte aligned) and its file @offset: for readers that keep records to
 * deliver them later (pd_ordered).  Returns as pd_reader_next().
 */
int pd_reader_decode(struct pd_reader *r, const struct perf_event_header *raw, __u64 offset,
		     struct pd_record *rec);
/*
 * The xlated instructions of program @id the file kept (record
 * --keep-insns), in a new buffer of *@len bytes: 0, -ENOENT when it kept
 * none, -EINVAL when what it kept is not whole.
 */
int pd_reader_prog_insns(struct pd_reader *r, __u32 id, void **insns, size_t *len);
/* HEADER_TRACING_DATA's bytes in the file, NULL (and *len 0) without it. */
const void *pd_reader_tracing_data(const struct pd_reader *r, size_t *len);
const char *pd_reader_error(const struct pd_reader *r);
const char *pd_reader_warning(const struct pd_reader *r);	/* or NULL */

void pd_reader_close(struct pd_reader *r);

/* ---- time-ordered reading (ordered.c) -------------------------------- */

/*
 * The records of @r in time order, delivered round by round: memory holds
 * the records of about two rounds (FINISHED_ROUND to FINISHED_ROUND), not
 * the file, and at most 64 MiB of them (then the older half is delivered).  FINISHED_ROUND records themselves are not delivered.
 */
struct pd_ordered;

struct pd_ordered_stats {
	__u64 rounds;			/* flushes, the end of the file included */
	__u64 max_queued;		/* records held at most */
	__u64 late;			/* records older than one delivered before */
	__u64 forced;			/* flushes forced by the byte budget */
};

struct pd_ordered *pd_ordered_new(struct pd_reader *r);
/* Like pd_reader_next(), in time order; *rec is valid until the next call. */
int pd_ordered_next(struct pd_ordered *o, struct pd_record *rec);
void pd_ordered_stats(const struct pd_ordered *o, struct pd_ordered_stats *st);
/* The bytes records may take while they wait (default 64 MiB), for tests. */
void pd_ordered_set_budget(struct pd_ordered *o, __u64 bytes);
/* Frees @o only: the reader is the caller's. */
void pd_ordered_free(struct pd_ordered *o);

#endif /* BPFREC_PERF_DATA_H */
