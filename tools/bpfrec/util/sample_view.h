/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a reader needs to show samples: which events of a file are
 * sampled, the fields of tracepoint samples, and names for the addresses
 * of callchains (kernel ones through the kallsyms of record time, BPF
 * ones through the KSYMBOL records read so far, of the images alive).
 */
#ifndef BPFREC_SAMPLE_VIEW_H
#define BPFREC_SAMPLE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "util/perf_data/perf_data.h"
#include "util/bpf_images.h"
#include "util/ksyms.h"
#include "util/trace_fields.h"

/* The name perf gives the off-CPU event: its PERIOD is the time off CPU in ns. */
#define SV_OFFCPU_EVENT		"offcpu-time"

enum sv_kind {
	SV_NONE,		/* not sampled: the side-band, the objects' output */
	SV_SAMPLE,		/* software or hardware event */
	SV_TRACEPOINT,
	SV_OFFCPU,
};

enum sv_where { SV_USER, SV_KERNEL, SV_BPF };

struct sample_view {
	struct tep_handle *tep;		/* NULL: no (readable) tracing data */
	struct bpf_images images;	/* the BPF images alive at the current record */
	/*
	 * This machine's kallsyms, for a file that kept none (perf's)
	 * recorded here, as report uses them: dropped when the file's
	 * kernel was elsewhere (another boot's _text).
	 */
	struct ksyms live;
	bool have_live;
};

/*
 * Its tracing data parsed.  A malformed one is no error: its tracepoints
 * are then shown without fields, and one line is written to @warn.
 * @kallsyms (or NULL) names a copy of the recording machine's kallsyms,
 * for a file that kept none.
 */
int sample_view_open(struct sample_view *v, struct pd_reader *r, const char *kallsyms,
		     char *warn, size_t len);
void sample_view_free(struct sample_view *v);

enum sv_kind sample_view_kind(const struct pd_event_info *ev);

/*
 * A KSYMBOL record read, in time order: a BPF image registered (a newer one
 * at the same place wins) or unregistered.
 */
int sample_view_ksymbol(struct sample_view *v, const struct pd_ksymbol *k);
enum sv_where sample_view_where(const struct sample_view *v, __u64 addr);
/* The file's kernel _text (its kernel MMAP): this machine's kallsyms must agree. */
void sample_view_kernel_text(struct sample_view *v, __u64 text);
/* The symbol holding @addr and the offset into it; NULL when unknown. */
const char *sample_view_sym(const struct sample_view *v, __u64 addr, __u64 *off);

#endif /* BPFREC_SAMPLE_VIEW_H */
