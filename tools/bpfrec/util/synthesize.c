// SPDX-License-Identifier: GPL-2.0
/*
 * Objects that exist when the recording starts produce no record: write
 * the records they would have produced (KSYMBOL + PROG_LOAD, and
 * MAP_CREATE, LINK_ATTACH, BTF_LOAD when the kernel has bpf_obj_event),
 * with their facts marked PD_F_SYNTHESISED, and for maps, links and BTF
 * the description a kernel with series v2 gives its records, built from
 * the facts (BPF_OBJ_GET_INFO_BY_FD, or the capture): every record of a
 * file looks alike, whether it came from the kernel or from here.  Runs after the events are
 * enabled and drained: an id whose record was seen (PD_F_RECORDED) is
 * left alone.  Captured facts are no such proof: the capture starts
 * before the events, and an object created in between has facts and no
 * record.  Those facts are kept, and only the records are written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "util/bpf_desc.h"
#include "util/bpf_meta.h"
#include "util/bpf_resolve.h"
#include "util/facts.h"
#include "util/gone_scan.h"
#include "util/sink.h"
#include "util/synthesize.h"

/* The symbol name the kernel gives a JIT image (bpf_get_prog_name()). */
static void ksym_name(const struct pd_prog *p, __u32 i, char *buf, size_t len)
{
	const __u8 *tag = p->sub_tags[i];
	int n;

	n = snprintf(buf, len, "bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x", tag[0], tag[1],
		     tag[2], tag[3], tag[4], tag[5], tag[6], tag[7]);
	if (i < p->nr_func_names)
		snprintf(buf + n, len - n, "_%s", p->func_names[i]);
	else if (!p->nr_func_info && p->name[0])
		snprintf(buf + n, len - n, "_%s", p->name);
}

/*
 * Captured facts of an object with no record: created between the
 * capture's start and the events'.  Without bpf_obj_event, maps, links
 * and BTF never have records, and their facts are only synthesised when
 * the capture did not see them come.
 */
static bool unrecorded(const struct synth_ctx *s, __u32 flags)
{
	return s->obj_events && !(flags & (PD_F_RECORDED | PD_F_SYNTHESISED));
}

static int synth_prog(struct synth_ctx *s, __u32 id)
{
	__u8 tag[BPF_TAG_SIZE];
	char name[256];
	struct pd_prog *p;
	bool created;
	__u32 i;
	int err;

	p = facts_prog(s->facts, id, &created);
	if (!p)
		return -ENOMEM;
	if (!created && (p->flags & (PD_F_RECORDED | PD_F_SYNTHESISED)))
		return 0;
	/* gone since get_next_id: it ended before the recording did start */
	if (!(p->flags & PD_F_CAPTURED) && resolve_prog(id, p))
		return 0;
	/* its metadata and instructions by id: the capture saw no load */
	if (!(p->flags & (PD_F_CAPTURED | PD_F_META)) && meta_resolve(p) == -ENOMEM)
		return -ENOMEM;
	if (!(p->flags & PD_F_CAPTURED) && s->sink && (err = sink_prog_xlated(s->sink, p)))
		return err;
	p->flags |= PD_F_SYNTHESISED;
	for (i = 0; i < p->nr_ksyms; i++) {
		ksym_name(p, i, name, sizeof(name));
		err = pd_write_ksymbol(s->w, p->ksym_addrs[i], p->ksym_lens[i],
				       PERF_RECORD_KSYMBOL_TYPE_BPF, 0, name, &s->sample);
		if (err)
			return err;
	}
	if (p->btf_id)
		facts_want_btf(s->facts, p->btf_id);
	memcpy(tag, p->tag, sizeof(tag));
	/* the facts first, so that no record is in the file without them */
	err = facts_write_now(s->facts, PD_PROG, id);
	if (err)
		return err;
	return pd_write_bpf_event(s->w, PERF_BPF_EVENT_PROG_LOAD, 0, id, tag, &s->sample);
}

/* A map's, link's or BTF's record, watched for its release when asked. */
static int written(struct synth_ctx *s, const struct pd_bpf_event *e)
{
	enum pd_bpf_change change;
	enum pd_kind kind;
	int err = pd_write_bpf_object(s->w, e, &s->sample);

	if (err || !s->scan || !pd_bpf_event_kind(e->type, &kind, &change))
		return err;
	return gone_track(s->scan, kind, e->id, s->sample.time);
}

static int synth_map(struct synth_ctx *s, __u32 id)
{
	struct pd_bpf_event e;
	struct pd_map *m;
	bool created;
	int err;

	m = facts_map(s->facts, id, &created);
	if (!m)
		return -ENOMEM;
	if (!created && !unrecorded(s, m->flags))
		return 0;
	if (!(m->flags & PD_F_CAPTURED) && resolve_map(id, m))
		return 0;
	m->flags |= PD_F_SYNTHESISED;
	if (!s->obj_events)
		return 0;
	map_to_desc(m, PERF_BPF_EVENT_MAP_CREATE, &e);
	err = facts_write_now(s->facts, PD_MAP, id);
	if (err)
		return err;
	return written(s, &e);
}

static int synth_link(struct synth_ctx *s, __u32 id)
{
	struct pd_bpf_event e;
	struct pd_link *l;
	bool created;
	int err;

	l = facts_link(s->facts, id, &created);
	if (!l)
		return -ENOMEM;
	if (!created && !unrecorded(s, l->flags))
		return 0;
	if (!(l->flags & PD_F_CAPTURED) && resolve_link(id, l))
		return 0;
	l->flags |= PD_F_SYNTHESISED;
	if (!s->obj_events)
		return 0;
	link_to_desc(l, PERF_BPF_EVENT_LINK_ATTACH, &e);
	err = facts_write_now(s->facts, PD_LINK, id);
	if (err)
		return err;
	return written(s, &e);
}

static int synth_btf(struct synth_ctx *s, __u32 id)
{
	struct pd_bpf_event e;
	struct pd_btf *b;
	bool created;
	int err;

	b = facts_btf(s->facts, id, &created);
	if (!b)
		return -ENOMEM;
	if (b->flags & (PD_F_RECORDED | PD_F_SYNTHESISED))
		return 0;
	if ((b->flags & PD_F_CAPTURED) && !unrecorded(s, b->flags))
		return 0;
	/* program BTFs were resolved with their data by synth_prog() */
	if (created && resolve_btf(id, b, false))
		return 0;
	b->flags |= PD_F_SYNTHESISED;
	if (!s->obj_events)
		return 0;
	btf_to_desc(b, PERF_BPF_EVENT_BTF_LOAD, &e);
	err = facts_write_now(s->facts, PD_BTF, id);
	if (err)
		return err;
	return written(s, &e);
}

static int for_each_id(int (*next)(__u32, __u32 *), int (*fn)(struct synth_ctx *, __u32),
		       struct synth_ctx *s)
{
	__u32 id = 0;
	int err;

	while (!next(id, &id)) {
		err = fn(s, id);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

int synth_existing(struct synth_ctx *s)
{
	int err;

	err = for_each_id(bpf_prog_get_next_id, synth_prog, s);
	if (!err)
		err = for_each_id(bpf_map_get_next_id, synth_map, s);
	if (!err)
		err = for_each_id(bpf_link_get_next_id, synth_link, s);
	if (!err)
		err = for_each_id(bpf_btf_get_next_id, synth_btf, s);
	return err;
}
