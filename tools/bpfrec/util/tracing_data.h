/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HEADER_TRACING_DATA as perf record writes it (version 0.6): the ring
 * buffer headers, the formats of the recorded tracepoints grouped by
 * system, /proc/kallsyms, printk formats, saved cmdlines.  bpfrec writes
 * it for every file of samples (-e, --off-cpu), with or without
 * tracepoints: its kallsyms are those of record time, by which kernel
 * addresses are symbolised later, on any machine (util/trace_fields.h
 * reads it back).
 */
#ifndef BPFREC_TRACING_DATA_H
#define BPFREC_TRACING_DATA_H

#include <stddef.h>

struct evlist;
struct kallsyms_copy;
struct pd_writer;

/*
 * The blob for the tracepoints named in @tps ("SUBSYS:NAME" each), in a
 * buffer to free().  Returns 0, or a negative errno with one line printed.
 */
int tracing_data_build(const char *const *tps, int nr, const struct kallsyms_copy *k,
		       void **data, size_t *len);
/*
 * The tracing data of the tracepoints of @el with the kallsyms of @k,
 * given to @w.  0 or a negative errno.
 */
int tracing_data_store(const struct evlist *el, const struct kallsyms_copy *k,
		       struct pd_writer *w);

#endif /* BPFREC_TRACING_DATA_H */
