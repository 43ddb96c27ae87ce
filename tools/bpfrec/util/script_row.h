/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of `script`: one per record shown, built from a record of the
 * timeline and the facts of its file, shared by the text layout
 * (util/script_layout.h) and the JSON lines (util/script_json.h).  A
 * row's strings point into the row, the timeline's current event, the
 * file's facts or the rows' context: they live until the next row.
 */
#ifndef BPFREC_SCRIPT_ROW_H
#define BPFREC_SCRIPT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/intern.h"
#include "util/output_decode.h"
#include "util/sample_view.h"
#include "util/timeline.h"
#include "util/user_syms.h"

/*
 * What a row is about, for --kinds: a BPF object of a kind (enum
 * pd_kind), or one of the other records, numbered after the kinds.
 */
enum { SR_KSYMBOL = PD_NR_KINDS, SR_LOST, SR_OUTPUT, SR_NR_KINDS };

/* The name of kind @k: prog, map, link, btf, ksymbol, lost, output. */
const char *script_row_kind_name(int k);
/* The kind of the row of @e, SR_NR_KINDS when it has none. */
int script_row_kind(const struct tl_event *e);

/* SR_KV_META: the row's metadata (meta_key[], meta_value[]), as "metadata" */
enum sr_kv_kind { SR_KV_U64, SR_KV_HEX, SR_KV_STR, SR_KV_FLAG, SR_KV_META };

/* One detail of a row: key=number, key=0xhex, key=string, or a bare flag. */
struct sr_kv {
	const char *key;
	enum sr_kv_kind kind;
	__u64 num;
	const char *str;
};

/* a decoded record has a detail per field */
#define SR_MAX_DETAILS	32

/* One output line, shared by the text and the JSON rendering. */
struct script_row {
	const struct tl_event *e;
	const char *comm;
	bool self;			/* about one of the recorder's objects */
	const char *event;
	bool has_id;
	__u32 id;
	const char *name;
	const char *type;
	char tag[2 * BPF_TAG_SIZE + 1];
	struct sr_kv kv[SR_MAX_DETAILS];
	int nr_kv;
	char event_buf[32];
	char type_buf[160];
	char sha256[2 * PD_SHA256_LEN + 1];
	char target_buf[PD_TARGET_LEN];	/* a link record's own target, in words */
	/* a program's bpf_metadata_* variables: names and values as perf prints them */
	__u32 nr_meta;
	char meta_key[PD_META_MAX][PD_META_KEY_LEN];
	char meta_value[PD_META_MAX][PD_META_VALUE_LEN];
	char scratch[2][1024];		/* joined lists of ids and names */
	char out[4096];			/* a decoded record's fields */
};

/*
 * What building rows needs besides the record: the names of the samples'
 * addresses (kernel and BPF images, the processes' mappings), for one
 * reading of the file; the decoders of the user's objects' output, by
 * event, kept across readings (the file is read twice, their BTF parsed
 * once).
 */
struct script_rows {
	struct sample_view view;
	struct intern user_paths;
	struct user_syms users;
	char *const *decode;		/* --decode MAP=STRUCT */
	int nr_decode;
	struct output_decoder **dec;
	__u32 *map_id;
	bool *tried;
	size_t nr;
};

/* @rs empty, with the structs --decode names (@nr_decode of "MAP=STRUCT"). */
void script_rows_init(struct script_rows *rs, char *const *decode, int nr_decode);
/* Ready for a reading of @tl (kernel names from @kallsyms, or the file's); a warning in @warn. */
void script_rows_open(struct script_rows *rs, struct timeline *tl, const char *kallsyms,
		      char *warn, size_t len);
/* The end of a reading. */
void script_rows_close(struct script_rows *rs);
/* The end of the last reading: the decoders freed. */
void script_rows_free(struct script_rows *rs);

/* Whether @e has a row: samples of the sampled events and the user's objects' output only. */
bool script_row_shown(const struct timeline *tl, const struct tl_event *e);
/* The row of @e, read from @tl's file. */
void script_row_build(struct script_rows *rs, struct script_row *r, const struct timeline *tl,
		      const struct tl_event *e);

/* The row's comm, name and type as the text shows them: "-" when unknown. */
const char *script_row_comm(const struct script_row *r);
const char *script_row_name(const struct script_row *r);
const char *script_row_type(const struct script_row *r);

/* One frame of a sample's stack, as shown. */
struct script_frame {
	__u64 addr;
	const char *sym;		/* NULL: nothing names the address */
	__u64 off;			/* into sym */
	const char *dso;		/* a user frame's file (its path), else NULL */
	const char *where;		/* user, kernel or bpf, when nothing names it */
};

/*
 * The frames of a sample's stack, outermost last, without the context
 * markers and (off CPU) the profiler's own leading frames.
 */
struct script_frames {
	__u64 i;
	bool lead;
};

void script_frames_start(struct script_frames *it, const struct script_row *r);
/* The next frame into @f; false after the last. */
bool script_frames_next(struct script_rows *rs, const struct script_row *r,
			struct script_frames *it, struct script_frame *f);

#endif /* BPFREC_SCRIPT_ROW_H */
