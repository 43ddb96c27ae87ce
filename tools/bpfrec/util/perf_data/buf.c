// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces shared by the perf.data writer and reader: attr bit access,
 * perf's strings, the byte buffer records and features are
 * encoded into, and the bounds-checked cursor they are decoded with.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "util/perf_data/format.h"

/* The attr flags word follows read_format, at byte offset 40. */
#define PD_ATTR_FLAGS_OFFSET	40

void pd_attr_set_bpf_obj_event(struct perf_event_attr *attr, bool on)
{
	__u64 *flags = (__u64 *)((char *)attr + PD_ATTR_FLAGS_OFFSET);

	if (on)
		*flags |= 1ULL << PD_ATTR_BPF_OBJ_EVENT_BIT;
	else
		*flags &= ~(1ULL << PD_ATTR_BPF_OBJ_EVENT_BIT);
}

bool pd_attr_bpf_obj_event(const struct perf_event_attr *attr)
{
	const __u64 *flags;

	flags = (const __u64 *)((const char *)attr + PD_ATTR_FLAGS_OFFSET);
	return *flags & (1ULL << PD_ATTR_BPF_OBJ_EVENT_BIT);
}

static int pd_buf_grow(struct pd_buf *b, size_t len)
{
	size_t cap;
	char *p;

	if (b->err)
		return b->err;
	if (b->len + len <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + len)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void pd_buf_put(struct pd_buf *b, const void *data, size_t len)
{
	if (!len || pd_buf_grow(b, len))
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void pd_buf_zero(struct pd_buf *b, size_t len)
{
	if (!len || pd_buf_grow(b, len))
		return;
	memset(b->p + b->len, 0, len);
	b->len += len;
}

void pd_buf_u32(struct pd_buf *b, __u32 v)
{
	pd_buf_put(b, &v, sizeof(v));
}

void pd_buf_u64(struct pd_buf *b, __u64 v)
{
	pd_buf_put(b, &v, sizeof(v));
}

void pd_buf_align8(struct pd_buf *b)
{
	pd_buf_zero(b, PD_ALIGN8(b->len) - b->len);
}

void pd_buf_free(struct pd_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void pd_buf_string(struct pd_buf *b, const char *s)
{
	size_t len = strlen(s) + 1;
	size_t padded = (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	pd_buf_u32(b, padded);
	pd_buf_put(b, s, len);
	pd_buf_zero(b, padded - len);
}

void pd_attr_to_disk(const struct perf_event_attr *attr,
		     __u8 out[PD_ATTR_SIZE])
{
	size_t n = sizeof(*attr) < PD_ATTR_SIZE ? sizeof(*attr) : PD_ATTR_SIZE;
	__u32 size = PD_ATTR_SIZE;
	__u64 flags;

	memset(out, 0, PD_ATTR_SIZE);
	memcpy(out, attr, n);
	/* The uapi struct may be larger than the attr written to disk. */
	memcpy(out + offsetof(struct perf_event_attr, size), &size, sizeof(size));
	/*
	 * perf 6.1 warns "Reserved bits are set unexpectedly" on any flag
	 * above sigtrap, so bpf_obj_event is not stored in the attr: the
	 * BPFREC feature says it instead (PD_CAP_BPF_OBJ_EVENT).
	 */
	memcpy(&flags, out + PD_ATTR_FLAGS_OFFSET, sizeof(flags));
	flags &= (1ULL << PD_ATTR_BPF_OBJ_EVENT_BIT) - 1;
	memcpy(out + PD_ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
}

#define PD_RELEASE_CHUNK	(1 << 20)

void pd_give_back(const void *map, __u64 *given, __u64 upto)
{
	size_t page = sysconf(_SC_PAGESIZE);

	upto = upto / page * page;
	if (upto < *given + PD_RELEASE_CHUNK)
		return;
	madvise((char *)map + *given, upto - *given, MADV_DONTNEED);
	*given = upto;
}

bool pd_cur_get(struct pd_cursor *c, void *dst, size_t len)
{
	if (c->bad || len > c->len - c->pos) {
		c->bad = true;
		memset(dst, 0, len);
		return false;
	}
	memcpy(dst, c->p + c->pos, len);
	c->pos += len;
	return true;
}

__u32 pd_cur_u32(struct pd_cursor *c)
{
	__u32 v;

	pd_cur_get(c, &v, sizeof(v));
	return v;
}

__u64 pd_cur_u64(struct pd_cursor *c)
{
	__u64 v;

	pd_cur_get(c, &v, sizeof(v));
	return v;
}

const __u8 *pd_cur_take(struct pd_cursor *c, size_t len)
{
	const __u8 *p;

	if (c->bad || len > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += len;
	return p;
}

char *pd_cur_string(struct pd_cursor *c)
{
	__u32 len = pd_cur_u32(c);
	const __u8 *p = pd_cur_take(c, len);

	if (!p)
		return NULL;
	return strndup((const char *)p, len);
}

/* Streamed output writes in pieces of about this size. */
#define PD_OUT_BATCH	(256 << 10)

static void out_write(struct pd_out *o, const char *p, size_t len)
{
	ssize_t n;

	while (!o->err && len) {
		n = pwrite(o->fd, p, len, o->pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= n;
		o->pos += n;
	}
}

int pd_out_flush(struct pd_out *o)
{
	if (!o->err && o->buf.err)
		o->err = o->buf.err;
	out_write(o, o->buf.p, o->buf.len);
	o->buf.len = 0;
	return o->err;
}

void pd_out_put(struct pd_out *o, const void *data, size_t len)
{
	/* a large piece (the tracing data's kallsyms) goes out without a copy */
	if (len >= PD_OUT_BATCH) {
		pd_out_flush(o);
		out_write(o, data, len);
		return;
	}
	pd_buf_put(&o->buf, data, len);
	if (o->buf.len >= PD_OUT_BATCH)
		pd_out_flush(o);
}

__u64 pd_out_tell(const struct pd_out *o)
{
	return o->pos + o->buf.len;
}

void pd_out_align8(struct pd_out *o)
{
	static const __u8 zeros[8];
	__u64 at = pd_out_tell(o);

	pd_out_put(o, zeros, PD_ALIGN8(at) - at);
}
