// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer: a valid file from the first byte on.  The header is
 * written at open with an empty data section; records are buffered and,
 * at each flush, written and then committed by rewriting data.size, so a
 * crash never leaves data.size covering bytes that were not written.
 * The objects' facts go into the data as they come (facts_write.c);
 * the features follow the data and are written once, at close.
 *
 * In pipe mode the file is the writer's own store, which the facts are
 * read back from, and every flush also goes to the stream (pipe_write.c),
 * so that a reader sees each round as soon as it is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/array.h"
#include "util/perf_data/format.h"

/* Records are written in batches of about this size. */
#define PD_WRITE_BATCH		(64 * 1024)

struct pd_writer {
	int fd;
	bool own_fd;			/* opened by pd_writer_open() */
	int pipe_fd;			/* the stream of pipe mode, or -1 */
	int err;			/* first error, sticky */
	struct pd_event *events;	/* deep copies of the configuration's */
	size_t nr_events;
	struct pd_evindex index;
	int argc;
	char **argv;
	bool stat;
	char *version;			/* NULL: PD_TOOL_VERSION */
	struct pd_clock clock;

	__u64 data_offset;
	__u64 data_size;		/* bytes written and committed */
	struct pd_buf out;		/* records not yet written */
	struct pd_writer_stats stats;
	__u64 first_time;
	__u64 last_time;

	struct pd_fact_log *facts;	/* where the facts were written */
	/* a window of the data, read back for the facts */
	__u8 *win;
	__u64 win_off;
	size_t win_len;
	struct pd_buf tracing_data;	/* HEADER_TRACING_DATA, as given */
};

/* Facts are read back through a window of this size. */
#define PD_READ_WINDOW		(256 * 1024)

static int set_err(struct pd_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

static void fill_header(const struct pd_writer *w, struct pd_file_header *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = PD_MAGIC;
	h->size = sizeof(*h);
	h->attr_size = PD_ATTR_SIZE + sizeof(struct pd_file_section);
	h->attrs.offset = sizeof(*h);
	h->attrs.size = w->nr_events * h->attr_size;
	h->data.offset = w->data_offset;
	h->data.size = w->data_size;
}

/* header | every attr with its ids section | every event's ids | data */
static int write_prologue(struct pd_writer *w)
{
	struct pd_file_section ids = {
		.offset = sizeof(struct pd_file_header) +
			  w->nr_events * (PD_ATTR_SIZE + sizeof(struct pd_file_section)),
	};
	struct pd_file_header h;
	__u8 attr[PD_ATTR_SIZE];
	struct pd_buf b = { 0 };
	size_t i;
	int err;

	pd_buf_zero(&b, sizeof(h));
	for (i = 0; i < w->nr_events; i++) {
		pd_attr_to_disk(w->events[i].attr, attr);
		ids.size = w->events[i].nr_ids * sizeof(__u64);
		pd_buf_put(&b, attr, sizeof(attr));
		pd_buf_put(&b, &ids, sizeof(ids));
		ids.offset += ids.size;
	}
	for (i = 0; i < w->nr_events; i++)
		pd_buf_put(&b, w->events[i].ids, w->events[i].nr_ids * sizeof(__u64));
	w->data_offset = ids.offset;
	fill_header(w, &h);
	if (!b.err)
		memcpy(b.p, &h, sizeof(h));
	err = b.err ? b.err : write_all(w->fd, b.p, b.len, -1);
	pd_buf_free(&b);
	return err;
}

static int copy_event(struct pd_event *dst, const struct pd_event *src)
{
	struct perf_event_attr *attr = malloc(sizeof(*attr));
	__u64 *ids = malloc((src->nr_ids ? src->nr_ids : 1) * sizeof(*ids));

	dst->attr = attr;
	dst->ids = ids;
	dst->name = strdup(src->name ? src->name : "bpf-events");
	if (!attr || !ids || !dst->name)
		return -ENOMEM;
	*attr = *src->attr;
	memcpy(ids, src->ids, src->nr_ids * sizeof(*ids));
	dst->nr_ids = src->nr_ids;
	return 0;
}

/*
 * The reference times perf takes at the start (HEADER_CLOCK_DATA): the
 * wall clock and the events' clock read together, so that sample times
 * can be shown as dates.
 */
static void take_clock(struct pd_writer *w)
{
	const struct perf_event_attr *attr = w->events[0].attr;
	struct timespec res, tod, ref;

	if (!attr->use_clockid || clock_getres(attr->clockid, &res) ||
	    clock_gettime(CLOCK_REALTIME, &tod) || clock_gettime(attr->clockid, &ref))
		return;
	w->clock.valid = true;
	w->clock.clockid = attr->clockid;
	w->clock.res_ns = res.tv_sec * 1000000000ULL + res.tv_nsec;
	w->clock.tod_ns = tod.tv_sec * 1000000000ULL + tod.tv_nsec;
	w->clock.ref_ns = ref.tv_sec * 1000000000ULL + ref.tv_nsec;
}

static int copy_config(struct pd_writer *w, const struct pd_writer_config *cfg)
{
	size_t i;
	int err;

	w->events = calloc(cfg->nr_events, sizeof(*w->events));
	if (!w->events)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_events; i++) {
		w->nr_events++;
		err = copy_event(&w->events[i], &cfg->events[i]);
		if (!err)
			err = pd_evindex_add(&w->index, w->events[i].attr, w->events[i].ids,
					     w->events[i].nr_ids);
		if (err)
			return err;
	}
	if (cfg->argc > 0) {
		w->argv = calloc(cfg->argc, sizeof(char *));
		if (!w->argv)
			return -ENOMEM;
		w->argc = cfg->argc;
		for (i = 0; i < (size_t)cfg->argc; i++) {
			w->argv[i] = strdup(cfg->argv[i]);
			if (!w->argv[i])
				return -ENOMEM;
		}
	}
	w->stat = cfg->stat;
	if (cfg->version && !(w->version = strdup(cfg->version)))
		return -ENOMEM;
	take_clock(w);
	return 0;
}

static void writer_free(struct pd_writer *w)
{
	int i;

	if (w->fd >= 0 && w->own_fd)
		close(w->fd);
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->version);
	for (i = 0; i < (int)w->nr_events; i++) {
		free((void *)w->events[i].attr);
		free((void *)w->events[i].ids);
		free((void *)w->events[i].name);
	}
	free(w->events);
	pd_evindex_free(&w->index);
	pd_buf_free(&w->out);
	pd_fact_log_free(w->facts);
	free(w->win);
	pd_buf_free(&w->tracing_data);
	free(w);
}

static int pipe_start(struct pd_writer *w);
static int append_fact(void *ctx, __u32 feat, const struct pd_buf *entry, __u64 *off);
static int read_data(void *ctx, __u64 off, void *dst, size_t len);

static int writer_open(struct pd_writer **wp, int fd, int pipe_fd, const char *path,
		       const struct pd_writer_config *cfg)
{
	struct pd_writer *w;
	size_t i;
	int err;

	*wp = NULL;
	if (!cfg || !cfg->nr_events || !cfg->events || (cfg->argc > 0 && !cfg->argv))
		return -EINVAL;
	for (i = 0; i < cfg->nr_events; i++)
		if (!cfg->events[i].attr || (cfg->events[i].nr_ids && !cfg->events[i].ids))
			return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->pipe_fd = pipe_fd;
	w->facts = pd_fact_log_new(&(struct pd_fact_store){
		.append = append_fact, .read = read_data, .ctx = w });
	err = w->facts ? copy_config(w, cfg) : -ENOMEM;
	if (err)
		goto fail;
	w->fd = fd;
	if (path) {
		w->own_fd = true;
		w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (w->fd < 0) {
			err = -errno;
			goto fail;
		}
	}
	err = write_prologue(w);
	if (!err && pipe_fd >= 0)
		err = pipe_start(w);
	if (err)
		goto fail;
	*wp = w;
	return 0;
fail:
	writer_free(w);
	return err;
}

int pd_writer_open_fd(struct pd_writer **wp, int fd, const struct pd_writer_config *cfg)
{
	*wp = NULL;
	return fd < 0 ? -EBADF : writer_open(wp, fd, -1, NULL, cfg);
}

int pd_writer_open_pipe(struct pd_writer **wp, int fd, int pipe_fd,
			const struct pd_writer_config *cfg)
{
	*wp = NULL;
	return fd < 0 || pipe_fd < 0 ? -EBADF : writer_open(wp, fd, pipe_fd, NULL, cfg);
}

int pd_writer_open(struct pd_writer **wp, const char *path,
		   const struct pd_writer_config *cfg)
{
	*wp = NULL;
	return writer_open(wp, -1, -1, path, cfg);
}

int pd_writer_flush(struct pd_writer *w)
{
	__u64 size;
	int err;

	if (w->err)
		return w->err;
	if (w->out.err)
		return set_err(w, w->out.err);
	if (!w->out.len)
		return 0;
	err = write_all(w->fd, w->out.p, w->out.len, -1);
	if (!err && w->pipe_fd >= 0)
		err = pd_pipe_write(w->pipe_fd, w->out.p, w->out.len);
	if (err)
		return set_err(w, err);
	size = w->data_size + w->out.len;
	err = write_all(w->fd, &size, sizeof(size), PD_DATA_SIZE_OFFSET);
	if (err)
		return set_err(w, err);
	w->data_size = size;
	w->out.len = 0;
	return 0;
}

/* The time of a record, from its sample or trailer, as its event lays them out. */
static bool record_time(const struct pd_writer *w,
			const struct perf_event_header *rec, __u64 *time)
{
	int ev = pd_evindex_of_record(&w->index, rec);
	const struct perf_event_attr *attr;
	struct pd_sample s;
	const char *why;

	if (ev < 0 || rec->type >= PD_RECORD_USER_TYPE_START)
		return false;
	attr = w->events[ev].attr;
	if (!(attr->sample_type & PERF_SAMPLE_TIME))
		return false;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (pd_sample_decode(attr, rec + 1, rec->size - sizeof(*rec), &s, &why))
			return false;
	} else if (!attr->sample_id_all || pd_sample_id_decode(attr, rec, &s)) {
		return false;
	}
	*time = s.time;
	return true;
}

int pd_write_raw(struct pd_writer *w, const struct perf_event_header *rec)
{
	__u64 time, lost;

	if (w->err)
		return w->err;
	if (rec->size < sizeof(*rec) || rec->size % 8)
		return -EINVAL;
	if (rec->type == PERF_RECORD_LOST &&
	    rec->size >= sizeof(*rec) + 2 * sizeof(__u64)) {
		memcpy(&lost, (const char *)(rec + 1) + sizeof(__u64),
		       sizeof(lost));
		w->stats.lost += lost;
	}
	if (record_time(w, rec, &time) && time) {
		if (!w->first_time || time < w->first_time)
			w->first_time = time;
		if (time > w->last_time)
			w->last_time = time;
	}
	pd_buf_put(&w->out, rec, rec->size);
	w->stats.records++;
	w->stats.data_bytes += rec->size;
	if (w->out.len >= PD_WRITE_BATCH)
		return pd_writer_flush(w);
	return w->out.err ? set_err(w, w->out.err) : 0;
}

/* The event whose layout a record of sample @s takes: the first by default. */
static const struct perf_event_attr *attr_of(const struct pd_writer *w,
					     const struct pd_sample *s)
{
	int ev = s ? pd_evindex_of_id(&w->index, s->id) : 0;

	return w->events[ev < 0 ? 0 : ev].attr;
}

/* Append the record built in @b (header first, filled here) and free @b. */
static int append(struct pd_writer *w, struct pd_buf *b, __u32 type, __u16 misc)
{
	struct perf_event_header *h = (struct perf_event_header *)b->p;
	int err;

	if (!b->err && b->len > 0xffff)
		b->err = -E2BIG;
	if (!b->err) {
		h->type = type;
		h->misc = misc;
		h->size = b->len;
	}
	err = b->err ? b->err : pd_write_raw(w, h);
	pd_buf_free(b);
	return err;
}

/* Build header + body + trailer, then append it. */
static int emit(struct pd_writer *w, __u32 type, __u16 misc,
		const void *body, size_t body_len, const char *str,
		size_t str_room, const struct pd_sample *s)
{
	struct pd_buf b = { 0 };
	struct pd_sample none = { 0 };

	pd_buf_zero(&b, sizeof(struct perf_event_header));
	pd_buf_put(&b, body, body_len);
	if (str_room) {
		size_t len = strlen(str);

		pd_buf_put(&b, str, len);
		pd_buf_zero(&b, str_room - len);
	}
	pd_sample_id_encode(attr_of(w, s), s ? s : &none, &b);
	return append(w, &b, type, misc);
}

int pd_write_sample(struct pd_writer *w, __u16 misc, const struct pd_sample *s)
{
	const __u64 *ev = hashmap_find(&w->index.ids, s->id);
	struct pd_buf b = { 0 };

	/* a sample names its event instance: an id no event has is a bug */
	if (!ev)
		return -EINVAL;
	pd_buf_zero(&b, sizeof(struct perf_event_header));
	pd_sample_encode(w->events[*ev].attr, s, &b);
	return append(w, &b, PERF_RECORD_SAMPLE, misc);
}

/* Room for a NUL-terminated string padded to 8 bytes, as the kernel does. */
static size_t str_room(const char *s)
{
	return PD_ALIGN8(strlen(s) + 1);
}

int pd_write_bpf_event(struct pd_writer *w, __u16 type, __u16 flags,
		       __u32 id, const __u8 tag[BPF_TAG_SIZE],
		       const struct pd_sample *s)
{
	struct pd_bpf_event e = { .type = type, .flags = flags, .id = id };

	if (tag)
		memcpy(e.tag, tag, sizeof(e.tag));
	/* no description: the record as kernels before series v2 write it */
	return emit(w, PERF_RECORD_BPF_EVENT, 0, &e, PD_BPF_EVENT_FIXED, NULL, 0, s);
}

int pd_write_bpf_object(struct pd_writer *w, const struct pd_bpf_event *e,
			const struct pd_sample *s)
{
	__u8 body[PD_BPF_EVENT_FIXED + sizeof(e->desc)] = { 0 };
	__u16 flags = e->flags | e->marks;

	memcpy(body, &e->type, 2);
	memcpy(body + 2, &flags, 2);
	memcpy(body + 4, &e->id, 4);
	memcpy(body + 8, e->tag, BPF_TAG_SIZE);
	memcpy(body + PD_BPF_EVENT_FIXED, &e->desc, pd_bpf_desc_size(e->type));
	return emit(w, PERF_RECORD_BPF_EVENT, 0, body,
		    PD_BPF_EVENT_FIXED + pd_bpf_desc_size(e->type), NULL, 0, s);
}

int pd_write_ksymbol(struct pd_writer *w, __u64 addr, __u32 len,
		     __u16 ksym_type, __u16 flags, const char *name,
		     const struct pd_sample *s)
{
	struct {
		__u64 addr;
		__u32 len;
		__u16 ksym_type;
		__u16 flags;
	} body = {
		.addr = addr, .len = len, .ksym_type = ksym_type,
		.flags = flags,
	};

	if (!name)
		name = "";
	return emit(w, PERF_RECORD_KSYMBOL, 0, &body, sizeof(body), name,
		    str_room(name), s);
}

int pd_write_comm(struct pd_writer *w, __u32 pid, __u32 tid,
		  const char *comm, bool exec, const struct pd_sample *s)
{
	__u32 body[2] = { pid, tid };

	if (!comm)
		comm = "";
	return emit(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
		    body, sizeof(body), comm, str_room(comm), s);
}

int pd_write_mmap(struct pd_writer *w, const struct pd_mmap *m, __u16 misc,
		  const struct pd_sample *s)
{
	__u64 body[4];

	memcpy(body, &m->pid, sizeof(__u32));
	memcpy((__u32 *)body + 1, &m->tid, sizeof(__u32));
	body[1] = m->start;
	body[2] = m->len;
	body[3] = m->pgoff;
	return emit(w, PERF_RECORD_MMAP, misc, body, sizeof(body), m->filename,
		    str_room(m->filename), s);
}

int pd_write_mmap2(struct pd_writer *w, const struct pd_mmap2 *m, __u16 misc,
		   const struct pd_sample *s)
{
	__u64 body[8];
	__u32 *u32 = (__u32 *)body;

	u32[0] = m->pid;
	u32[1] = m->tid;
	body[1] = m->start;
	body[2] = m->len;
	body[3] = m->pgoff;
	u32[8] = m->maj;
	u32[9] = m->min;
	body[5] = m->ino;
	body[6] = m->ino_generation;
	u32[14] = m->prot;
	u32[15] = m->flags;
	return emit(w, PERF_RECORD_MMAP2, misc, body, sizeof(body), m->filename,
		    str_room(m->filename), s);
}

int pd_write_lost(struct pd_writer *w, __u64 id, __u64 lost,
		  const struct pd_sample *s)
{
	__u64 body[2] = { id, lost };

	return emit(w, PERF_RECORD_LOST, 0, body, sizeof(body), NULL, 0, s);
}

int pd_write_finished_round(struct pd_writer *w)
{
	struct perf_event_header h = {
		.type = PD_RECORD_FINISHED_ROUND,
		.size = sizeof(h),
	};
	int err = pd_write_raw(w, &h);

	return err ? err : pd_writer_flush(w);
}

/* The fact log's store (format.h: pd_fact_store): a PD_RECORD_FACTS record appended. */
static int append_fact(void *ctx, __u32 feat, const struct pd_buf *entry, __u64 *off)
{
	struct pd_writer *w = ctx;
	struct pd_fact_header h = {
		.header = { .type = PD_RECORD_FACTS },
		.magic = PD_EXT_MAGIC,
		.feat = feat,
	};
	size_t size = PD_ALIGN8(sizeof(h) + entry->len);

	if (size < PD_RECORD_FACTS_MIN)
		size = PD_RECORD_FACTS_MIN;

	if (w->err)
		return w->err;
	if (size > 0xffff)
		return -E2BIG;
	h.header.size = size;
	/* not a record of the recording: the stats do not count it */
	*off = w->data_size + w->out.len;
	pd_buf_put(&w->out, &h, sizeof(h));
	pd_buf_put(&w->out, entry->p, entry->len);
	pd_buf_zero(&w->out, size - sizeof(h) - entry->len);
	if (w->out.len >= PD_WRITE_BATCH)
		return pd_writer_flush(w);
	return w->out.err ? set_err(w, w->out.err) : 0;
}

int pd_writer_append_fact(struct pd_writer *w, __u32 feat, const struct pd_buf *entry,
			  __u64 *off)
{
	return append_fact(w, feat, entry, off);
}

/* The fact log's store: bytes of the data read back, through a window of the file. */
static int read_data(void *ctx, __u64 off, void *dst, size_t len)
{
	struct pd_writer *w = ctx;
	ssize_t n;
	int err;

	if (off + len > w->data_size && (err = pd_writer_flush(w)))
		return err;
	if (off + len > w->data_size)
		return -EIO;
	if (off < w->win_off || off + len > w->win_off + w->win_len) {
		if (len > PD_READ_WINDOW)
			return pread(w->fd, dst, len, w->data_offset + off) == (ssize_t)len ? 0 : -EIO;
		if (!w->win && !(w->win = malloc(PD_READ_WINDOW)))
			return -ENOMEM;
		w->win_len = 0;
		w->win_off = off;
		n = pread(w->fd, w->win, PD_READ_WINDOW, w->data_offset + off);
		if (n < (ssize_t)len)
			return -EIO;
		w->win_len = n;
	}
	memcpy(dst, w->win + (off - w->win_off), len);
	return 0;
}

/* An error of the disk stays: the recording ends; a fact too large does not. */
static int fact_err(struct pd_writer *w, int err)
{
	return err && err != -E2BIG ? set_err(w, err) : err;
}

int pd_writer_add_prog(struct pd_writer *w, const struct pd_prog *p)
{
	return fact_err(w, pd_fact_log_prog(w->facts, p));
}

int pd_writer_add_map(struct pd_writer *w, const struct pd_map *m)
{
	return fact_err(w, pd_fact_log_map(w->facts, m));
}

int pd_writer_add_link(struct pd_writer *w, const struct pd_link *l)
{
	return fact_err(w, pd_fact_log_link(w->facts, l));
}

int pd_writer_add_btf(struct pd_writer *w, const struct pd_btf *b)
{
	return fact_err(w, pd_fact_log_btf(w->facts, b));
}

int pd_writer_add_loader(struct pd_writer *w, const struct pd_loader *d)
{
	return fact_err(w, pd_fact_log_loader(w->facts, d));
}

int pd_writer_set_capture(struct pd_writer *w, const struct pd_capture *c)
{
	return fact_err(w, pd_fact_log_capture(w->facts, c));
}

int pd_writer_fact(struct pd_writer *w, enum pd_kind kind, __u32 id, void *fact)
{
	return pd_fact_log_read(w->facts, kind, id, fact);
}

bool pd_writer_has_fact(const struct pd_writer *w, enum pd_kind kind, __u32 id)
{
	return pd_fact_log_has(w->facts, kind, id);
}

void pd_writer_give_tracing_data(struct pd_writer *w, void *data, size_t len)
{
	pd_buf_free(&w->tracing_data);
	w->tracing_data = (struct pd_buf){ .p = data, .len = len, .cap = len };
}

void pd_writer_stats(const struct pd_writer *w, struct pd_writer_stats *st)
{
	*st = w->stats;
}

/* Features in bit order, as perf expects their sections in the table. */
static const int features[] = {
	PD_HEADER_TRACING_DATA, PD_HEADER_HOSTNAME, PD_HEADER_OSRELEASE, PD_HEADER_VERSION,
	PD_HEADER_ARCH, PD_HEADER_NRCPUS, PD_HEADER_CPUDESC,
	PD_HEADER_TOTAL_MEM, PD_HEADER_CMDLINE, PD_HEADER_EVENT_DESC,
	PD_HEADER_STAT, PD_HEADER_SAMPLE_TIME, PD_HEADER_CLOCKID, PD_HEADER_BPF_PROG_INFO,
	PD_HEADER_BPF_BTF, PD_HEADER_CLOCK_DATA, PD_FEAT_BPFREC,
};

#define NR_FEATURES	(sizeof(features) / sizeof(features[0]))

static bool streamed(int feat)
{
	return feat == PD_HEADER_BPF_PROG_INFO || feat == PD_HEADER_BPF_BTF ||
	       feat == PD_FEAT_BPFREC;
}

/*
 * The table of the features present, then their sections.  The facts
 * features are streamed from the data, never whole in memory: room is
 * left for a table of every feature, the sections follow it.
 */
static void feat_input(const struct pd_writer *w, struct pd_feat_input *in)
{
	*in = (struct pd_feat_input){
		.cfg = {
			.events = w->events,
			.nr_events = w->nr_events,
			.argc = w->argc,
			.argv = w->argv,
			.stat = w->stat,
			.version = w->version,
		},
		.clock = w->clock,
		.first_time = w->first_time,
		.last_time = w->last_time,
	};
}

/*
 * Pipe mode's start: the header, the attrs, and every feature of the
 * stream but the samples' time span, which is known only at the end.
 */
static int pipe_start(struct pd_writer *w)
{
	struct pd_feat_input in;
	struct pd_buf b = { 0 };
	size_t i;
	int err;

	feat_input(w, &in);
	err = pd_pipe_header(w->pipe_fd, w->events, w->nr_events);
	for (i = 0; !err && i < NR_FEATURES; i++)
		if (pd_pipe_feature(features[i]) && features[i] != PD_HEADER_SAMPLE_TIME)
			err = pd_pipe_put_feature(w->pipe_fd, features[i], &in, &b);
	pd_buf_free(&b);
	return err < 0 ? err : 0;
}

/* Pipe mode's end: the data flushed, then the samples' time span. */
static int pipe_close(struct pd_writer *w)
{
	struct pd_feat_input in;
	struct pd_buf b = { 0 };
	int err;

	/* perf warns about a stream without records: never leave one. */
	if (!w->err && !w->stats.records)
		pd_write_finished_round(w);
	err = pd_writer_flush(w);
	feat_input(w, &in);
	if (!err)
		err = pd_pipe_put_feature(w->pipe_fd, PD_HEADER_SAMPLE_TIME, &in, &b);
	pd_buf_free(&b);
	writer_free(w);
	return err < 0 ? err : 0;
}

static int write_features(struct pd_writer *w, struct pd_file_header *h)
{
	struct pd_feat_input in;
	struct pd_file_section table[NR_FEATURES];
	__u64 feat_offset = w->data_offset + w->data_size;
	struct pd_out o = { .fd = w->fd, .pos = feat_offset + sizeof(table) };
	struct pd_buf b = { 0 };
	size_t i, n = 0;
	__u64 start;
	int ret = 0;

	feat_input(w, &in);
	for (i = 0; i < NR_FEATURES && ret >= 0; i++) {
		/* Sections start 8-byte aligned: BPFREC pads relative to it. */
		pd_out_align8(&o);
		start = pd_out_tell(&o);
		if (streamed(features[i])) {
			ret = pd_fact_log_feature(w->facts, features[i], &o);
		} else if (features[i] == PD_HEADER_TRACING_DATA) {
			/* megabytes of kallsyms: written as they are */
			ret = w->tracing_data.len > 0;
			if (ret)
				pd_out_put(&o, w->tracing_data.p, w->tracing_data.len);
		} else {
			b.len = 0;
			ret = pd_feat_encode(features[i], &in, &b);
			ret = b.err ? b.err : ret;
			if (ret > 0)
				pd_out_put(&o, b.p, b.len);
		}
		if (ret <= 0)
			continue;
		table[n].offset = start;
		table[n].size = pd_out_tell(&o) - start;
		h->features[features[i] / 64] |= 1ULL << (features[i] % 64);
		n++;
	}
	pd_buf_free(&b);
	if (pd_out_flush(&o) && ret >= 0)
		ret = o.err;
	pd_buf_free(&o.buf);
	if (ret < 0)
		return ret;
	return write_all(w->fd, table, n * sizeof(table[0]), feat_offset);
}

int pd_writer_close(struct pd_writer *w)
{
	struct pd_file_header h;
	int err;

	/* the stream is the recording: its store is the caller's to discard */
	if (w->pipe_fd >= 0)
		return pipe_close(w);
	/* perf warns about an empty data section: never leave one. */
	if (!w->err && !w->stats.records)
		pd_write_finished_round(w);
	err = pd_writer_flush(w);
	fill_header(w, &h);
	if (!err)
		err = write_features(w, &h);
	/* The header goes last: with features set, the file is final. */
	if (!err)
		err = write_all(w->fd, &h, sizeof(h), 0);
	if (w->own_fd && close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	writer_free(w);
	return err;
}
