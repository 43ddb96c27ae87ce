// SPDX-License-Identifier: GPL-2.0
/*
 * Building perf's tracing data.  The layout is perf's trace-event-info
 * (read by its trace-event-read and by util/trace_fields.c): a magic and
 * version string, endianness, sizeof(long), the page size, then files of
 * tracefs and /proc each preceded by its size (u64 for the header and
 * format files and the saved cmdlines, u32 for kallsyms and printk
 * formats).  tracefs and /proc files have no size before they are read:
 * each is read whole into the buffer, its size patched in after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "util/debug.h"
#include "util/evlist.h"
#include "util/kallsyms_copy.h"
#include "util/tracefs.h"
#include "util/perf_data/perf_data.h"
#include "util/tracing_data.h"

struct blob {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct blob *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* File @path preceded by its size in @size_bytes (4 or 8); size 0 when absent. */
static void put_file(struct blob *b, const char *path, size_t size_bytes)
{
	size_t at = b->len, size = 0;
	__u64 zero = 0;
	char buf[65536];
	ssize_t n;
	int fd;

	put(b, &zero, size_bytes);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		put(b, buf, n);
		size += n;
	}
	if (n < 0 && !b->err)
		b->err = -errno;
	close(fd);
	if (b->err)
		return;
	if (size_bytes == 4) {
		__u32 s32 = size;

		memcpy(b->p + at, &s32, 4);
	} else {
		__u64 s64 = size;

		memcpy(b->p + at, &s64, 8);
	}
}

static void put_u32(struct blob *b, __u32 v)
{
	put(b, &v, sizeof(v));
}

static size_t sys_len(const char *tp)
{
	return strchr(tp, ':') - tp;
}

/* The systems in order of first appearance, each with its events. */
static void put_events(struct blob *b, const char *dir, const char *const *tps, int nr)
{
	char path[512];
	__u32 nr_sys = 0, count;
	int i, j, k;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < i && strncmp(tps[j], tps[i], sys_len(tps[i]) + 1); j++)
			;
		nr_sys += j == i;
	}
	put_u32(b, nr_sys);
	for (i = 0; i < nr; i++) {
		size_t len = sys_len(tps[i]);

		for (j = 0; j < i && strncmp(tps[j], tps[i], len + 1); j++)
			;
		if (j < i)
			continue;
		put(b, tps[i], len);
		put(b, "", 1);
		for (count = 0, j = i; j < nr; j++)
			count += !strncmp(tps[j], tps[i], len + 1);
		put_u32(b, count);
		for (j = i; j < nr; j++) {
			if (strncmp(tps[j], tps[i], len + 1))
				continue;
			snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", dir, (int)len,
				 tps[j], tps[j] + len + 1);
			k = b->len;
			put_file(b, path, 8);
			/* the event was found when its id was read: a format must be there */
			if (!b->err && b->len == (size_t)k + 8)
				b->err = -ENOENT;
		}
	}
}

int tracing_data_build(const char *const *tps, int nr, const struct kallsyms_copy *k,
		       void **data, size_t *len)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *dir = tracefs_dir();
	struct blob b = {};
	char path[512];
	__u8 endian = 0, long_size = sizeof(long);
	__u64 none = 0;

	if (!dir)
		return -ENOENT;
	/* room for the kallsyms from the start: growing would copy megabytes */
	b.cap = k->len + (1 << 16);
	b.p = malloc(b.cap);
	if (!b.p)
		return -ENOMEM;
	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	/* little-endian: the only one built for */
	put(&b, &endian, 1);
	put(&b, &long_size, 1);
	put_u32(&b, getpagesize());
	put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	put_file(&b, path, 8);
	put(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	put_file(&b, path, 8);
	/* ftrace's own events: none recorded */
	put_u32(&b, 0);
	put_events(&b, dir, tps, nr);
	put_u32(&b, k->len);
	if (k->len)
		put(&b, k->text, k->len);
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	put_file(&b, path, 4);
	/* saved cmdlines: the file's COMM records name the tasks */
	put(&b, &none, 8);
	if (b.err) {
		errmsg_set(b.err, "reading the tracepoint formats and kallsyms: %s", strerror(-b.err));
		free(b.p);
		return b.err;
	}
	*data = b.p;
	*len = b.len;
	return 0;
}

int tracing_data_store(const struct evlist *el, const struct kallsyms_copy *k,
		       struct pd_writer *w)
{
	const char **tps;
	size_t len;
	void *data;
	int e, nr = 0, err;

	tps = calloc(el->nr_ev, sizeof(*tps));
	if (!tps)
		return -ENOMEM;
	for (e = 0; e < el->nr_ev; e++)
		if (el->ev[e]->attr.type == PERF_TYPE_TRACEPOINT)
			tps[nr++] = el->ev[e]->name;
	err = tracing_data_build(tps, nr, k, &data, &len);
	free(tps);
	if (err)
		return err;
	pd_writer_give_tracing_data(w, data, len);
	return 0;
}
