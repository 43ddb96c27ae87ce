// SPDX-License-Identifier: GPL-2.0
/*
 * The lifecycle of a recording's BPF objects, gathered from one reading
 * of the file (util/lifecycle.h): objects are described from the facts
 * the file stores, else from their records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/lifecycle.h"

/* who created the kernel's own BTF */
#define KERNEL_CREATOR		"(kernel)"

/* Kind, then id, then time: how survivors are listed. */
static int obj_cmp(const void *a, const void *b)
{
	const struct lc_obj *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void set_type(struct lc_obj *o, const char *s, const char *kind,
		     __u32 type)
{
	if (s)
		snprintf(o->type, sizeof(o->type), "%s", s);
	else
		snprintf(o->type, sizeof(o->type), "%s_type_%u", kind, type);
}

/* Type, name, creator and marks of @o from the stored facts, else the record. */
static void describe(struct lc_obj *o, const struct timeline *tl,
		     const struct tl_event *e)
{
	struct pd_reader *rd = tl->reader;
	const struct pd_origin *origin = NULL;
	/* without facts, a record that describes its object resolves it */
	__u32 flags = e->bpf.described ? 0 : PD_F_UNRESOLVED;

	switch (o->kind) {
	case PD_PROG: {
		const struct pd_prog *p = pd_reader_prog(rd, o->id);

		if (p) {
			flags = p->flags;
			origin = &p->origin;
			snprintf(o->name, sizeof(o->name), "%s", p->name);
			set_type(o, libbpf_bpf_prog_type_str(p->type), "prog",
				 p->type);
		}
		break;
	}
	case PD_MAP: {
		const struct pd_map *m = pd_reader_map(rd, o->id);
		__u32 t = m ? m->type : e->bpf.flags;

		if (m) {
			flags = m->flags;
			origin = &m->origin;
			snprintf(o->name, sizeof(o->name), "%s", m->name);
		}
		if (!o->name[0] && e->bpf.described)
			snprintf(o->name, sizeof(o->name), "%s", e->bpf.desc.map.name);
		set_type(o, libbpf_bpf_map_type_str(t), "map", t);
		break;
	}
	case PD_LINK: {
		const struct pd_link *l = pd_reader_link(rd, o->id);
		__u32 t = l ? l->type : e->bpf.flags;

		if (l) {
			flags = l->flags;
			origin = &l->origin;
			o->target = l->target[0] ? strndup(l->target, sizeof(l->target)) : NULL;
		}
		set_type(o, libbpf_bpf_link_type_str(t), "link", t);
		break;
	}
	default: {
		const struct pd_btf *b = pd_reader_btf(rd, o->id);

		if (b) {
			flags = b->flags;
			origin = &b->origin;
			snprintf(o->name, sizeof(o->name), "%s", b->name);
		}
		if (!o->name[0])
			snprintf(o->name, sizeof(o->name), "%s", pd_bpf_btf_name(&e->bpf));
		if (!(e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL))
			snprintf(o->type, sizeof(o->type), "user");
		else if (e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_MODULE)
			snprintf(o->type, sizeof(o->type), "module");
		else
			snprintf(o->type, sizeof(o->type), "kernel");
		break;
	}
	}
	o->unresolved = flags & PD_F_UNRESOLVED;
	o->synthesised = flags & PD_F_SYNTHESISED;
	o->self = flags & PD_F_SELF;
	if (o->unresolved && o->kind == PD_PROG)
		snprintf(o->type, sizeof(o->type), "unresolved");
	if (origin)
		o->loader = pd_reader_loader(rd, origin->loader);
	/* the event's comm lives until the next one: the obj keeps a copy */
	if (o->self) {
		o->pid = origin->pid;
		o->comm = strdup(TL_SELF_NAME);
	} else if (origin && origin->comm[0]) {
		o->pid = origin->pid;
		o->comm = strdup(origin->comm);
	} else if (origin && origin->pid && (!e->has_sample || e->sample.pid != origin->pid)) {
		o->pid = origin->pid;
		o->comm = strdup("");
	} else if (o->kind == PD_BTF && e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL &&
		   (!e->has_sample || !e->sample.pid)) {
		/* vmlinux's, a module's loaded before: no task made them */
		o->comm = strdup(KERNEL_CREATOR);
	} else if (e->has_sample) {
		o->pid = e->sample.pid;
		if (timeline_comm(tl, e))
			o->comm = strdup(timeline_comm(tl, e));
	}
}

/*
 * A LINK_DETACH or LINK_UPDATE: counted by the link's type (in the
 * record's flags), on its link, and kept with who made it.
 */
static int link_changed(struct lifecycle *c, const struct timeline *tl,
			const struct tl_event *e)
{
	bool update = e->bpf.type == PERF_BPF_EVENT_LINK_UPDATE;
	__u64 *n = hashmap_add(&c->link_changes, (__u64)e->bpf.flags << 1 | update, NULL);
	__u64 *latest = hashmap_find(&c->open, (__u64)PD_LINK << 32 | e->bpf.id);
	struct lc_change *ch;

	if (!n)
		return -ENOMEM;
	(*n)++;
	if (latest && update)
		c->objs[*latest].updates++;
	else if (latest)
		c->objs[*latest].detaches++;
	if (array_room(&c->changes, &c->cap_changes, c->nr_changes, sizeof(*c->changes)))
		return -ENOMEM;
	ch = &c->changes[c->nr_changes++];
	memset(ch, 0, sizeof(*ch));
	if (!e->has_sample)
		return 0;
	ch->pid = e->sample.pid;
	ch->loader = pd_reader_loader_of(tl->reader, e->sample.tid, e->sample.time);
	if (timeline_comm(tl, e))
		ch->comm = strdup(timeline_comm(tl, e));
	return 0;
}

/*
 * A BPF record pairs with the open lifetime of its id: a release closes
 * it, a creation starts a new one, and so does a release without one.
 * A link detached or updated lives on until its LINK_RELEASE.
 */
static int add_change(struct lifecycle *c, const struct timeline *tl,
		      const struct tl_event *e)
{
	enum pd_bpf_change change;
	enum pd_kind kind;
	bool create, added;
	struct lc_obj *o;
	__u64 *latest;

	if (e->type != PERF_RECORD_BPF_EVENT || !pd_bpf_event_kind(e->bpf.type, &kind, &change))
		return 0;
	if (change == PD_BPF_CHANGE) {
		int err = link_changed(c, tl, e);

		/* a legacy attachment (no link, no LINK_RELEASE) ends at its detach */
		if (err || !(e->bpf.marks & PD_BPF_EVENT_FLAG_LEGACY))
			return err;
		change = PD_BPF_RELEASE;
	}
	create = change == PD_BPF_CREATE;
	c->recorded[kind] = true;
	latest = hashmap_add(&c->open, (__u64)kind << 32 | e->bpf.id, &added);
	if (!latest)
		return -ENOMEM;
	o = added ? NULL : &c->objs[*latest];
	if (!create && o && !o->destroyed) {
		o->destroyed = true;
		o->t_destroy = e->sample.time;
		return 0;
	}
	if (array_room(&c->objs, &c->cap, c->nr, sizeof(*c->objs)))
		return -ENOMEM;
	*latest = c->nr;
	o = &c->objs[c->nr++];
	memset(o, 0, sizeof(*o));
	o->kind = (enum pd_kind)kind;
	o->id = e->bpf.id;
	o->seq = tl->nr;
	if (create) {
		o->created = true;
		o->t_create = e->sample.time;
	} else {
		o->destroyed = true;
		o->t_destroy = e->sample.time;
	}
	describe(o, tl, e);
	return 0;
}

/* Read the file once, in time order: lifetimes, losses, times. */
int lifecycle_collect(struct timeline *tl, struct lifecycle *c, char *err, size_t errlen)
{
	const struct pd_capture *cap;
	struct tl_event e;
	int k, ret;

	while ((ret = timeline_next(tl, &e, err, errlen)) > 0) {
		c->nr_records++;
		if (e.type == PERF_RECORD_LOST) {
			c->lost += e.lost;
			c->nr_lost++;
		}
		if (e.has_sample && e.sample.time) {
			if (!c->first)
				c->first = e.sample.time;
			c->last = e.sample.time;
		}
		if (add_change(c, tl, &e)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (!ret && c->nr)
		qsort(c->objs, c->nr, sizeof(*c->objs), obj_cmp);
	cap = pd_reader_capture(tl->reader);
	for (k = 0; k < PD_NR_KINDS; k++)
		c->recorded[k] = k == PD_PROG || c->recorded[k] ||
				 (cap && cap->flags & PD_CAP_BPF_OBJ_EVENT);
	return ret;
}

void lifecycle_free(struct lifecycle *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->objs[i].comm);
		free(c->objs[i].target);
	}
	free(c->objs);
	for (i = 0; i < c->nr_changes; i++)
		free(c->changes[i].comm);
	free(c->changes);
	hashmap_free(&c->open);
	hashmap_free(&c->link_changes);
}
/* --comm: only the objects their tasks created (the recorder's own stay apart). */
void lifecycle_only_comms(struct lifecycle *c, const char *const *comms, size_t nr_comms)
{
	size_t i, j, n = 0;

	if (!nr_comms)
		return;
	for (i = 0; i < c->nr; i++) {
		for (j = 0; j < nr_comms; j++)
			if (c->objs[i].comm && !strcmp(c->objs[i].comm, comms[j]))
				break;
		if (j < nr_comms) {
			c->objs[n++] = c->objs[i];
		} else {
			free(c->objs[i].comm);
			free(c->objs[i].target);
		}
	}
	c->nr = n;
}
