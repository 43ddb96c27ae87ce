// SPDX-License-Identifier: GPL-2.0
/*
 * The records of PERF_RECORD_COMPRESSED (perf record -z).
 *
 * perf compresses what it drains from a ring into one zstd stream for the
 * whole session, flushed (not ended: a frame lasts the whole file) after
 * each push of ring data, and cuts the compressed bytes into records of
 * at most 64 KiB.  A push stops where the ring wraps, so a record
 * decompressed may end in the middle of a perf record that the next one
 * completes.  So one
 * decompression context lives as long as the reader, and the bytes of an
 * incomplete record wait for the next COMPRESSED record.
 *
 * What one COMPRESSED record may give is bounded (PD_UNZIP_MAX): perf's
 * records hold at most a ring's drain, and a file crafted to expand
 * without end is refused rather than allowed to exhaust memory.  So is
 * what they give in all, past 1 GiB, beyond PD_UNZIP_RATIO times their
 * compressed bytes (zstd gives perf's records 5 to 20 times): a small
 * file must not take minutes to read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "util/perf_data/unzip.h"

/* Decompressed bytes waiting at most: far above any ring perf drains at once. */
#define PD_UNZIP_MAX	(64U << 20)
/* What all of them may give: 1 GiB, or this many times their bytes. */
#define PD_UNZIP_TOTAL	(1ULL << 30)
#define PD_UNZIP_RATIO	256

struct pd_unzip {
	ZSTD_DStream *zs;
	__u8 *buf;			/* 8-byte aligned (malloc): records read in place */
	size_t len, cap;
	size_t pos;			/* next record */
	__u64 in, out;			/* compressed and decompressed bytes so far */
};

struct pd_unzip *pd_unzip_new(void)
{
	struct pd_unzip *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->zs = ZSTD_createDStream();
	if (!u->zs || ZSTD_isError(ZSTD_initDStream(u->zs))) {
		pd_unzip_free(u);
		return NULL;
	}
	return u;
}

/* What was handed out is gone: the incomplete tail moves to the front. */
static void compact(struct pd_unzip *u)
{
	if (!u->pos)
		return;
	memmove(u->buf, u->buf + u->pos, u->len - u->pos);
	u->len -= u->pos;
	u->pos = 0;
}

static int grow(struct pd_unzip *u)
{
	size_t cap = u->cap ? 2 * u->cap : 256 << 10;
	__u8 *buf;

	if (u->cap >= PD_UNZIP_MAX)
		return -E2BIG;
	buf = realloc(u->buf, cap);
	if (!buf)
		return -ENOMEM;
	u->buf = buf;
	u->cap = cap;
	return 0;
}

int pd_unzip_feed(struct pd_unzip *u, const void *data, size_t len, const char **why)
{
	ZSTD_inBuffer in = { data, len, 0 };
	ZSTD_outBuffer out;
	size_t ret;
	int err;

	compact(u);
	u->in += len;
	for (;;) {
		if (u->len == u->cap) {
			err = grow(u);
			if (err) {
				*why = err == -ENOMEM ? "out of memory" :
				       "compressed records expand beyond 64 MiB";
				return err;
			}
		}
		out = (ZSTD_outBuffer){ u->buf, u->cap, u->len };
		ret = ZSTD_decompressStream(u->zs, &out, &in);
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -EINVAL;
		}
		u->out += out.pos - u->len;
		u->len = out.pos;
		if (u->out > PD_UNZIP_TOTAL && u->out / PD_UNZIP_RATIO > u->in) {
			*why = "compressed records expand more than 256 times past 1 GiB";
			return -E2BIG;
		}
		/* done once the input is used and zstd had room to give it all */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

int pd_unzip_next(struct pd_unzip *u, const struct perf_event_header **rec, const char **why)
{
	const struct perf_event_header *h;

	if (u->len - u->pos < sizeof(*h))
		return 0;
	h = (const struct perf_event_header *)(u->buf + u->pos);
	if (h->size < sizeof(*h) || h->size % 8) {
		*why = "decompressed record size not a multiple of 8";
		return -EINVAL;
	}
	if (h->size > u->len - u->pos)
		return 0;
	u->pos += h->size;
	*rec = h;
	return 1;
}

bool pd_unzip_pending(const struct pd_unzip *u)
{
	return u && u->pos < u->len;
}

void pd_unzip_free(struct pd_unzip *u)
{
	if (!u)
		return;
	ZSTD_freeDStream(u->zs);
	free(u->buf);
	free(u);
}
