// SPDX-License-Identifier: GPL-2.0
/*
 * Time-ordered view of a perf.data for script and report.  Records from
 * different CPUs arrive interleaved (perf drains one ring after another),
 * so they are sorted by time, file order breaking ties; the comm of each
 * task is then followed through its COMM records in that order, so an
 * exec that renames a task applies from the right moment on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "util/hashmap.h"
#include "util/timeline.h"

struct slot {
	struct tl_event ev;
	size_t seq;
	char *comm;			/* COMM records only */
};

/* The comm of @tid in @comms (tid -> the string), NULL when unnamed. */
static const char *comm_get(const struct hashmap *comms, __u32 tid)
{
	__u64 *comm = hashmap_find(comms, tid);

	return comm ? (const char *)(uintptr_t)*comm : NULL;
}

static int comm_set(struct hashmap *comms, __u32 tid, const char *comm)
{
	__u64 *val = hashmap_add(comms, tid, NULL);

	if (!val)
		return -ENOMEM;
	*val = (uintptr_t)comm;
	return 0;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->ev.sample.time != y->ev.sample.time)
		return x->ev.sample.time < y->ev.sample.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Keep what script and report show, and COMM records to name tasks. */
static int take(struct slot *s, const struct pd_record *rec)
{
	memset(s, 0, sizeof(*s));
	s->ev.type = rec->type;
	s->ev.has_sample = rec->has_sample;
	s->ev.sample = rec->sample;
	switch (rec->type) {
	case PERF_RECORD_BPF_EVENT:
		s->ev.bpf = rec->bpf;
		return 1;
	case PERF_RECORD_KSYMBOL:
		/* The reader's string lives until its next record only. */
		s->ev.ksymbol = rec->ksymbol;
		s->ev.ksymbol.name = strdup(rec->ksymbol.name);
		return s->ev.ksymbol.name ? 1 : -ENOMEM;
	case PERF_RECORD_LOST:
		s->ev.lost = rec->lost.lost;
		return 1;
	case PERF_RECORD_COMM:
		/* The comm names the task from this record's time on. */
		s->ev.sample.tid = rec->comm.tid;
		s->comm = strdup(rec->comm.comm);
		return s->comm ? 1 : -ENOMEM;
	}
	return 0;
}

static void free_slots(struct slot *slots, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(slots[i].comm);
		if (slots[i].ev.type == PERF_RECORD_KSYMBOL)
			free((char *)slots[i].ev.ksymbol.name);
	}
	free(slots);
}

static int read_all(struct timeline *tl, struct slot **slotsp, size_t *nrp,
		    char *err, size_t errlen)
{
	struct slot *slots = NULL, *n;
	size_t nr = 0, cap = 0;
	struct pd_record rec;
	int ret;

	while ((ret = pd_reader_next(tl->reader, &rec)) > 0) {
		if (nr == cap) {
			cap = cap ? cap * 2 : 1024;
			n = realloc(slots, cap * sizeof(*slots));
			if (!n) {
				ret = -ENOMEM;
				break;
			}
			slots = n;
		}
		ret = take(&slots[nr], &rec);
		if (ret < 0)
			break;
		slots[nr].seq = nr;
		nr += ret;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", ret == -ENOMEM ? "out of memory" :
			 pd_reader_error(tl->reader));
		free_slots(slots, nr);
		return ret;
	}
	*slotsp = slots;
	*nrp = nr;
	return 0;
}

/* The addresses KSYMBOL records give the recorder's own programs. */
static int self_addrs(struct timeline *tl)
{
	const struct pd_facts *f = tl->facts;
	size_t i, n = 0;
	__u32 j;

	for (i = 0; i < f->nr_progs; i++) {
		if (f->progs[i].flags & PD_F_SELF)
			n += f->progs[i].nr_ksyms;
	}
	if (!n)
		return 0;
	tl->self_addrs = calloc(n, sizeof(*tl->self_addrs));
	if (!tl->self_addrs)
		return -ENOMEM;
	for (i = 0; i < f->nr_progs; i++) {
		const struct pd_prog *p = &f->progs[i];

		for (j = 0; (p->flags & PD_F_SELF) && j < p->nr_ksyms; j++)
			tl->self_addrs[tl->nr_self_addrs++] = p->ksym_addrs[j];
	}
	return 0;
}

int timeline_load(struct timeline *tl, const char *path, char *err,
		  size_t errlen)
{
	struct hashmap map = { 0 };
	struct slot *slots;
	size_t i, nr;
	int ret;

	memset(tl, 0, sizeof(*tl));
	tl->reader = pd_reader_open(path, err, errlen);
	if (!tl->reader)
		return -EINVAL;
	tl->facts = pd_reader_facts(tl->reader);
	tl->info = pd_reader_info(tl->reader);
	if (self_addrs(tl)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	ret = read_all(tl, &slots, &nr, err, errlen);
	if (ret)
		goto fail;
	if (nr)
		qsort(slots, nr, sizeof(*slots), slot_cmp);

	tl->ev = calloc(nr ? nr : 1, sizeof(*tl->ev));
	tl->comms = calloc(nr ? nr : 1, sizeof(*tl->comms));
	if (!tl->ev || !tl->comms)
		ret = -ENOMEM;
	for (i = 0; !ret && i < nr; i++) {
		struct slot *s = &slots[i];

		if (s->comm) {
			tl->comms[tl->nr_comms++] = s->comm;
			ret = comm_set(&map, s->ev.sample.tid, s->comm);
			s->comm = NULL;
			continue;
		}
		tl->ev[tl->nr] = s->ev;
		if (s->ev.has_sample)
			tl->ev[tl->nr].comm = comm_get(&map, s->ev.sample.tid);
		tl->nr++;
		/* The name now belongs to the timeline. */
		s->ev.type = 0;
	}
	hashmap_free(&map);
	free_slots(slots, nr);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	timeline_free(tl);
	return ret;
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	for (i = 0; tl->ev && i < tl->nr; i++) {
		if (tl->ev[i].type == PERF_RECORD_KSYMBOL)
			free((char *)tl->ev[i].ksymbol.name);
	}
	for (i = 0; i < tl->nr_comms; i++)
		free(tl->comms[i]);
	free(tl->comms);
	free(tl->self_addrs);
	free(tl->ev);
	pd_reader_close(tl->reader);
	memset(tl, 0, sizeof(*tl));
}

/* The creator of the object BPF record @e is about, and the fact's flags. */
static const struct pd_origin *creator(const struct pd_facts *f,
				       const struct tl_event *e, __u32 *flags)
{
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;

	*flags = 0;
	if (e->type != PERF_RECORD_BPF_EVENT)
		return NULL;
	switch (e->bpf.type) {
	case PERF_BPF_EVENT_PROG_LOAD:
	case PERF_BPF_EVENT_PROG_UNLOAD:
		p = pd_facts_prog(f, e->bpf.id);
		*flags = p ? p->flags : 0;
		return p ? &p->origin : NULL;
	case PERF_BPF_EVENT_MAP_CREATE:
	case PERF_BPF_EVENT_MAP_FREE:
		m = pd_facts_map(f, e->bpf.id);
		*flags = m ? m->flags : 0;
		return m ? &m->origin : NULL;
	case PERF_BPF_EVENT_LINK_ATTACH:
	case PERF_BPF_EVENT_LINK_DETACH:
		l = pd_facts_link(f, e->bpf.id);
		*flags = l ? l->flags : 0;
		return l ? &l->origin : NULL;
	case PERF_BPF_EVENT_BTF_LOAD:
	case PERF_BPF_EVENT_BTF_UNLOAD:
		b = pd_facts_btf(f, e->bpf.id);
		*flags = b ? b->flags : 0;
		return b ? &b->origin : NULL;
	}
	return NULL;
}

const char *timeline_comm(const struct timeline *tl, const struct tl_event *e)
{
	const struct pd_origin *o;
	__u32 flags;

	if (e->comm)
		return e->comm;
	/* The creator's comm names records from the creating process. */
	o = creator(tl->facts, e, &flags);
	if (o && o->comm[0] && e->has_sample && o->pid == e->sample.pid)
		return o->comm;
	return NULL;
}

bool timeline_self(const struct timeline *tl, const struct tl_event *e)
{
	__u32 flags;
	size_t i;

	if (e->type == PERF_RECORD_KSYMBOL) {
		for (i = 0; i < tl->nr_self_addrs; i++) {
			if (tl->self_addrs[i] == e->ksymbol.addr)
				return true;
		}
		return false;
	}
	creator(tl->facts, e, &flags);
	return flags & PD_F_SELF;
}

void timeline_time(__u64 ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
}
