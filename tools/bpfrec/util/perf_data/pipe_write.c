// SPDX-License-Identifier: GPL-2.0
/*
 * A finished perf.data turned into perf's pipe mode, the stream of
 * `perf record -o -`: the 16-byte header, a HEADER_ATTR record per event
 * (its attr and ids), a HEADER_FEATURE record per feature perf knows,
 * then the data section as it is.  The objects' facts go with the data
 * (PD_RECORD_FACTS records), where the reader of a pipe finds them.
 *
 * Left out: the features perf's pipe reader would misread or refuse (its
 * tracing data, which pipe mode carries otherwise; BPF_PROG_INFO and
 * BPF_BTF, whose facts the data holds; our BPFREC feature), and features
 * or attrs too big for one record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/perf_data/format.h"

/* A record's size is a u16, its header included. */
#define MAX_RECORD	0xfff8

static int write_all(int fd, const void *buf, size_t len)
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

static int read_at(int fd, void *buf, size_t len, __u64 off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
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
	err = write_all(out, &h, sizeof(h));
	if (!err)
		err = write_all(out, a, alen);
	if (!err && blen)
		err = write_all(out, b, blen);
	if (!err)
		err = write_all(out, zero, size - sizeof(h) - alen - blen);
	return err;
}

static int attrs(int in, int out, const struct pd_file_header *h)
{
	size_t attr_len = h->attr_size - sizeof(struct pd_file_section), i, nr;
	struct pd_file_section ids;
	__u8 *attr = malloc(attr_len), *v = NULL;
	int err = attr ? 0 : -ENOMEM;

	nr = h->attr_size ? h->attrs.size / h->attr_size : 0;
	for (i = 0; !err && i < nr; i++) {
		err = read_at(in, attr, attr_len, h->attrs.offset + i * h->attr_size);
		if (!err)
			err = read_at(in, &ids, sizeof(ids), h->attrs.offset + i * h->attr_size + attr_len);
		if (!err && ids.size > MAX_RECORD)
			err = -E2BIG;
		if (!err) {
			free(v);
			v = malloc(ids.size ? ids.size : 1);
			err = v ? read_at(in, v, ids.size, ids.offset) : -ENOMEM;
		}
		if (!err)
			err = put_record(out, PD_RECORD_HEADER_ATTR, attr, attr_len, v, ids.size);
	}
	free(attr);
	free(v);
	return err;
}

/* The features perf's pipe reader takes from HEADER_FEATURE records. */
static bool piped(int feat)
{
	return feat != PD_HEADER_TRACING_DATA && feat != PD_HEADER_BPF_PROG_INFO &&
	       feat != PD_HEADER_BPF_BTF && feat < PD_FEAT_BPFREC;
}

static int features(int in, int out, const struct pd_file_header *h)
{
	__u64 table = h->data.offset + h->data.size, feat64;
	struct pd_file_section s;
	size_t i = 0;
	__u8 *buf;
	int feat, err = 0;

	for (feat = 0; !err && feat < PD_FEAT_BITS; feat++) {
		if (!(h->features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		err = read_at(in, &s, sizeof(s), table + i++ * sizeof(s));
		if (err || !piped(feat) || s.size > MAX_RECORD)
			continue;
		buf = malloc(s.size ? s.size : 1);
		if (!buf)
			return -ENOMEM;
		err = read_at(in, buf, s.size, s.offset);
		feat64 = feat;
		if (!err)
			err = put_record(out, PD_RECORD_HEADER_FEATURE, &feat64, sizeof(feat64), buf,
					 s.size);
		free(buf);
	}
	return err;
}

static int data(int in, int out, const struct pd_file_header *h)
{
	static __u8 buf[1 << 16];
	__u64 pos = h->data.offset, end = h->data.offset + h->data.size;
	size_t n;
	int err = 0;

	while (!err && pos < end) {
		n = end - pos < sizeof(buf) ? end - pos : sizeof(buf);
		err = read_at(in, buf, n, pos);
		if (!err)
			err = write_all(out, buf, n);
		pos += n;
	}
	return err;
}

int pd_file_to_pipe(const char *path, int out)
{
	const __u64 head[2] = { PD_MAGIC, PD_PIPE_HEADER_SIZE };
	struct pd_file_header h;
	int in = open(path, O_RDONLY | O_CLOEXEC), err;

	if (in < 0)
		return -errno;
	err = read_at(in, &h, sizeof(h), 0);
	if (!err && (h.magic != PD_MAGIC || h.size != sizeof(h) ||
		     h.attr_size <= sizeof(struct pd_file_section)))
		err = -EINVAL;
	if (!err)
		err = write_all(out, head, sizeof(head));
	if (!err)
		err = attrs(in, out, &h);
	if (!err)
		err = features(in, out, &h);
	if (!err)
		err = data(in, out, &h);
	close(in);
	return err;
}
