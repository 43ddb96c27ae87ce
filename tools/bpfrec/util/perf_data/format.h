/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-disk layout of perf.data as Linux perf 6.1 reads it, and of our
 * BPFREC feature.  Private to util/perf_data/.
 * Everything is host endian; only little-endian files are handled.
 */
#ifndef BPFREC_PERF_DATA_FORMAT_H
#define BPFREC_PERF_DATA_FORMAT_H

#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

#define PD_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define PD_MAGIC_SWAPPED	0x50455246494c4532ULL

/*
 * perf_event_attr bytes per attr in the file: perf 6.1's struct (up to
 * sig_data), since perf 6.1 refuses an attr larger than its own. The
 * fields after it (config3) are never set by the tool.
 */
#define PD_ATTR_SIZE		PERF_ATTR_SIZE_VER7

#define PD_FEAT_BITS		256

/* Feature numbers of perf's header (tools/perf/util/header.h). */
enum {
	PD_HEADER_TRACING_DATA	= 1,
	PD_HEADER_HOSTNAME	= 3,
	PD_HEADER_OSRELEASE	= 4,
	PD_HEADER_VERSION	= 5,
	PD_HEADER_ARCH		= 6,
	PD_HEADER_NRCPUS	= 7,
	PD_HEADER_CPUDESC	= 8,
	PD_HEADER_TOTAL_MEM	= 10,
	PD_HEADER_CMDLINE	= 11,
	PD_HEADER_EVENT_DESC	= 12,
	PD_HEADER_STAT		= 19,	/* empty: "written by perf stat record" */
	PD_HEADER_SAMPLE_TIME	= 21,
	PD_HEADER_CLOCKID	= 23,
	PD_HEADER_BPF_PROG_INFO	= 25,
	PD_HEADER_BPF_BTF	= 26,
	PD_HEADER_COMPRESSED	= 27,
	PD_HEADER_CLOCK_DATA	= 29,
};

/* perf's strings: u32 length (NUL included, padded to 64), then bytes. */
#define PD_NAME_ALIGN		64

/* Records perf itself adds to the data section (no sample_id). */
#define PD_RECORD_USER_TYPE_START	64
#define PD_RECORD_HEADER_ATTR		64
#define PD_RECORD_HEADER_FEATURE	80

/* Pipe mode's file header: magic and this size, no sections. */
#define PD_PIPE_HEADER_SIZE		16

/*
 * The facts of an object, written into the data as they are learnt, so
 * that a recording cut short by kill -9 or a full disk keeps them: one
 * feature entry per record, exactly as it is in BPF_PROG_INFO, BPF_BTF or
 * BPFREC.  The type is perf's deprecated HEADER_EVENT_TYPE, which every
 * perf tool skips (perf 6.1 fails on a type it does not know, and perf
 * report on a HEADER_FEATURE record of a feature above its own).  The
 * features are rebuilt from these records at close, for perf.
 */
#define PD_RECORD_FACTS		65
/*
 * perf 7.2 skips a HEADER_EVENT_TYPE record shorter than its struct
 * (header, event id, 64-byte name), and warns for each: ours are padded
 * to at least that size.
 */
#define PD_RECORD_FACTS_MIN	80

struct pd_fact_header {
	struct perf_event_header header;	/* type PD_RECORD_FACTS */
	__u32 magic;			/* PD_EXT_MAGIC: tells ours from perf's */
	__u32 feat;			/* the feature the entry is of */
};

/* Whether the record at @p of @size bytes is one of ours. */
bool pd_fact_record(const __u8 *p, size_t size);

/*
 * The bytes an entry of @feat at @p takes in its feature (BPFREC items:
 * padded), 0 when it is not whole in @avail.
 */
size_t pd_fact_entry_len(int feat, const __u8 *p, size_t avail);

struct pd_file_section {
	__u64 offset;
	__u64 size;
};

struct pd_file_header {
	__u64 magic;
	__u64 size;			/* sizeof(struct pd_file_header) */
	__u64 attr_size;		/* PD_ATTR_SIZE + ids section */
	struct pd_file_section attrs;
	struct pd_file_section data;
	struct pd_file_section event_types;	/* unused by perf */
	__u64 features[PD_FEAT_BITS / 64];
};

/* Offset of data.size: the one field rewritten after every flush. */
#define PD_DATA_SIZE_OFFSET	offsetof(struct pd_file_header, data.size)

/*
 * perf's bpf_prog_info record (struct perf_bpil): info_len, data_len,
 * a bitmap of the arrays present, the info, then the arrays; array
 * pointers in the info hold offsets from the start of the arrays.
 */
enum {
	PD_BPIL_JITED_INSNS,
	PD_BPIL_XLATED_INSNS,
	PD_BPIL_MAP_IDS,
	PD_BPIL_JITED_KSYMS,
	PD_BPIL_JITED_FUNC_LENS,
	PD_BPIL_FUNC_INFO,
	PD_BPIL_LINE_INFO,
	PD_BPIL_JITED_LINE_INFO,
	PD_BPIL_PROG_TAGS,
};

/* perf 6.1 refuses an info longer than its own bpf_prog_info. */
#define PD_PROG_INFO_LEN \
	(offsetof(struct bpf_prog_info, attach_btf_id) + sizeof(__u32))

/*
 * BPFREC feature: a header then items, each 8-byte aligned.  An item's
 * fixed part may grow in later versions: readers take what they know of
 * it and find the variable part at fixed_len.
 */
#define PD_EXT_MAGIC		0x52465042	/* "BPFR" */
#define PD_EXT_VERSION		1

enum {
	PD_EXT_CAPTURE	= 1,
	PD_EXT_PROG	= 2,
	PD_EXT_MAP	= 3,
	PD_EXT_LINK	= 4,
	PD_EXT_BTF	= 5,
	PD_EXT_LOADER	= 6,
	PD_EXT_INSNS	= 7,
};

struct pd_ext_header {
	__u32 magic;
	__u32 version;
};

struct pd_ext_item {
	__u16 kind;
	__u16 fixed_len;
	__u32 len;			/* fixed and variable part */
};

/*
 * pd_origin, pd_capture, pd_map and pd_link hold no pointer and no
 * padding: their items are those structs as they are, and so may only
 * grow at their end.  The sizes pin the layout of the files written.
 */
_Static_assert(sizeof(struct pd_origin) == 40, "BPFREC origin layout");
_Static_assert(sizeof(struct pd_capture) == 40, "BPFREC capture layout");
_Static_assert(sizeof(struct pd_map) == 104, "BPFREC map item layout");
_Static_assert(sizeof(struct pd_link) == 192, "BPFREC link item layout");
_Static_assert(sizeof(struct pd_loader) == 592, "BPFREC loader item layout");

/*
 * Followed by nr_func_names times { u16 len; bytes }, then nr_meta times
 * { u16 len; key; u16 len; value } (without NULs).  nr_meta came later:
 * an item without it is shorter, and has none.
 */
struct pd_disk_prog {
	__u32 id;
	__u32 flags;
	__u32 type;
	__u32 jited_len;
	__u32 xlated_len;
	__u32 btf_id;
	__u8 tag[BPF_TAG_SIZE];
	char name[PD_NAME_LEN];
	__u64 load_time;
	struct pd_origin origin;
	__u32 nr_func_names;
	__u32 nr_lines;
	__u8 sha256[PD_SHA256_LEN];	/* with PD_F_SHA256 */
	__u32 nr_meta;
	__u32 reserved;
};

/*
 * Bytes @off to @off + @len of the @total bytes of program @id's xlated
 * instructions (record --keep-insns), made as the kernel dumps them: an
 * item of its own, after the program's, in pieces that fit a record.
 * Only in the data: the features leave them out, and readers skip them
 * but for script --dump.
 */
struct pd_disk_insns {
	__u32 id;
	__u32 total;
	__u32 off;
	__u32 len;
};

/* The BTF data itself goes to BPF_BTF, where perf expects it. */
struct pd_disk_btf {
	__u32 id;
	__u32 flags;
	__u32 kernel;
	__u32 size;
	char name[PD_BTF_NAME_LEN];
	struct pd_origin origin;
};

#define PD_ALIGN8(x)	(((x) + 7) & ~(__u64)7)

/* A growable byte buffer; on allocation failure it remembers -ENOMEM. */
struct pd_buf {
	char *p;
	size_t len;
	size_t cap;
	int err;
};

void pd_buf_put(struct pd_buf *b, const void *data, size_t len);
void pd_buf_zero(struct pd_buf *b, size_t len);
void pd_buf_u32(struct pd_buf *b, __u32 v);
void pd_buf_u64(struct pd_buf *b, __u64 v);
void pd_buf_align8(struct pd_buf *b);
void pd_buf_free(struct pd_buf *b);
/* perf's string: u32 length (NUL included, padded to 64), then bytes. */
void pd_buf_string(struct pd_buf *b, const char *s);

/*
 * The attr as stored in the file: PD_ATTR_SIZE bytes, size set, and no
 * flag bit perf 6.1 does not know (bpf_obj_event is cleared).
 */
void pd_attr_to_disk(const struct perf_event_attr *attr,
		     __u8 out[PD_ATTR_SIZE]);

/* A sample body (pd_sample_encode) or trailer (pd_sample_id_encode) into @b. */
int pd_sample_encode(const struct perf_event_attr *attr, const struct pd_sample *s,
		     struct pd_buf *b);
void pd_sample_id_encode(const struct perf_event_attr *attr, const struct pd_sample *s,
			 struct pd_buf *b);

/*
 * Which event a record belongs to, by the id its sample or trailer holds
 * (perf's scheme: IDENTIFIER is where every event has it; without it,
 * events of one sample_type have ID at the same place).
 */
struct pd_evindex {
	const struct perf_event_attr **attrs;
	size_t nr;
	struct hashmap ids;		/* id -> event index */
	bool all_identifier;		/* every event has IDENTIFIER */
	bool all_id_all;		/* every event has sample_id_all */
	bool one_type;			/* every event has the first's sample_type */
};

int pd_evindex_add(struct pd_evindex *x, const struct perf_event_attr *attr,
		   const __u64 *ids, size_t nr_ids);
/* The event with id @id: -1 for none; the only one when there is one. */
int pd_evindex_of_id(const struct pd_evindex *x, __u64 id);
/*
 * The event of record @rec (@rec->size bytes, checked by the caller):
 * -1 when its id names none, or when the events' layouts leave no place
 * to find an id.  The first event serves records that carry no id.
 */
int pd_evindex_of_record(const struct pd_evindex *x, const struct perf_event_header *rec);
void pd_evindex_free(struct pd_evindex *x);

/* What the VERSION feature says. */
/* HEADER_VERSION of a writer given none (the tests') */
#define PD_TOOL_VERSION		"bpfrec"

/* The events' clock and its reference times (HEADER_CLOCKID, CLOCK_DATA). */
struct pd_clock {
	bool valid;
	__u32 clockid;
	__u64 res_ns;
	__u64 tod_ns;			/* CLOCK_REALTIME ... */
	__u64 ref_ns;			/* ... and clockid, read together */
};

/* Feature encoders for the writer (features_write.c). */
struct pd_feat_input {
	struct pd_writer_config cfg;	/* the writer's copy */
	struct pd_clock clock;
	__u64 first_time;
	__u64 last_time;
};

/*
 * Encode feature @feat into @b; 0 if it has nothing to say (skipped).
 * The facts features are rebuilt from the data by facts_write.c; the
 * writer writes TRACING_DATA as it was given.
 */
int pd_feat_encode(int feat, const struct pd_feat_input *in,
		   struct pd_buf *b);

/*
 * perf's pipe mode (pipe_write.c): bytes written whole; the stream's
 * header and its events' attrs; whether a feature goes into the stream;
 * a feature as a HEADER_FEATURE record (0 when it has nothing to say or
 * is too big for a record).
 */
int pd_pipe_write(int fd, const void *buf, size_t len);
int pd_pipe_header(int out, const struct pd_event *events, size_t nr_events);
bool pd_pipe_feature(int feat);
int pd_pipe_put_feature(int out, int feat, const struct pd_feat_input *in, struct pd_buf *b);

/*
 * One entry of each facts feature.  A program's entry of BPF_PROG_INFO
 * keeps its btf_id: whether perf may use it is decided when the feature
 * is written (pd_prog_info_check_btf), once the BTF is known.
 */
void pd_encode_prog_info(const struct pd_prog *p, bool line_info, struct pd_buf *b,
			 struct pd_buf *data);
void pd_encode_btf_data(const struct pd_btf *bt, struct pd_buf *b);
void pd_encode_ext_prog(const struct pd_prog *p, struct pd_buf *b);
void pd_encode_ext_btf(const struct pd_btf *bt, struct pd_buf *b);
void pd_encode_ext_item(struct pd_buf *b, __u16 kind, const void *fixed, __u16 fixed_len,
			const struct pd_buf *var);
/*
 * perf names each sub-program from the BTF func_info, and dereferences
 * the BTF type it finds without a check: in the BPF_PROG_INFO entry
 * @entry (@len bytes), clear btf_id unless that lookup is safe in
 * @btf_data (NULL: perf will not find the BTF, so it is safe).
 */
void pd_prog_info_check_btf(__u8 *entry, size_t len, const void *btf_data, __u32 btf_len);

/* Output streamed to a file at increasing offsets, through a buffer. */
struct pd_out {
	int fd;
	__u64 pos;			/* file offset of buf's first byte */
	struct pd_buf buf;
	int err;
};

void pd_out_put(struct pd_out *o, const void *data, size_t len);
void pd_out_align8(struct pd_out *o);
__u64 pd_out_tell(const struct pd_out *o);
int pd_out_flush(struct pd_out *o);

/*
 * Where a fact log keeps its records: the data of a file being written.
 * The log reaches it only through these calls, so that it depends on no
 * writer; the writer owns its log and hands it them (writer.c).
 */
struct pd_fact_store {
	/* Append @entry as a PD_RECORD_FACTS record of feature @feat; its offset in *@off. */
	int (*append)(void *ctx, __u32 feat, const struct pd_buf *entry, __u64 *off);
	/* Read @len bytes at offset @off of the data into @dst. */
	int (*read)(void *ctx, __u64 off, void *dst, size_t len);
	void *ctx;
};

/*
 * The writer's record of the facts written (facts_write.c): where the
 * latest records of each object are, to read them back.
 */
struct pd_fact_log;

struct pd_fact_log *pd_fact_log_new(const struct pd_fact_store *store);
void pd_fact_log_free(struct pd_fact_log *l);
int pd_fact_log_prog(struct pd_fact_log *l, const struct pd_prog *p);
int pd_fact_log_map(struct pd_fact_log *l, const struct pd_map *m);
int pd_fact_log_link(struct pd_fact_log *l, const struct pd_link *k);
int pd_fact_log_btf(struct pd_fact_log *l, const struct pd_btf *b);
int pd_fact_log_capture(struct pd_fact_log *l, const struct pd_capture *c);
int pd_fact_log_loader(struct pd_fact_log *l, const struct pd_loader *d);
/* The facts of @id as written last (deep: the caller frees), -ENOENT without. */
int pd_fact_log_read(struct pd_fact_log *l, enum pd_kind kind, __u32 id, void *fact);
bool pd_fact_log_has(const struct pd_fact_log *l, enum pd_kind kind, __u32 id);
/* Stream feature @feat (BPF_PROG_INFO, BPF_BTF, BPFREC) to @o: 0 when it is empty. */
int pd_fact_log_feature(struct pd_fact_log *l, int feat, struct pd_out *o);

/*
 * Program @id's instructions item by item in the records of @buf from
 * @from to @to (prog_extra.c), for pd_reader_prog_insns().
 */
int pd_insns_scan(const __u8 *buf, __u64 from, __u64 to, __u32 id, void **insns, size_t *len);
/* One PD_RECORD_FACTS record of @entry, as the fact log's store appends them (prog_extra.c). */
int pd_writer_append_fact(struct pd_writer *w, __u32 feat, const struct pd_buf *entry,
			  __u64 *off);

/* A bounds-checked view of bytes being parsed. */
struct pd_cursor {
	const __u8 *p;
	size_t len;
	size_t pos;
	bool bad;			/* a read ran past the end */
};

bool pd_cur_get(struct pd_cursor *c, void *dst, size_t len);
__u32 pd_cur_u32(struct pd_cursor *c);
__u64 pd_cur_u64(struct pd_cursor *c);
/* @len bytes in place, or NULL (and c->bad) when they are not there. */
const __u8 *pd_cur_take(struct pd_cursor *c, size_t len);
/* perf's string, newly allocated; NULL (and c->bad) when malformed. */
char *pd_cur_string(struct pd_cursor *c);

/*
 * The places of the object facts in a file (facts_read.c): built at open
 * from the features, read back by id.  @fd (closed at free; -1 for none)
 * or else @buf is where lookups read the file.
 */
struct pd_fact_index;

struct pd_fact_index *pd_fact_index_new(int fd, const __u8 *buf);
/* Index BPF_PROG_INFO, BPF_BTF or BPFREC at @file_off, checking each entry. */
int pd_fact_index_feature(struct pd_fact_index *x, int feat, struct pd_cursor *c,
			  __u64 file_off);
/* Once every feature is in: sort by id, merge perf's and our entries. */
void pd_fact_index_finish(struct pd_fact_index *x);

/*
 * Give back the pages of the file mapping @map from *@given up to @upto,
 * once there is a chunk of them (1 MiB): what a reader has read needs not
 * stay resident.
 */
void pd_give_back(const void *map, __u64 *given, __u64 upto);
const void *pd_fact_index_find(struct pd_fact_index *x, enum pd_kind kind, __u32 id);
/*
 * Index the PD_RECORD_FACTS records of the data from @from to @to of
 * @buf: a recording that was not finalised has its facts only there.
 */
void pd_fact_index_scan(struct pd_fact_index *x, const __u8 *buf, __u64 from, __u64 to);
/*
 * Decode an object from its entries, perf's (BPF_PROG_INFO or BPF_BTF,
 * BTF data copied) and ours (a BPFREC item), either may be NULL.
 */
int pd_fact_decode(enum pd_kind kind, const __u8 *perf, size_t perf_len, const __u8 *ours,
		   size_t ours_len, void *fact);
bool pd_fact_index_next(struct pd_fact_index *x, enum pd_kind kind, struct pd_fact_iter *it,
			__u32 *id);
const struct pd_capture *pd_fact_index_capture(const struct pd_fact_index *x);
const struct pd_loader *pd_fact_index_loader(const struct pd_fact_index *x, __u32 index);
const struct pd_loader *pd_fact_index_loader_of(const struct pd_fact_index *x, __u32 tid,
						__u64 time);
void pd_fact_index_free(struct pd_fact_index *x);

/*
 * Decode feature @feat of @len bytes at @file_off (features_read.c) into
 * @info, or into the facts index @x.  Returns 0, or -EINVAL with a
 * one-line reason in @err.
 */
int pd_feat_decode(int feat, const __u8 *p, size_t len, __u64 file_off,
		   struct pd_file_info *info, struct pd_fact_index *x,
		   char *err, size_t errlen);
void pd_file_info_release(struct pd_file_info *info);

#endif /* BPFREC_PERF_DATA_FORMAT_H */
