// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: the file header, attrs and features are decoded at
 * open; records are decoded one at a time, in file order.  The whole file
 * is mapped and every access is bounds-checked, so a malformed file gives
 * an error and a file cut short gives its complete records and a warning.
 *
 * Pipe mode (perf record -o -) has no attrs section and no features: they
 * come as records of the stream (HEADER_ATTR, HEADER_FEATURE), read at
 * open like the sections of a file.  Stdin (-) that is not a regular file
 * is first kept in memory, so a pipe is read like a file.  The records
 * of COMPRESSED (perf record -z) are given as if they were in the file.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "util/perf_data/format.h"
#include "util/perf_data/oversized.h"
#include "util/perf_data/unzip.h"

#define PD_MSG_LEN	256

struct pd_reader {
	const __u8 *buf;
	size_t len;
	void *map;			/* mapping to undo at close, if any */
	void *copy;			/* aligned copy of an unaligned buffer */

	struct pd_file_info info;
	struct pd_fact_index *facts;
	struct pd_evindex index;

	__u64 pos;			/* next record */
	__u64 released;			/* file bytes given back (release_read) */
	__u64 end;			/* end of the data to read */
	bool cut;			/* end is where the file stops */
	bool failed;
	struct pd_unzip *unzip;		/* the records of COMPRESSED, once met */
	__u64 unzip_offset;		/* the COMPRESSED record they came from */
	__u64 aligned[0x10000 / 8];	/* the record read, copied out of the file */
	__u64 repaired;			/* oversized records given at their true size */
	__u64 fixed[PD_REPAIR_MAX / 8];	/* the last of them */

	char err[PD_MSG_LEN];
	char warn[PD_MSG_LEN];
	char str[0x10000];		/* strings of the current record */
};

static void say(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, PD_MSG_LEN, fmt, ap);
	va_end(ap);
}

static bool in_file(const struct pd_reader *r, __u64 off, __u64 size)
{
	return off <= r->len && size <= r->len - off;
}

static int read_attrs(struct pd_reader *r, const struct pd_file_header *h)
{
	size_t i, nr, attr_bytes;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct pd_file_section) ||
	    h->attr_size > 4096) {
		say(r->err, "unsupported attr size %llu",
		    (unsigned long long)h->attr_size);
		return -EINVAL;
	}
	if (!h->attrs.size || h->attrs.size % h->attr_size ||
	    !in_file(r, h->attrs.offset, h->attrs.size)) {
		say(r->err, "malformed attr section (offset %llu, size %llu)",
		    (unsigned long long)h->attrs.offset,
		    (unsigned long long)h->attrs.size);
		return -EINVAL;
	}
	nr = h->attrs.size / h->attr_size;
	attr_bytes = h->attr_size - sizeof(struct pd_file_section);
	r->info.events = calloc(nr, sizeof(*r->info.events));
	if (!r->info.events) {
		say(r->err, "out of memory");
		return -ENOMEM;
	}
	r->info.nr_events = nr;
	for (i = 0; i < nr; i++) {
		const __u8 *p = r->buf + h->attrs.offset + i * h->attr_size;
		struct pd_event_info *ev = &r->info.events[i];
		struct pd_file_section ids;

		/* an attr of a later ABI: what this build knows of it */
		memcpy(&ev->attr, p, attr_bytes < sizeof(ev->attr) ? attr_bytes
								    : sizeof(ev->attr));
		memcpy(&ids, p + attr_bytes, sizeof(ids));
		if (ids.size % 8 || !in_file(r, ids.offset, ids.size)) {
			say(r->err, "malformed ids of attr %zu", i);
			return -EINVAL;
		}
		ev->nr_ids = ids.size / 8;
		ev->ids = malloc(ids.size ? ids.size : 1);
		if (ev->ids)
			memcpy(ev->ids, r->buf + ids.offset, ids.size);
		if (!ev->ids || pd_evindex_add(&r->index, &ev->attr, ev->ids, ev->nr_ids)) {
			say(r->err, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Where the records end.  perf and bpfrec leave data.size 0 until they
 * finish or flush, so a recorder killed early leaves 0: then read to the
 * end of the file and stop at the last complete record.
 */
static int data_bounds(struct pd_reader *r, const struct pd_file_header *h)
{
	__u64 off = h->data.offset, size = h->data.size;

	/* records are 8-byte aligned, so are the arrays of their samples */
	if (off < sizeof(*h) || off > r->len || off % 8) {
		say(r->err, "malformed data section offset %llu",
		    (unsigned long long)off);
		return -EINVAL;
	}
	if (size > ~0ULL - off) {
		say(r->err, "malformed data section size %llu",
		    (unsigned long long)size);
		return -EINVAL;
	}
	r->pos = off;
	r->info.data_offset = off;
	if (!size && !r->info.finalised) {
		r->end = r->len;
		r->cut = true;
		say(r->warn, "data size is 0 and no header features (recording not finished?): reading records to the end of the file");
	} else if (off + size > r->len) {
		r->end = r->len;
		r->cut = true;
		say(r->warn, "file truncated: data section ends at byte %llu, file at %zu",
		    (unsigned long long)(off + size), r->len);
	} else {
		r->end = off + size;
		if (!r->info.finalised)
			say(r->warn, "recording not finished: no header features, records up to the last flush");
	}
	r->info.data_size = r->end - off;
	return 0;
}

static int read_features(struct pd_reader *r, const struct pd_file_header *h)
{
	__u64 feat_offset = h->data.offset + h->data.size;
	size_t nr = 0, i = 0;
	int feat, bit;

	for (bit = 0; bit < PD_FEAT_BITS; bit++)
		nr += !!(h->features[bit / 64] & (1ULL << (bit % 64)));
	if (!nr)
		return 0;
	if (!in_file(r, feat_offset, nr * sizeof(struct pd_file_section))) {
		if (!r->warn[0])
			say(r->warn, "file truncated: header features are missing");
		return 0;
	}
	for (feat = 0; feat < PD_FEAT_BITS; feat++) {
		struct pd_file_section s;
		char why[PD_MSG_LEN];

		if (!(h->features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		memcpy(&s, r->buf + feat_offset + i++ * sizeof(s), sizeof(s));
		if (!in_file(r, s.offset, s.size)) {
			if (!r->warn[0])
				say(r->warn, "file truncated: header feature %d is missing",
				    feat);
			continue;
		}
		if (pd_feat_decode(feat, r->buf + s.offset, s.size, s.offset, &r->info,
				   r->facts, why, sizeof(why))) {
			say(r->err, "%s", why);
			return -EINVAL;
		}
	}
	pd_fact_index_finish(r->facts);
	return 0;
}

/* HEADER_ATTR: an attr of attr.size bytes, then the ids of its instances. */
static int pipe_attr(struct pd_reader *r, __u64 pos, size_t size)
{
	const __u8 *p = r->buf + pos + sizeof(struct perf_event_header);
	struct pd_event_info *events, *ev;
	size_t body = size - sizeof(struct perf_event_header), nr_ids;
	__u32 attr_size = 0;

	if (body >= 8)
		memcpy(&attr_size, p + 4, sizeof(attr_size));
	if (!attr_size)
		attr_size = PERF_ATTR_SIZE_VER0;
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > body || (body - attr_size) % 8) {
		say(r->err, "malformed attr record at byte %llu", (unsigned long long)pos);
		return -EINVAL;
	}
	events = realloc(r->info.events, (r->info.nr_events + 1) * sizeof(*events));
	if (!events) {
		say(r->err, "out of memory");
		return -ENOMEM;
	}
	r->info.events = events;
	ev = &events[r->info.nr_events++];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, p, attr_size < sizeof(ev->attr) ? attr_size : sizeof(ev->attr));
	nr_ids = (body - attr_size) / 8;
	ev->nr_ids = nr_ids;
	ev->ids = malloc(nr_ids ? nr_ids * 8 : 1);
	if (!ev->ids) {
		say(r->err, "out of memory");
		return -ENOMEM;
	}
	memcpy(ev->ids, p + attr_size, nr_ids * 8);
	return 0;
}

/* HEADER_FEATURE: the feature's number, then what a file's section holds. */
static int pipe_feature(struct pd_reader *r, __u64 pos, size_t size)
{
	const size_t head = sizeof(struct perf_event_header) + sizeof(__u64);
	char why[PD_MSG_LEN];
	__u64 feat;

	if (size < head) {
		say(r->err, "malformed feature record at byte %llu", (unsigned long long)pos);
		return -EINVAL;
	}
	memcpy(&feat, r->buf + pos + sizeof(struct perf_event_header), sizeof(feat));
	if (feat >= PD_FEAT_BITS)
		return 0;
	if (pd_feat_decode(feat, r->buf + pos + head, size - head, pos + head, &r->info,
			   r->facts, why, sizeof(why))) {
		say(r->err, "%s", why);
		return -EINVAL;
	}
	return 0;
}

/*
 * Pipe mode: the attrs and features, wherever they are in the stream (a
 * recorder writes them first).  The records are checked again as they are
 * read: here the walk only stops where they stop making sense.
 */
static int parse_pipe(struct pd_reader *r)
{
	struct perf_event_header h;
	__u64 pos = PD_PIPE_HEADER_SIZE;
	struct pd_event_info *ev;
	int err = 0;
	size_t e;

	while (!err && r->len - pos >= sizeof(h)) {
		memcpy(&h, r->buf + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > r->len - pos)
			break;
		if (h.type == PD_RECORD_HEADER_ATTR)
			err = pipe_attr(r, pos, h.size);
		else if (h.type == PD_RECORD_HEADER_FEATURE)
			err = pipe_feature(r, pos, h.size);
		pos += h.size;
	}
	if (err)
		return err;
	if (!r->info.nr_events) {
		say(r->err, "pipe-mode perf.data without any event attr");
		return -EINVAL;
	}
	/* the index keeps the attrs' addresses: added once they moved no more */
	for (e = 0; e < r->info.nr_events; e++) {
		ev = &r->info.events[e];
		if (pd_evindex_add(&r->index, &ev->attr, ev->ids, ev->nr_ids)) {
			say(r->err, "out of memory");
			return -ENOMEM;
		}
	}
	/* bpfrec record -o - sends the objects' facts with the data */
	pd_fact_index_scan(r->facts, r->buf, PD_PIPE_HEADER_SIZE, r->len);
	pd_fact_index_finish(r->facts);
	r->pos = r->info.data_offset = PD_PIPE_HEADER_SIZE;
	r->end = r->len;
	r->cut = true;
	r->info.data_size = r->len - PD_PIPE_HEADER_SIZE;
	r->info.pipe = true;
	return 0;
}

static int parse(struct pd_reader *r)
{
	struct pd_file_header h;
	__u64 magic;
	int bit;

	if (r->len < sizeof(magic)) {
		say(r->err, "not a perf.data file (%zu bytes)", r->len);
		return -EINVAL;
	}
	memcpy(&magic, r->buf, sizeof(magic));
	if (magic == PD_MAGIC_SWAPPED) {
		say(r->err, "perf.data of the other endianness is not supported");
		return -EINVAL;
	}
	if (magic != PD_MAGIC) {
		say(r->err, "not a perf.data file (bad magic)");
		return -EINVAL;
	}
	if (r->len < 2 * sizeof(__u64)) {
		say(r->err, "truncated file header");
		return -EINVAL;
	}
	memcpy(&h.size, r->buf + sizeof(magic), sizeof(h.size));
	if (h.size == PD_PIPE_HEADER_SIZE)
		return parse_pipe(r);
	if (h.size != sizeof(h) &&
	    h.size != offsetof(struct pd_file_header, features)) {
		say(r->err, "unsupported file header size %llu",
		    (unsigned long long)h.size);
		return -EINVAL;
	}
	if (r->len < h.size) {
		say(r->err, "truncated file header");
		return -EINVAL;
	}
	memset(&h, 0, sizeof(h));
	memcpy(&h, r->buf, sizeof(h) < r->len ? sizeof(h) : r->len);
	if (h.size != sizeof(h))
		memset(h.features, 0, sizeof(h.features));
	for (bit = 0; bit < PD_FEAT_BITS / 64; bit++)
		r->info.finalised |= h.features[bit] != 0;

	if (read_attrs(r, &h) || data_bounds(r, &h) || read_features(r, &h))
		return -EINVAL;
	/* a recording that did not finish has its facts in the data only */
	if (!r->info.finalised)
		pd_fact_index_scan(r->facts, r->buf, r->info.data_offset, r->end);
	return 0;
}

/* Parse @buf; lookups of facts read @fd (taken: closed at the end) or @buf. */
static struct pd_reader *open_buf(const void *buf, size_t len, int fd, char *err,
				  size_t errlen)
{
	struct pd_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	r->buf = buf;
	r->len = len;
	/* sample arrays are read in place: they must be 8-byte aligned */
	if ((uintptr_t)buf % 8) {
		r->copy = malloc(len ? len : 1);
		if (r->copy) {
			memcpy(r->copy, buf, len);
			r->buf = r->copy;
		}
	}
	r->facts = pd_fact_index_new(fd, r->buf);
	if (!r->facts || ((uintptr_t)buf % 8 && !r->copy)) {
		snprintf(err, errlen, "out of memory");
		if (!r->facts && fd >= 0)
			close(fd);
		pd_reader_close(r);
		return NULL;
	}
	if (parse(r)) {
		snprintf(err, errlen, "%s", r->err);
		pd_reader_close(r);
		return NULL;
	}
	return r;
}

struct pd_reader *pd_reader_open_mem(const void *buf, size_t len,
				     char *err, size_t errlen)
{
	return open_buf(buf, len, -1, err, errlen);
}

/* The most of a stream kept: beyond, it is a file's job. */
#define PD_STDIN_MAX	(1ULL << 30)

/*
 * Stdin kept in a memfd that stands in for it from then on: the next
 * open of "-" maps it like a file (script reads its input twice).  Up to
 * PD_STDIN_MAX: memory is not spent without bound on what a pipe sends.
 */
static int keep_stdin(char *err, size_t errlen)
{
	char buf[1 << 16];
	__u64 kept = 0;
	ssize_t n, w;
	int fd;

	fd = memfd_create("bpfrec-stdin", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot keep stdin: %s", strerror(errno));
		return -1;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && (kept += n) > PD_STDIN_MAX) {
			snprintf(err, errlen, "stdin: more than 1 GiB: write it to a file and read that");
			close(fd);
			return -1;
		}
		w = n < 0 ? n : write(fd, buf, n);
		if (w != n) {
			snprintf(err, errlen, "cannot keep stdin: %s",
				 n < 0 ? strerror(errno) : "short write to memory");
			close(fd);
			return -1;
		}
	}
	if (dup2(fd, STDIN_FILENO) < 0) {
		snprintf(err, errlen, "cannot keep stdin: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* A descriptor of the input, a regular file; -1 and @err else. */
static int open_input(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-")) {
		if (fstat(STDIN_FILENO, &st)) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -1;
		}
		/* what a user would type there is no perf.data: say so, do not wait */
		if (isatty(STDIN_FILENO)) {
			snprintf(err, errlen, "stdin is a terminal: pipe a perf.data into it");
			return -1;
		}
		if (!S_ISREG(st.st_mode) && keep_stdin(err, errlen))
			return -1;
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	} else {
		/* a FIFO would block the open until a writer comes: refused below */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s", S_ISFIFO(st.st_mode) ?
			 "a FIFO: read a pipe from stdin (-i - < FIFO)" :
			 "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

struct pd_reader *pd_reader_open(const char *path, char *err, size_t errlen)
{
	struct pd_reader *r;
	struct stat st;
	void *map;
	int fd;

	fd = open_input(path, err, errlen);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			close(fd);
		}
		return NULL;
	}
	if (!st.st_size) {
		snprintf(err, errlen, "empty file");
		close(fd);
		return NULL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "cannot map: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	/* the facts are read back with pread(): no page of theirs stays mapped */
	r = open_buf(map, st.st_size, fd, err, errlen);
	if (!r) {
		munmap(map, st.st_size);
		return NULL;
	}
	r->map = map;
	/* the header and features are decoded into memory of their own */
	madvise(map, st.st_size, MADV_DONTNEED);
	return r;
}

const struct pd_file_info *pd_reader_info(const struct pd_reader *r)
{
	return &r->info;
}

const struct pd_prog *pd_reader_prog(struct pd_reader *r, __u32 id)
{
	return pd_fact_index_find(r->facts, PD_PROG, id);
}

const struct pd_map *pd_reader_map(struct pd_reader *r, __u32 id)
{
	return pd_fact_index_find(r->facts, PD_MAP, id);
}

const struct pd_link *pd_reader_link(struct pd_reader *r, __u32 id)
{
	return pd_fact_index_find(r->facts, PD_LINK, id);
}

const struct pd_btf *pd_reader_btf(struct pd_reader *r, __u32 id)
{
	return pd_fact_index_find(r->facts, PD_BTF, id);
}

bool pd_reader_next_fact(struct pd_reader *r, enum pd_kind kind, struct pd_fact_iter *it,
			 __u32 *id)
{
	return pd_fact_index_next(r->facts, kind, it, id);
}

const struct pd_loader *pd_reader_loader(const struct pd_reader *r, __u32 index)
{
	return r->facts ? pd_fact_index_loader(r->facts, index) : NULL;
}

const struct pd_loader *pd_reader_loader_of(const struct pd_reader *r, __u32 tid, __u64 time)
{
	return r->facts ? pd_fact_index_loader_of(r->facts, tid, time) : NULL;
}

const struct pd_capture *pd_reader_capture(const struct pd_reader *r)
{
	return pd_fact_index_capture(r->facts);
}

const void *pd_reader_tracing_data(const struct pd_reader *r, size_t *len)
{
	*len = r->info.tracing_data_size;
	return *len ? r->buf + r->info.tracing_data_offset : NULL;
}

const char *pd_reader_error(const struct pd_reader *r)
{
	return r->err;
}

const char *pd_reader_warning(const struct pd_reader *r)
{
	return r->warn[0] ? r->warn : NULL;
}

/* Fixed body bytes after the header, and where a string starts if any. */
static bool body_layout(__u32 type, size_t *fixed, bool *has_str)
{
	*has_str = false;
	switch (type) {
	case PERF_RECORD_BPF_EVENT:
		*fixed = PD_BPF_EVENT_FIXED;
		return true;
	case PERF_RECORD_LOST:
		*fixed = 16;
		return true;
	case PERF_RECORD_KSYMBOL:
		*fixed = 16;
		*has_str = true;
		return true;
	case PERF_RECORD_COMM:
		*fixed = 8;
		*has_str = true;
		return true;
	case PERF_RECORD_MMAP:
		*fixed = 32;
		*has_str = true;
		return true;
	case PERF_RECORD_MMAP2:
		*fixed = 64;
		*has_str = true;
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		*fixed = 24;
		return true;
	}
	*fixed = 0;
	return false;
}

/* Body @b of @len bytes (up to the sample_id), at least its fixed part. */
static void decode_body(struct pd_record *rec, const __u8 *b, size_t len, const char *str)
{
	switch (rec->type) {
	case PERF_RECORD_BPF_EVENT:
		pd_bpf_event_decode(b, len, &rec->bpf);
		break;
	case PERF_RECORD_LOST:
		memcpy(&rec->lost.id, b, 8);
		memcpy(&rec->lost.lost, b + 8, 8);
		break;
	case PERF_RECORD_KSYMBOL:
		memcpy(&rec->ksymbol.addr, b, 8);
		memcpy(&rec->ksymbol.len, b + 8, 4);
		memcpy(&rec->ksymbol.ksym_type, b + 12, 2);
		memcpy(&rec->ksymbol.flags, b + 14, 2);
		rec->ksymbol.name = str;
		break;
	case PERF_RECORD_COMM:
		memcpy(&rec->comm.pid, b, 4);
		memcpy(&rec->comm.tid, b + 4, 4);
		rec->comm.comm = str;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		memcpy(&rec->mmap.pid, b, 4);
		memcpy(&rec->mmap.tid, b + 4, 4);
		memcpy(&rec->mmap.start, b + 8, 8);
		memcpy(&rec->mmap.len, b + 16, 8);
		memcpy(&rec->mmap.pgoff, b + 24, 8);
		rec->mmap.filename = str;
		if (rec->type != PERF_RECORD_MMAP2)
			break;
		/* after the file's identity: device and inode, or its build-id */
		memcpy(&rec->mmap.prot, b + 56, 4);
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			rec->mmap.build_id_size = b[32] < 20 ? b[32] : 20;
			memcpy(rec->mmap.build_id, b + 36, rec->mmap.build_id_size);
		}
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		memcpy(&rec->task.pid, b, 4);
		memcpy(&rec->task.ppid, b + 4, 4);
		memcpy(&rec->task.tid, b + 8, 4);
		memcpy(&rec->task.ptid, b + 12, 4);
		memcpy(&rec->task.time, b + 16, 8);
		break;
	}
}

static int bad_record(struct pd_reader *r, const char *why)
{
	say(r->err, "malformed record at byte %llu: %s",
	    (unsigned long long)r->pos, why);
	r->failed = true;
	return -EINVAL;
}

/* The data ends inside a record: a cut file ends here, others are bad. */
static int short_record(struct pd_reader *r)
{
	if (!r->cut)
		return bad_record(r, "crosses the end of the data section");
	say(r->warn, "file cut short: incomplete record at byte %llu, records before it were read",
	    (unsigned long long)r->pos);
	r->pos = r->end;
	return 0;
}

/* The record at @offset is malformed: the reader stops there. */
static int bad_at(struct pd_reader *r, __u64 offset, const char *why)
{
	r->pos = offset;
	return bad_record(r, why);
}

/* The sample of a PERF_RECORD_SAMPLE; an event the reader cannot tell leaves none. */
static int decode_sample(struct pd_reader *r, const __u8 *p, struct pd_record *rec)
{
	char why[64];
	const char *field;

	if (rec->event < 0)
		return 1;
	if (pd_sample_decode(&r->info.events[rec->event].attr, p + sizeof(struct perf_event_header),
			     rec->size - sizeof(struct perf_event_header), &rec->sample, &field)) {
		snprintf(why, sizeof(why), "sample field %s out of bounds", field);
		return bad_at(r, rec->offset, why);
	}
	rec->has_sample = true;
	return 1;
}

/* Decode record @p of the file at @offset; its size was checked. */
static int decode(struct pd_reader *r, const __u8 *p, __u64 offset, struct pd_record *rec)
{
	struct perf_event_header h;
	const struct perf_event_attr *attr;
	size_t fixed, trailer = 0, str_len;
	bool has_str;

	memcpy(&h, p, sizeof(h));
	memset(rec, 0, sizeof(*rec));
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->offset = offset;
	rec->raw = (const void *)p;
	rec->event = pd_evindex_of_record(&r->index, (const void *)p);

	if (h.type == PERF_RECORD_SAMPLE)
		return decode_sample(r, p, rec);
	if (!body_layout(h.type, &fixed, &has_str))
		return 1;
	/* a trailer whose id names no event: laid out as the first event's */
	attr = &r->info.events[rec->event < 0 ? 0 : rec->event].attr;
	if (attr->sample_id_all) {
		trailer = pd_sample_id_size(attr);
		if (pd_sample_id_decode(attr, (const void *)p, &rec->sample))
			return bad_at(r, offset, "too short for its sample_id");
		rec->has_sample = true;
	}
	if (fixed > h.size - sizeof(h) - trailer)
		return bad_at(r, offset, "too short for its type");
	r->str[0] = '\0';
	if (has_str) {
		str_len = h.size - sizeof(h) - trailer - fixed;
		str_len = strnlen((const char *)p + sizeof(h) + fixed, str_len);
		memcpy(r->str, p + sizeof(h) + fixed, str_len);
		r->str[str_len] = '\0';
	}
	decode_body(rec, p + sizeof(h), h.size - sizeof(h) - trailer, r->str);
	return 1;
}

/*
 * The pages of the file read so far are given back: the reader holds a
 * record at a time, and a file read to its end must not stay resident.
 */
static void release_read(struct pd_reader *r)
{
	if (r->map)
		pd_give_back(r->map, &r->released, r->pos);
}

/*
 * A stock kernel's oversized side-band record (oversized.c), at its true
 * size.  Its stale tail hides which event it is of: with several events,
 * the repair must find its own event's id right after the body.
 */
static const __u8 *repaired(struct pd_reader *r, const __u8 *p)
{
	const struct perf_event_header *rec = (const void *)p;
	size_t e;

	for (e = 0; e < r->info.nr_events; e++) {
		if (!pd_repair(&r->info.events[e].attr, rec, r->fixed))
			continue;
		if (r->info.nr_events > 1 &&
		    pd_evindex_of_record(&r->index, (const void *)r->fixed) != (int)e)
			continue;
		r->repaired++;
		return (const __u8 *)r->fixed;
	}
	return p;
}

__u64 pd_reader_repaired(const struct pd_reader *r)
{
	return r->repaired;
}

/*
 * A mapped file cut short by someone else while it is read faults with
 * SIGBUS past its new end.  The copy of a record out of the mapping is
 * guarded: the fault ends the reading with an error instead of the
 * process.  A fault anywhere else is the default's (it was not ours).
 */
static sigjmp_buf *bus_jmp;
static const void *bus_lo, *bus_hi;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (bus_jmp && si->si_addr >= bus_lo && si->si_addr < bus_hi)
		siglongjmp(*bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* @len bytes of the mapping at @src to @dst; -EFAULT if the file shrank. */
static int copy_mapped(struct pd_reader *r, void *dst, const void *src, size_t len)
{
	static bool installed;
	sigjmp_buf jb;

	if (!r->map) {
		memcpy(dst, src, len);
		return 0;
	}
	if (!installed) {
		/* not blocked in the handler: the jump out needs no saved mask */
		struct sigaction sa = { .sa_sigaction = on_sigbus,
					.sa_flags = SA_SIGINFO | SA_NODEFER };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		installed = true;
	}
	if (sigsetjmp(jb, 0)) {
		bus_jmp = NULL;
		return -EFAULT;
	}
	bus_lo = src;
	bus_hi = (const char *)src + len;
	bus_jmp = &jb;
	memcpy(dst, src, len);
	bus_jmp = NULL;
	return 0;
}

/*
 * The record at r->pos, copied out of the file with the header that was
 * checked: a file mapped can change while it is read (another writer),
 * and what is decoded must be what was checked.  The copy is 8-byte
 * aligned too (records after one of perf's own need not be).
 * 1, 0 at the end of the data, or a negative errno.
 */
static int next_in_file(struct pd_reader *r, const struct perf_event_header **rec)
{
	struct perf_event_header h;
	const __u8 *p = r->buf + r->pos;

	if (r->pos >= r->end)
		return 0;
	if (r->end - r->pos < sizeof(h))
		return short_record(r);
	if (copy_mapped(r, &h, p, sizeof(h)))
		return bad_record(r, "the file was cut short while it was read");
	if (h.size < sizeof(h))
		return bad_record(r, "size below 8");
	if (h.size > r->end - r->pos)
		return short_record(r);
	if (h.size % 8 && h.type < PD_RECORD_USER_TYPE_START)
		return bad_record(r, "size not a multiple of 8");
	if (copy_mapped(r, r->aligned, p, h.size))
		return bad_record(r, "the file was cut short while it was read");
	memcpy(r->aligned, &h, sizeof(h));
	p = (const __u8 *)r->aligned;
	release_read(r);
	r->pos += h.size;
	*rec = (const void *)p;
	return 1;
}

/* Decompress COMPRESSED record @rec, at file offset @offset. */
static int unzip(struct pd_reader *r, const struct perf_event_header *rec, __u64 offset)
{
	const char *why = "";
	char msg[PD_MSG_LEN];

	if (!r->unzip)
		r->unzip = pd_unzip_new();
	if (!r->unzip) {
		say(r->err, "out of memory");
		r->failed = true;
		return -ENOMEM;
	}
	r->unzip_offset = offset;
	if (pd_unzip_feed(r->unzip, rec + 1, rec->size - sizeof(*rec), &why)) {
		snprintf(msg, sizeof(msg), "compressed: %s", why);
		return bad_at(r, offset, msg);
	}
	return 0;
}

/* What a stock kernel oversized at its true size, then decoded. */
static int deliver(struct pd_reader *r, const struct perf_event_header *h, __u64 offset,
		   struct pd_record *rec)
{
	const __u8 *p = (const __u8 *)h;

	if (h->type == PERF_RECORD_KSYMBOL || h->type == PERF_RECORD_BPF_EVENT)
		p = repaired(r, p);
	return decode(r, p, offset, rec);
}

int pd_reader_next(struct pd_reader *r, struct pd_record *rec)
{
	const struct perf_event_header *h;
	const char *why = "";
	__u64 offset;
	int ret;

	if (r->failed)
		return -EINVAL;
	for (;;) {
		if (r->unzip) {
			ret = pd_unzip_next(r->unzip, &h, &why);
			if (ret < 0)
				return bad_at(r, r->unzip_offset, why);
			if (ret)
				return deliver(r, h, r->unzip_offset, rec);
		}
		offset = r->pos;
		ret = next_in_file(r, &h);
		if (ret <= 0)
			break;
		/* the objects' facts: the fact index reads them (facts_read.c) */
		if (pd_fact_record((const __u8 *)h, h->size))
			continue;
		if (h->type != PD_RECORD_COMPRESSED)
			return deliver(r, h, offset, rec);
		ret = unzip(r, h, offset);
		if (ret)
			return ret;
	}
	if (!ret && pd_unzip_pending(r->unzip))
		say(r->warn, "compressed data ends inside a record: the records before it were read");
	return ret;
}

int pd_reader_prog_insns(struct pd_reader *r, __u32 id, void **insns, size_t *len)
{
	__u64 from = r->info.pipe ? PD_PIPE_HEADER_SIZE : r->info.data_offset;

	return pd_insns_scan(r->buf, from, r->info.pipe ? r->len : r->end, id, insns, len);
}

int pd_reader_decode(struct pd_reader *r, const struct perf_event_header *raw, __u64 offset,
		     struct pd_record *rec)
{
	if (r->failed)
		return -EINVAL;
	return decode(r, (const __u8 *)raw, offset, rec);
}

void pd_reader_close(struct pd_reader *r)
{
	if (!r)
		return;
	pd_evindex_free(&r->index);
	pd_unzip_free(r->unzip);
	pd_fact_index_free(r->facts);
	pd_file_info_release(&r->info);
	if (r->map)
		munmap(r->map, r->len);
	free(r->copy);
	free(r);
}
