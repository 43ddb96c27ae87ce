// SPDX-License-Identifier: GPL-2.0
/*
 * perf's pipe mode, the stream of `perf record -o -`, written live: the
 * 16-byte header, a HEADER_ATTR record per event (its attr and ids) and
 * a HEADER_FEATURE record per feature known at the start, then the data
 * as the writer flushes it (writer.c), the objects' facts with it
 * (PD_RECORD_FACTS records, where the reader of a pipe finds them), and
 * at the end the features known only then (the samples' time span).
 *
 * Left out: the features perf's pipe reader would misread or refuse (its
 * tracing data, which pipe mode carries otherwise; BPF_PROG_INFO and
 * BPF_BTF, whose facts the data holds; our BPFREC feature), and features
 * or attrs too big for one record.
 */
#include <errno.h>
#include <unistd.h>
#include "util/perf_data/format.h"

/* A record's size is a u16, its header included. */
#define MAX_RECORD	0xfff8

int pd_pipe_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* One record of @type: the header, then @a and @b, padded to 8 bytes. */
static int put_record(int out, __u32 type, const void *a, size_t alen, const void *b,
		      size_t blen)
{
	size_t size = (sizeof(struct perf_event_header) + alen + blen + 7) & ~7UL;
	struct perf_event_header h = { .type = type, .size = size };
	static const __u8 zero[8];
	int err;

	if (size > MAX_RECORD)
		return -E2BIG;
	err = pd_pipe_write(out, &h, sizeof(h));
	if (!err)
		err = pd_pipe_write(out, a, alen);
	if (!err && blen)
		err = pd_pipe_write(out, b, blen);
	if (!err)
		err = pd_pipe_write(out, zero, size - sizeof(h) - alen - blen);
	return err;
}

int pd_pipe_header(int out, const struct pd_event *events, size_t nr_events)
{
	const __u64 head[2] = { PD_MAGIC, PD_PIPE_HEADER_SIZE };
	__u8 attr[PD_ATTR_SIZE];
	size_t i;
	int err;

	err = pd_pipe_write(out, head, sizeof(head));
	for (i = 0; !err && i < nr_events; i++) {
		pd_attr_to_disk(events[i].attr, attr);
		err = put_record(out, PD_RECORD_HEADER_ATTR, attr, sizeof(attr), events[i].ids,
				 events[i].nr_ids * sizeof(__u64));
	}
	return err;
}

/* The features perf's pipe reader takes from HEADER_FEATURE records. */
bool pd_pipe_feature(int feat)
{
	return feat != PD_HEADER_TRACING_DATA && feat != PD_HEADER_BPF_PROG_INFO &&
	       feat != PD_HEADER_BPF_BTF && feat < PD_FEAT_BPFREC;
}

int pd_pipe_put_feature(int out, int feat, const struct pd_feat_input *in, struct pd_buf *b)
{
	__u64 feat64 = feat;
	int ret;

	b->len = 0;
	ret = pd_feat_encode(feat, in, b);
	ret = b->err ? b->err : ret;
	if (ret <= 0)
		return ret;
	ret = put_record(out, PD_RECORD_HEADER_FEATURE, &feat64, sizeof(feat64), b->p, b->len);
	/* a feature too big for a record is left out, as said above */
	return ret == -E2BIG ? 0 : ret;
}
