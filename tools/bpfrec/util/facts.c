// SPDX-License-Identifier: GPL-2.0
/*
 * The facts `bpfrec record` gathers, one entry per kind and id, merged
 * from the sources as they come.  An entry lives only until its facts
 * are written into the file (facts_write_now(), facts_flush()): a storm
 * is hundreds of thousands of objects, which the recorder must not hold.
 * An object asked for again after that (a late record, the marks of the
 * end) is read back from the file, updated, and written again; readers
 * take the last facts written of an id.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "util/bpf_resolve.h"
#include "util/facts.h"
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

/* An object not written yet, or read back to be updated. */
struct live {
	bool revived;		/* written before */
	union {
		struct pd_prog prog;
		struct pd_map map;
		struct pd_link link;
		struct pd_btf btf;
	} u;			/* every pd_* starts with id, flags */
};

struct kind {
	struct hashmap live;	/* id -> struct live *, 0 once written */
	size_t nr_live;
	size_t ids;		/* every id seen */
	size_t unresolved;	/* written unresolved, the first time */
};

struct facts {
	struct kind k[PD_NR_KINDS];
	struct pd_writer *w;	/* where they are written; NULL until set */
};


static __u32 *flags_of(struct live *o)
{
	return &o->u.prog.flags;
}

static void live_free(enum pd_kind kind, struct live *o)
{
	if (kind == PD_PROG)
		pd_prog_free_arrays(&o->u.prog);
	if (kind == PD_BTF)
		pd_btf_release(&o->u.btf);
	free(o);
}

/* The live entry of @id: read back when written before, else new if @create. */
static struct live *get(struct facts *f, enum pd_kind kind, __u32 id, bool create,
			bool *created)
{
	struct kind *k = &f->k[kind];
	__u64 *pos = hashmap_find(&k->live, id);
	struct live *o;

	if (created)
		*created = false;
	if (pos && *pos)
		return (struct live *)(uintptr_t)*pos;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	if (f->w && !pd_writer_fact(f->w, kind, id, &o->u)) {
		o->revived = true;
	} else if (create) {
		memset(&o->u, 0, sizeof(o->u));
		o->u.prog.id = id;
		k->ids++;
		if (created)
			*created = true;
	} else {
		free(o);
		return NULL;
	}
	pos = hashmap_add(&k->live, id, NULL);
	if (!pos) {
		live_free(kind, o);
		return NULL;
	}
	*pos = (uintptr_t)o;
	k->nr_live++;
	return o;
}

struct facts *facts_new(void)
{
	return calloc(1, sizeof(struct facts));
}

void facts_set_writer(struct facts *f, struct pd_writer *w)
{
	f->w = w;
}

struct pd_prog *facts_prog(struct facts *f, __u32 id, bool *created)
{
	struct live *o = get(f, PD_PROG, id, true, created);

	return o ? &o->u.prog : NULL;
}

struct pd_map *facts_map(struct facts *f, __u32 id, bool *created)
{
	struct live *o = get(f, PD_MAP, id, true, created);

	return o ? &o->u.map : NULL;
}

struct pd_link *facts_link(struct facts *f, __u32 id, bool *created)
{
	struct live *o = get(f, PD_LINK, id, true, created);

	return o ? &o->u.link : NULL;
}

struct pd_btf *facts_btf(struct facts *f, __u32 id, bool *created)
{
	struct live *o = get(f, PD_BTF, id, true, created);

	return o ? &o->u.btf : NULL;
}

void facts_want_btf(struct facts *f, __u32 id)
{
	bool created;
	struct pd_btf *b = facts_btf(f, id, &created);

	/* perf names sub-programs from this data (its BPF_BTF feature) */
	if (b && created)
		resolve_btf(id, b, true);
}

void facts_self_origin(struct pd_origin *origin)
{
	*origin = (struct pd_origin){ .pid = getpid(), .tid = getpid(), .uid = getuid() };
	prctl(PR_GET_NAME, origin->comm);
}

void facts_mark_self(struct facts *f, enum pd_kind kind, __u32 id,
		     const struct pd_origin *origin)
{
	struct live *o = get(f, kind, id, false, NULL);

	if (!o)
		return;
	*flags_of(o) |= PD_F_SELF;
	switch (kind) {
	case PD_PROG:
		o->u.prog.origin = *origin;
		break;
	case PD_MAP:
		o->u.map.origin = *origin;
		break;
	case PD_LINK:
		o->u.link.origin = *origin;
		break;
	default:
		o->u.btf.origin = *origin;
		break;
	}
}

/* Write @o (at @pos of its kind's table) and release it. */
static int write_one(struct facts *f, enum pd_kind kind, __u64 *pos)
{
	struct live *o = (struct live *)(uintptr_t)*pos;
	__u32 *flags = flags_of(o);
	int err = 0;

	/* a fact that came late resolves what was written unresolved */
	if (*flags & PD_F_KNOWN)
		*flags &= ~PD_F_UNRESOLVED;
	if (!o->revived && (*flags & PD_F_UNRESOLVED))
		f->k[kind].unresolved++;
	switch (kind) {
	case PD_PROG:
		err = pd_writer_add_prog(f->w, &o->u.prog);
		break;
	case PD_MAP:
		err = pd_writer_add_map(f->w, &o->u.map);
		break;
	case PD_LINK:
		err = pd_writer_add_link(f->w, &o->u.link);
		break;
	default:
		err = pd_writer_add_btf(f->w, &o->u.btf);
		break;
	}
	live_free(kind, o);
	*pos = 0;
	f->k[kind].nr_live--;
	/* one fact no record can hold is lost alone; the file is still good */
	return err == -E2BIG ? 0 : err;
}

int facts_write_now(struct facts *f, enum pd_kind kind, __u32 id)
{
	__u64 *pos = hashmap_find(&f->k[kind].live, id);
	struct live *o = pos && *pos ? (struct live *)(uintptr_t)*pos : NULL;

	if (!f->w || !o || !(*flags_of(o) & (PD_F_KNOWN | PD_F_UNRESOLVED)))
		return 0;
	return write_one(f, kind, pos);
}

void facts_give_up(struct facts *f, enum pd_kind kind, __u32 id)
{
	__u64 *pos = hashmap_find(&f->k[kind].live, id);
	struct live *o = pos && *pos ? (struct live *)(uintptr_t)*pos : NULL;

	if (o && !(*flags_of(o) & PD_F_KNOWN))
		*flags_of(o) |= PD_F_UNRESOLVED;
}

bool facts_written(const struct facts *f, enum pd_kind kind, __u32 id)
{
	const __u64 *pos = hashmap_find(&f->k[kind].live, id);

	return !(pos && *pos) && f->w && pd_writer_has_fact(f->w, kind, id);
}

/* Every live entry with facts to give, or every one when @all. */
static int write_live(struct facts *f, bool all)
{
	struct kind *k;
	size_t i;
	int kind, err = 0;

	for (kind = 0; kind < PD_NR_KINDS && !err; kind++) {
		k = &f->k[kind];
		for (i = 0; i < k->live.cap && !err; i++) {
			struct live *o = (struct live *)(uintptr_t)k->live.e[i].val;

			if (!k->live.e[i].used || !o)
				continue;
			if (all || (*flags_of(o) & (PD_F_KNOWN | PD_F_UNRESOLVED)))
				err = write_one(f, kind, &k->live.e[i].val);
		}
		/* an entry per id ever asked for, 0 once written: keep the live ones */
		if (!err)
			err = hashmap_prune(&k->live, k->nr_live);
	}
	return err;
}

int facts_flush(struct facts *f)
{
	return f->w ? write_live(f, false) : 0;
}

size_t facts_live(const struct facts *f)
{
	size_t kind, n = 0;

	for (kind = 0; kind < PD_NR_KINDS; kind++)
		n += f->k[kind].nr_live;
	return n;
}

void facts_finish(struct facts *f, struct facts_stats *st)
{
	struct kind *k;
	size_t i, unresolved;
	int kind;

	memset(st, 0, sizeof(*st));
	for (kind = 0; kind < PD_NR_KINDS; kind++) {
		k = &f->k[kind];
		unresolved = k->unresolved;
		for (i = 0; i < k->live.cap; i++) {
			struct live *o = (struct live *)(uintptr_t)k->live.e[i].val;
			__u32 *flags;

			if (!k->live.e[i].used || !o)
				continue;
			flags = flags_of(o);
			if (!(*flags & PD_F_KNOWN))
				*flags |= PD_F_UNRESOLVED;
			unresolved += !o->revived && (*flags & PD_F_UNRESOLVED);
		}
		st->objects += k->ids;
		st->unresolved += unresolved;
		st->ids[kind] = k->ids;
		st->unresolved_of[kind] = unresolved;
		if (kind == PD_PROG) {
			st->progs = k->ids;
			st->progs_unresolved = unresolved;
		}
	}
}

int facts_store(struct facts *f, struct pd_writer *w)
{
	f->w = w;
	return write_live(f, true);
}

void facts_free(struct facts *f)
{
	struct kind *k;
	size_t i;
	int kind;

	if (!f)
		return;
	for (kind = 0; kind < PD_NR_KINDS; kind++) {
		k = &f->k[kind];
		for (i = 0; i < k->live.cap; i++)
			if (k->live.e[i].used && k->live.e[i].val)
				live_free(kind, (struct live *)(uintptr_t)k->live.e[i].val);
		hashmap_free(&k->live);
	}
	free(f);
}
