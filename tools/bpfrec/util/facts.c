// SPDX-License-Identifier: GPL-2.0
/*
 * The facts `bpfrec record` gathers, one entry per kind and id, merged
 * from the sources as they come and handed to the writer at the end.
 * A storm is tens of thousands of ids: the hash map finds them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/bpf_resolve.h"
#include "util/facts.h"
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

struct kind {
	void *items;		/* pd_prog[], pd_map[], ...: all start with id, flags */
	size_t size;		/* of one item */
	size_t nr, cap;
	struct hashmap index;	/* id -> position in items */
};

struct facts {
	struct kind progs, maps, links, btfs;
};

/* The pointer is valid until the next lookup of the same kind. */
static void *lookup(struct kind *k, __u32 id, bool *created)
{
	bool added;
	__u64 *pos;
	void *item;

	if (created)
		*created = false;
	/* room for one more first: an index entry never points past the items */
	if (array_room(&k->items, &k->cap, k->nr, k->size))
		return NULL;
	pos = hashmap_add(&k->index, id, &added);
	if (!pos)
		return NULL;
	if (!added)
		return (char *)k->items + *pos * k->size;
	item = (char *)k->items + k->nr * k->size;
	memset(item, 0, k->size);
	*(__u32 *)item = id;
	*pos = k->nr++;
	if (created)
		*created = true;
	return item;
}

/* The entry for @id if there is one: unlike lookup(), never creates it. */
static void *find(struct kind *k, __u32 id)
{
	__u64 *pos = hashmap_find(&k->index, id);

	return pos ? (char *)k->items + *pos * k->size : NULL;
}

struct facts *facts_new(void)
{
	struct facts *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->progs.size = sizeof(struct pd_prog);
	f->maps.size = sizeof(struct pd_map);
	f->links.size = sizeof(struct pd_link);
	f->btfs.size = sizeof(struct pd_btf);
	return f;
}

struct pd_prog *facts_prog(struct facts *f, __u32 id, bool *created)
{
	return lookup(&f->progs, id, created);
}

struct pd_map *facts_map(struct facts *f, __u32 id, bool *created)
{
	return lookup(&f->maps, id, created);
}

struct pd_link *facts_link(struct facts *f, __u32 id, bool *created)
{
	return lookup(&f->links, id, created);
}

struct pd_btf *facts_btf(struct facts *f, __u32 id, bool *created)
{
	return lookup(&f->btfs, id, created);
}

void facts_want_btf(struct facts *f, __u32 id)
{
	bool created;
	struct pd_btf *b = facts_btf(f, id, &created);

	/* perf names sub-programs from this data (its BPF_BTF feature) */
	if (b && created)
		resolve_btf(id, b, true);
}

void facts_mark_self(struct facts *f, enum fact_kind kind, __u32 id,
		     const struct pd_origin *origin)
{
	struct pd_prog *p;
	struct pd_map *m;
	struct pd_link *l;
	struct pd_btf *b;

	switch (kind) {
	case FACT_PROG:
		if ((p = find(&f->progs, id))) {
			p->flags |= PD_F_SELF;
			p->origin = *origin;
		}
		break;
	case FACT_MAP:
		if ((m = find(&f->maps, id))) {
			m->flags |= PD_F_SELF;
			m->origin = *origin;
		}
		break;
	case FACT_LINK:
		if ((l = find(&f->links, id))) {
			l->flags |= PD_F_SELF;
			l->origin = *origin;
		}
		break;
	case FACT_BTF:
		if ((b = find(&f->btfs, id))) {
			b->flags |= PD_F_SELF;
			b->origin = *origin;
		}
		break;
	}
}

static void mark_unresolved(struct kind *k, struct facts_stats *st)
{
	size_t i;

	for (i = 0; i < k->nr; i++) {
		/* every pd_* starts with id, flags */
		__u32 *flags = (__u32 *)((char *)k->items + i * k->size) + 1;

		if (!(*flags & (PD_F_CAPTURED | PD_F_SYSCALL)))
			*flags |= PD_F_UNRESOLVED;
		if (*flags & PD_F_UNRESOLVED)
			st->unresolved++;
		st->objects++;
	}
}

void facts_finish(struct facts *f, struct facts_stats *st)
{
	memset(st, 0, sizeof(*st));
	mark_unresolved(&f->progs, st);
	st->progs = st->objects;
	st->progs_unresolved = st->unresolved;
	mark_unresolved(&f->maps, st);
	mark_unresolved(&f->links, st);
	mark_unresolved(&f->btfs, st);
}

int facts_store(struct facts *f, struct pd_writer *w)
{
	struct pd_prog *progs = f->progs.items;
	struct pd_map *maps = f->maps.items;
	struct pd_link *links = f->links.items;
	struct pd_btf *btfs = f->btfs.items;
	size_t i;
	int err;

	for (i = 0; i < f->progs.nr; i++)
		if ((err = pd_writer_add_prog(w, &progs[i])))
			return err;
	for (i = 0; i < f->maps.nr; i++)
		if ((err = pd_writer_add_map(w, &maps[i])))
			return err;
	for (i = 0; i < f->links.nr; i++)
		if ((err = pd_writer_add_link(w, &links[i])))
			return err;
	for (i = 0; i < f->btfs.nr; i++)
		if ((err = pd_writer_add_btf(w, &btfs[i])))
			return err;
	return 0;
}

static void kind_free(struct kind *k)
{
	free(k->items);
	hashmap_free(&k->index);
}

void facts_free(struct facts *f)
{
	struct pd_prog *progs;
	struct pd_btf *btfs;
	size_t i;

	if (!f)
		return;
	progs = f->progs.items;
	btfs = f->btfs.items;
	for (i = 0; i < f->progs.nr; i++)
		pd_prog_free_arrays(&progs[i]);
	for (i = 0; i < f->btfs.nr; i++)
		free(btfs[i].data);
	kind_free(&f->progs);
	kind_free(&f->maps);
	kind_free(&f->links);
	kind_free(&f->btfs);
	free(f);
}
