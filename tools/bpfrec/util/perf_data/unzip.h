/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records PERF_RECORD_COMPRESSED holds (unzip.c): one zstd stream for
 * the whole file, fed a compressed record at a time.  Private to
 * util/perf_data/.
 */
#ifndef BPFREC_PERF_DATA_UNZIP_H
#define BPFREC_PERF_DATA_UNZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

/* perf's record of zstd-compressed records (perf record -z) */
#define PD_RECORD_COMPRESSED	81

struct pd_unzip;

struct pd_unzip *pd_unzip_new(void);
/*
 * Decompress the body of a COMPRESSED record (@len bytes) after what is
 * left of the previous ones.  0, or a negative errno and a reason in @why.
 * Records handed out before are gone after this call.
 */
int pd_unzip_feed(struct pd_unzip *u, const void *data, size_t len, const char **why);
/*
 * The next complete record decompressed (8-byte aligned, valid until the
 * next feed): 1, 0 when the rest is incomplete (or nothing is left), or
 * -EINVAL with @why on a malformed size.
 */
int pd_unzip_next(struct pd_unzip *u, const struct perf_event_header **rec, const char **why);
/* Bytes of an incomplete record wait: the file ended in the middle of one. */
bool pd_unzip_pending(const struct pd_unzip *u);
void pd_unzip_free(struct pd_unzip *u);

#endif /* BPFREC_PERF_DATA_UNZIP_H */
