/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Side-band records a stock kernel made too long (oversized.c): their
 * true size, and a copy of them with it.
 */
#ifndef BPFREC_PERF_DATA_OVERSIZED_H
#define BPFREC_PERF_DATA_OVERSIZED_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

/* Room for any record the repair shortens: a KSYMBOL's name is at most 512 bytes. */
#define PD_REPAIR_MAX	1024

/*
 * The size @rec has under @attr: smaller than rec->size only for a KSYMBOL
 * or BPF_EVENT record that a stock kernel oversized.
 */
size_t pd_true_size(const struct perf_event_attr *attr, const struct perf_event_header *rec);
/*
 * @rec with its true size under @attr into @buf (PD_REPAIR_MAX bytes);
 * false when @rec is not oversized (or too long for @buf).
 */
bool pd_repair(const struct perf_event_attr *attr, const struct perf_event_header *rec,
	       void *buf);

struct pd_reader;
/* The records a reader gave at their true size so far. */
__u64 pd_reader_repaired(const struct pd_reader *r);

#endif /* BPFREC_PERF_DATA_OVERSIZED_H */
