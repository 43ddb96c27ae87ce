// SPDX-License-Identifier: GPL-2.0
/*
 * `bpfrec stat -o FILE`: counts and lifecycle records kept until the end,
 * then written as `perf stat record` lays out a file (see stat_record.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/array.h"
#include "util/debug.h"
#include "util/out_file.h"
#include "util/perf_data/perf_data.h"
#include "util/stat_count.h"
#include "util/stat_events.h"
#include "util/stat_progs.h"
#include "util/stat_record.h"

/* Counters get ids from here on: perf only needs them distinct. */
#define SR_FIRST_ID	1

int stat_record_counter(struct stat_record *sr, __u64 key, const char *name,
			const struct perf_event_attr *attr)
{
	struct sr_counter *c;
	bool created;
	__u64 *slot;

	slot = hashmap_add(&sr->by_key, key, &created);
	if (!slot)
		return -ENOMEM;
	if (!created)
		return *slot - 1;
	if (array_room(&sr->c, &sr->cap_c, sr->nr_c, sizeof(*sr->c)))
		goto nomem;
	c = &sr->c[sr->nr_c];
	c->name = strdup(name);
	if (!c->name)
		goto nomem;
	c->attr = *attr;
	c->attr.size = sizeof(c->attr);
	/*
	 * One layout for every event, as perf wants of a file: the
	 * lifecycle records carry the time and the id of the first one.
	 */
	c->attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;
	c->attr.sample_id_all = 1;
	c->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	c->id = SR_FIRST_ID + sr->nr_c;
	*slot = ++sr->nr_c;
	return sr->nr_c - 1;
nomem:
	/* the key stays known but unusable: forget it */
	*slot = 0;
	return -ENOMEM;
}

int stat_record_value(struct stat_record *sr, int counter, __u64 val, __u64 ena, __u64 run)
{
	if (array_room(&sr->v, &sr->cap_v, sr->nr_v, sizeof(*sr->v)))
		return -ENOMEM;
	sr->v[sr->nr_v++] = (struct sr_value){ counter, val, ena, run };
	return 0;
}

int stat_record_round(struct stat_record *sr, __u64 time)
{
	if (array_room(&sr->r, &sr->cap_r, sr->nr_r, sizeof(*sr->r)))
		return -ENOMEM;
	sr->r[sr->nr_r++] = (struct sr_mark){ sr->nr_v, sr->nr_e, time };
	return 0;
}

int stat_record_bpf(struct stat_record *sr, __u16 type, __u32 id,
		    const __u8 tag[BPF_TAG_SIZE], __u64 time)
{
	struct sr_bpf *e;

	if (array_room(&sr->e, &sr->cap_e, sr->nr_e, sizeof(*sr->e)))
		return -ENOMEM;
	e = &sr->e[sr->nr_e++];
	e->type = type;
	e->id = id;
	memcpy(e->tag, tag, BPF_TAG_SIZE);
	e->time = time;
	return 0;
}

int stat_record_prog(struct stat_record *sr, const struct pd_prog *p)
{
	struct pd_prog *q;

	if (array_room(&sr->p, &sr->cap_p, sr->nr_p, sizeof(*sr->p)))
		return -ENOMEM;
	q = &sr->p[sr->nr_p++];
	memset(q, 0, sizeof(*q));
	q->id = p->id;
	q->flags = p->flags;
	q->type = p->type;
	memcpy(q->tag, p->tag, sizeof(q->tag));
	memcpy(q->name, p->name, sizeof(q->name));
	q->load_time = p->load_time;
	q->origin = p->origin;
	return 0;
}

int stat_record_hist(struct stat_record *sr, __u32 id, const char *name, const __u64 *hist,
		     __u64 max)
{
	struct pd_hist *h = realloc(sr->h, (sr->nr_h + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	sr->h = h;
	h = &sr->h[sr->nr_h++];
	memset(h, 0, sizeof(*h));
	h->id = id;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->max_ns = max;
	memcpy(h->buckets, hist, sizeof(h->buckets));
	return 0;
}

static int write_rounds(struct stat_record *sr, struct pd_writer *w)
{
	struct pd_sample s = { .id = SR_FIRST_ID };
	size_t i, v = 0, e = 0;
	int err = 0;

	for (i = 0; !err && i < sr->nr_r; i++) {
		for (; !err && e < sr->r[i].end_bpf; e++) {
			s.time = sr->e[e].time;
			err = pd_write_bpf_event(w, sr->e[e].type, 0, sr->e[e].id, sr->e[e].tag, &s);
		}
		for (; !err && v < sr->r[i].end; v++)
			err = pd_write_stat(w, sr->c[sr->v[v].counter].id, sr->v[v].val,
					    sr->v[v].ena, sr->v[v].run);
		/* perf stat record ends a run without -I with one FINAL round */
		if (!err)
			err = pd_write_stat_round(w, sr->interval_ms ? PD_STAT_ROUND_INTERVAL :
						  PD_STAT_ROUND_FINAL, sr->r[i].time);
	}
	return err;
}

static int write_file(struct stat_record *sr, const char *path, int argc, char **argv)
{
	struct pd_event *ev = calloc(sr->nr_c, sizeof(*ev));
	struct pd_writer_config cfg = {
		.events = ev, .nr_events = sr->nr_c, .argc = argc, .argv = argv, .stat = true,
		.version = sr->version,
	};
	struct out_file out;
	struct pd_writer *w;
	const char *why;
	size_t i;
	int err;

	if (!ev)
		return -ENOMEM;
	for (i = 0; i < sr->nr_c; i++)
		ev[i] = (struct pd_event){ &sr->c[i].attr, sr->c[i].name, &sr->c[i].id, 1 };
	err = out_file_open(&out, path, &why);
	if (!err)
		err = pd_writer_open_fd(&w, out.fd, &cfg);
	free(ev);
	if (err) {
		if (why)
			errmsg_set(err, "cannot write %s: %s", path, why);
		out_file_abort(&out);
		return err;
	}
	for (i = 0; !err && i < sr->nr_p; i++)
		err = pd_writer_add_prog(w, &sr->p[i]);
	if (!err)
		err = pd_write_stat_config(w, sr->interval_ms);
	if (!err)
		err = pd_write_stat_maps(w, getpid(), "bpfrec");
	if (!err)
		err = write_rounds(sr, w);
	for (i = 0; !err && i < sr->nr_h; i++)
		err = pd_write_hist(w, &sr->h[i]);
	if (err) {
		pd_writer_close(w);
		out_file_abort(&out);
		return err;
	}
	/* written whole or not at all: the previous file stays as FILE.old */
	err = pd_writer_close(w);
	if (err) {
		out_file_abort(&out);
		return err;
	}
	return out_file_commit(&out, true);
}

/* A counter of bpfrec's own: its values are what the caller says. */
static const struct perf_event_attr own_attr = {
	.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
};

int stat_record_counts(struct stat_record *sr, const struct stat_count *c, int n,
		       __u64 elapsed)
{
	char name[160];
	int i, k, err = 0;

	for (i = 0; !err && i < n; i++, c++) {
		snprintf(name, sizeof(name), c->who ? "%s:%s" : "%s", c->ev->name, c->who);
		k = stat_record_counter(sr, 2 * i, name, &c->ev->attr);
		err = k < 0 ? k : stat_record_value(sr, k, c->v.counter, c->v.enabled,
						    c->v.running);
		if (err || !c->has_runs)
			continue;
		snprintf(name, sizeof(name), "runs:%s", c->who ? c->who : "");
		k = stat_record_counter(sr, 2 * i + 1, name, &own_attr);
		err = k < 0 ? k : stat_record_value(sr, k, c->runs, c->v.enabled, c->v.running);
	}
	return err ? err : stat_record_round(sr, elapsed);
}

static int record_prog(struct stat_record *sr, const struct sp_prog *p, __u64 now, __u64 wall,
		       bool idle)
{
	struct pd_prog f = { .id = p->id, .type = p->type, .load_time = p->load_time,
			     .origin = p->loader };
	char name[SP_NAME_LEN + 32];
	int k, err = 0;

	if (p->born) {
		memcpy(f.tag, p->tag, sizeof(f.tag));
		/* the 16-byte name the kernel keeps; the counters carry the full one */
		memcpy(f.name, p->name, sizeof(f.name) - 1);
		err = stat_record_prog(sr, &f);
		if (!err)
			err = stat_record_bpf(sr, PERF_BPF_EVENT_PROG_LOAD, p->id, p->tag, now);
	}
	if (!err && p->state == SP_FREED)
		err = stat_record_bpf(sr, PERF_BPF_EVENT_PROG_UNLOAD, p->id, p->tag, now);
	if (err || (p->cnt == p->base_cnt && !idle))
		return err;
	snprintf(name, sizeof(name), "%s[%u]:runs", p->name, p->id);
	k = stat_record_counter(sr, (__u64)p->id << 1, name, &own_attr);
	err = k < 0 ? k : stat_record_value(sr, k, p->cnt - p->base_cnt, wall, wall);
	if (err)
		return err;
	snprintf(name, sizeof(name), "%s[%u]:run_ns", p->name, p->id);
	k = stat_record_counter(sr, (__u64)p->id << 1 | 1, name, &own_attr);
	return k < 0 ? k : stat_record_value(sr, k, p->ns - p->base_ns, wall, wall);
}

int stat_record_progs(struct stat_record *sr, const struct stat_progs *s, __u64 now, __u64 wall,
		      bool idle)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->nr; i++)
		if (s->p[i].id && s->p[i].state != SP_GONE)
			err = record_prog(sr, &s->p[i], now, wall, idle);
	return err ? err : stat_record_round(sr, wall);
}

int stat_record_write(struct stat_record *sr, const char *path, int argc, char **argv)
{
	int err;

	/* perf reads no file without events: a run that counted nothing says so */
	if (!sr->nr_c)
		return errmsg_set(-ENODATA, "nothing was counted, %s not written", path);
	err = write_file(sr, path, argc, argv);
	if (err)
		errmsg_set(err, "writing %s: %s", path, strerror(-err));
	return err;
}

void stat_record_free(struct stat_record *sr)
{
	size_t i;

	for (i = 0; i < sr->nr_c; i++)
		free(sr->c[i].name);
	free(sr->c);
	free(sr->v);
	free(sr->r);
	free(sr->e);
	free(sr->p);
	free(sr->h);
	hashmap_free(&sr->by_key);
	memset(sr, 0, sizeof(*sr));
}
