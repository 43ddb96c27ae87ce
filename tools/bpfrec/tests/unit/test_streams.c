// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the perf.data that are not laid out as a plain file:
 * records compressed with zstd (perf record -z: one stream cut into
 * COMPRESSED records of any size, a record split between two of them)
 * and pipe mode (perf record -o -: attrs and features as records of the
 * stream, records at unaligned offsets, read from a file or from stdin).
 * Each stream is built from a file our writer made, and must give the
 * same records as that file; the writer's own pipe mode too, readable
 * after each flush.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <zstd.h>
#include "tests/unit/unit.h"
#include "util/perf_data/format.h"
#include "util/perf_data/unzip.h"

static const __u64 ids[2] = { 21, 22 };
#define NR_PROGS	40

/*
 * The records the streams are made of: a COMM, then KSYMBOL + PROG_LOAD
 * each; @flushed (if not NULL) is called with @w after the first half of
 * the programs, a round ended.
 */
static void write_records(struct pd_writer *w, void (*flushed)(struct pd_writer *w))
{
	struct pd_sample s = { .pid = 7, .tid = 7, .id = ids[0] };
	char name[64];
	__u32 i;

	s.time = 1;
	pd_write_comm(w, 7, 7, "loader", false, &s);
	for (i = 0; i < NR_PROGS; i++) {
		s.time = 10 + 2 * i;
		s.id = ids[i % 2];
		snprintf(name, sizeof(name), "bpf_prog_0123456789abcdef_long_function_name_%u", i);
		pd_write_ksymbol(w, 0xffffffffc0000000ULL + 64 * i, 64,
				 PERF_RECORD_KSYMBOL_TYPE_BPF, 0, name, &s);
		s.time++;
		pd_write_bpf_event(w, PERF_BPF_EVENT_PROG_LOAD, 0, 100 + i, NULL, &s);
		if (flushed && i == NR_PROGS / 2 - 1 && !pd_write_finished_round(w))
			flushed(w);
	}
}

/* The plain file the streams are made of. */
static void write_plain(const char *file)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_writer *w = one_event_writer(file, &attr, ids, 2);

	if (!w)
		return;
	write_records(w, NULL);
	pd_writer_close(w);
}

/* "type/id-or-name/time" of every record of @r, joined; the return of the last next(). */
static int summary(struct pd_reader *r, char *buf, size_t len)
{
	struct pd_record rec;
	size_t pos = 0;
	int ret;

	buf[0] = 0;
	while ((ret = pd_reader_next(r, &rec)) > 0 && pos < len) {
		if (rec.type == PERF_RECORD_BPF_EVENT)
			pos += snprintf(buf + pos, len - pos, "%u/%u/%llu,", rec.type, rec.bpf.id,
					(unsigned long long)rec.sample.time);
		else if (rec.type == PERF_RECORD_KSYMBOL)
			pos += snprintf(buf + pos, len - pos, "%u/%s/%llu,", rec.type,
					rec.ksymbol.name, (unsigned long long)rec.sample.time);
		else if (rec.type == PERF_RECORD_COMM)
			pos += snprintf(buf + pos, len - pos, "%u/%s/%llu,", rec.type,
					rec.comm.comm, (unsigned long long)rec.sample.time);
		else
			pos += snprintf(buf + pos, len - pos, "%u,", rec.type);
	}
	return ret;
}

static int summary_of(const void *buf, size_t len, char *out, size_t out_len, char *err,
		      size_t errlen, const char **warn)
{
	struct pd_reader *r = pd_reader_open_mem(buf, len, err, errlen);
	int ret;

	out[0] = 0;
	if (!r)
		return -1;
	ret = summary(r, out, out_len);
	if (ret < 0)
		snprintf(err, errlen, "%s", pd_reader_error(r));
	*warn = NULL;
	if (pd_reader_warning(r))
		*warn = strstr(pd_reader_warning(r), "compressed") ? "compressed" : "other";
	pd_reader_close(r);
	return ret;
}

struct plain {
	__u8 *buf;
	size_t len;
	struct pd_file_header h;
	char want[16384];		/* its summary */
};

static bool load_plain(struct plain *p)
{
	char err[256];
	const char *warn;

	write_plain(path("plain.data"));
	p->buf = slurp(path("plain.data"), &p->len);
	if (!CHECK(p->len >= sizeof(p->h), "the plain file is written"))
		return false;
	memcpy(&p->h, p->buf, sizeof(p->h));
	return CHECK(summary_of(p->buf, p->len, p->want, sizeof(p->want), err, sizeof(err),
				&warn) == 0 && strstr(p->want, "long_function_name_39"),
		     "the plain file reads back");
}

static void put_record(__u8 *out, size_t *pos, __u32 type, const void *body, size_t len)
{
	struct perf_event_header h = { .type = type, .size = sizeof(h) + len };

	memcpy(out + *pos, &h, sizeof(h));
	if (len)
		memcpy(out + *pos + sizeof(h), body, len);
	*pos += sizeof(h) + len;
}

/*
 * The plain file with its data after the first record compressed as perf
 * does it: one zstd stream, flushed after each of @nr_parts pushes, each
 * push a COMPRESSED record (of an unaligned size).  The pushes are cut
 * inside records, as perf's are where a ring wraps.  Then a
 * FINISHED_ROUND.  @keep: how many of the records are written (fewer: a
 * stream that stops); @garbage: their bytes spoilt.
 */
static __u8 *compressed_file(const struct plain *p, int nr_parts, int keep, bool garbage,
			     size_t *len)
{
	const __u8 *data = p->buf + p->h.data.offset;
	size_t first = ((const struct perf_event_header *)data)->size;
	size_t rest = p->h.data.size - first, cap = ZSTD_compressBound(rest) + 64 * nr_parts;
	__u8 *z = malloc(cap), *out = malloc(p->h.data.offset + first + cap + 4096);
	ZSTD_CStream *cs = ZSTD_createCStream();
	struct pd_file_header h = p->h;
	size_t pos, push = rest / nr_parts + 3, done = 0;
	int i;

	ZSTD_initCStream(cs, 3);
	memcpy(out, p->buf, p->h.data.offset + first);
	pos = p->h.data.offset + first;
	for (i = 0; i < nr_parts; i++) {
		ZSTD_inBuffer in = { data + first + done, done + push > rest ? rest - done : push, 0 };
		ZSTD_outBuffer o = { z, cap, 0 };

		done += in.size;
		ZSTD_compressStream(cs, &o, &in);
		ZSTD_flushStream(cs, &o);
		if (garbage)
			memset(z, 0xa5, o.pos);
		if (i < keep)
			put_record(out, &pos, PD_RECORD_COMPRESSED, z, o.pos);
	}
	ZSTD_freeCStream(cs);
	put_record(out, &pos, PD_RECORD_FINISHED_ROUND, NULL, 0);
	h.data.size = pos - h.data.offset;
	memset(h.features, 0, sizeof(h.features));
	memcpy(out, &h, sizeof(h));
	free(z);
	*len = pos;
	return out;
}

static void test_compressed(const struct plain *p)
{
	char got[16384], err[256];
	const char *warn;
	size_t len;
	__u8 *f;
	int ret;

	f = compressed_file(p, 3, 3, false, &len);
	ret = summary_of(f, len, got, sizeof(got), err, sizeof(err), &warn);
	CHECK(ret == 0 && !strncmp(got, p->want, strlen(p->want)) &&
	      !strcmp(got + strlen(p->want), "68,"),
	      "3 pushes cut inside records, COMPRESSED records of unaligned sizes, give the plain file's %d records, then the round (%d: %.60s)",
	      2 * NR_PROGS + 1, ret, ret ? err : got);
	free(f);

	f = compressed_file(p, 3, 2, false, &len);
	ret = summary_of(f, len, got, sizeof(got), err, sizeof(err), &warn);
	CHECK(ret == 0 && strlen(got) < strlen(p->want) && !strncmp(got, p->want, strlen(got) - 3) &&
	      warn && !strcmp(warn, "compressed"),
	      "a stream cut after 2 of 3 parts: the complete records, and a warning (%d, %s)",
	      ret, warn ? warn : "no warning");
	free(f);

	f = compressed_file(p, 2, 2, true, &len);
	ret = summary_of(f, len, got, sizeof(got), err, sizeof(err), &warn);
	CHECK(ret < 0 && strstr(err, "compressed:") && strstr(err, "malformed record at byte"),
	      "a corrupt zstd stream is an error at its record: %s", err);
	free(f);
}

/*
 * The plain file in pipe mode: the 16-byte header, HEADER_ATTR, a
 * HEADER_FEATURE of 84 bytes (the records after it are unaligned, as
 * perf writes them), then the data.
 */
static __u8 *pipe_stream(const struct plain *p, bool with_attr, size_t *len)
{
	__u8 *out = malloc(p->len + 4096), body[4096];
	__u64 head[2] = { PD_MAGIC, PD_PIPE_HEADER_SIZE }, feat = PD_HEADER_HOSTNAME;
	size_t pos = sizeof(head), attr_bytes = p->h.attr_size - sizeof(struct pd_file_section);
	struct pd_file_section ids;
	__u32 slen = 64;

	memcpy(out, head, sizeof(head));
	if (with_attr) {
		memcpy(body, p->buf + p->h.attrs.offset, attr_bytes);
		memcpy(&ids, p->buf + p->h.attrs.offset + attr_bytes, sizeof(ids));
		memcpy(body + attr_bytes, p->buf + ids.offset, ids.size);
		put_record(out, &pos, PD_RECORD_HEADER_ATTR, body, attr_bytes + ids.size);
	}
	memset(body, 0, sizeof(body));
	memcpy(body, &feat, 8);
	memcpy(body + 8, &slen, 4);
	strcpy((char *)body + 12, "pipehost");
	put_record(out, &pos, PD_RECORD_HEADER_FEATURE, body, 8 + 4 + slen);
	memcpy(out + pos, p->buf + p->h.data.offset, p->h.data.size);
	pos += p->h.data.size;
	*len = pos;
	return out;
}

static void test_pipe(const struct plain *p)
{
	char got[16384], err[256];
	const struct pd_file_info *info;
	struct pd_reader *r;
	size_t len;
	__u8 *f;
	int ret;

	f = pipe_stream(p, true, &len);
	r = pd_reader_open_mem(f, len, err, sizeof(err));
	if (CHECK(r, "a pipe-mode stream opens (%s)", r ? "ok" : err)) {
		info = pd_reader_info(r);
		CHECK(info->pipe && info->nr_events == 1 && info->events[0].nr_ids == 2 &&
		      info->events[0].ids[1] == ids[1] && info->hostname &&
		      !strcmp(info->hostname, "pipehost"),
		      "its attr, ids and HOSTNAME come from the stream's records");
		ret = summary(r, got, sizeof(got));
		/* the stream's own records are given too, first */
		CHECK(ret == 0 && !strncmp(got, "64,80,", 6) && !strcmp(got + 6, p->want) &&
		      !pd_reader_warning(r),
		      "records at unaligned offsets read as the plain file's, no warning (%d: %.60s)",
		      ret, got);
		pd_reader_close(r);
	}
	free(f);

	f = pipe_stream(p, false, &len);
	r = pd_reader_open_mem(f, len, err, sizeof(err));
	CHECK(!r && !strcmp(err, "pipe-mode perf.data without any event attr"),
	      "a stream without HEADER_ATTR is refused: %s", r ? "opened" : err);
	pd_reader_close(r);
	free(f);
}

/* @s without the stream's own records (ATTR, FEATURE) and the rounds, in place. */
static void only_data(char *s)
{
	char *in = s, *out = s, *end;

	for (; (end = strchr(in, ',')); in = end + 1) {
		if (!strncmp(in, "64,", 3) || !strncmp(in, "80,", 3) ||
		    !strncmp(in, "68,", 3))
			continue;
		memmove(out, in, end + 1 - in);
		out += end + 1 - in;
	}
	*out = 0;
}

static char half_got[16384];

/* What the stream holds once the first half was flushed. */
static void read_half(struct pd_writer *w)
{
	char err[256];
	const char *warn;
	size_t len;
	__u8 *f;

	(void)w;
	f = slurp(path("stream.data"), &len);
	if (!f || summary_of(f, len, half_got, sizeof(half_got), err, sizeof(err), &warn))
		snprintf(half_got, sizeof(half_got), "unread: %s", f ? err : "no stream");
	free(f);
}

/*
 * pd_writer_open_pipe(): the stream is readable after each flush, with
 * the records written so far, and ends with the plain file's records.
 */
static void test_pipe_writer(const struct plain *p)
{
	struct perf_event_attr attr = sideband_attr();
	struct pd_event ev = { .attr = &attr, .name = "bpf-events", .ids = ids, .nr_ids = 2 };
	struct pd_writer_config cfg = { .events = &ev, .nr_events = 1 };
	int store = open(path("store.data"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	int out = open(path("stream.data"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	char got[16384], err[256], *mid;
	const char *warn;
	struct pd_writer *w;
	size_t len;
	__u8 *f;

	if (!CHECK(store >= 0 && out >= 0 && !pd_writer_open_pipe(&w, store, out, &cfg),
		   "a pipe-mode writer opens"))
		goto out;
	write_records(w, read_half);
	CHECK(!pd_writer_close(w), "the pipe-mode writer closes");
	only_data(half_got);
	/* the first record of the second half: its KSYMBOL */
	mid = strstr(p->want, "long_function_name_20/");
	while (mid && mid > p->want && mid[-1] != ',')
		mid--;
	CHECK(mid && !strncmp(half_got, p->want, mid - p->want) &&
	      !strstr(half_got, "long_function_name_20/"),
	      "after the first flush the stream has the first half, and only it (%.60s)",
	      half_got);
	f = slurp(path("stream.data"), &len);
	if (CHECK(f && !summary_of(f, len, got, sizeof(got), err, sizeof(err), &warn) && !warn,
		  "the closed stream reads without warning (%s)", f ? err : "no stream")) {
		only_data(got);
		CHECK(!strcmp(got, p->want), "the closed stream has the plain file's records (%.60s)",
		      got);
	}
	free(f);
out:
	if (store >= 0)
		close(store);
	if (out >= 0)
		close(out);
}

/* "-" reads stdin from a pipe, twice (script measures, then prints). */
static void test_stdin(const struct plain *p)
{
	char got[2][16384], err[256];
	struct pd_reader *r;
	int fds[2], saved = dup(0), i, ok = 0;
	size_t len;
	__u8 *f = pipe_stream(p, true, &len);
	pid_t pid;

	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		close(fds[0]);
		_exit(write(fds[1], f, len) == (ssize_t)len ? 0 : 1);
	}
	close(fds[1]);
	dup2(fds[0], 0);
	close(fds[0]);
	for (i = 0; i < 2; i++) {
		r = pd_reader_open("-", err, sizeof(err));
		if (r && summary(r, got[i], sizeof(got[i])) == 0 && !strcmp(got[i] + 6, p->want))
			ok++;
		pd_reader_close(r);
	}
	waitpid(pid, NULL, 0);
	dup2(saved, 0);
	close(saved);
	CHECK(ok == 2, "stdin from a pipe is read whole, twice (%d of 2)", ok);
	free(f);
}

int main(void)
{
	struct plain p = {};

	unit_setup();
	if (load_plain(&p)) {
		test_compressed(&p);
		test_pipe(&p);
		test_pipe_writer(&p);
		test_stdin(&p);
	}
	free(p.buf);
	return unit_done();
}
