// SPDX-License-Identifier: GPL-2.0
/*
 * Each process has a sorted array of mappings.  perf records only the
 * executable ones by default, tens per process, so a new mapping simply
 * rebuilds the array around itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/proc_maps.h"

static struct umaps *proc_get(struct proc_maps *m, __u32 pid, bool create)
{
	__u64 *slot;

	if (!create) {
		slot = hashmap_find(&m->by_pid, pid);
		return slot && *slot ? &m->procs[*slot - 1] : NULL;
	}
	/* 0: a pid whose creation ran out of memory before */
	slot = hashmap_add(&m->by_pid, pid, NULL);
	if (!slot)
		return NULL;
	if (*slot)
		return &m->procs[*slot - 1];
	if (array_room(&m->procs, &m->cap, m->nr, sizeof(*m->procs)))
		return NULL;
	memset(&m->procs[m->nr], 0, sizeof(*m->procs));
	*slot = ++m->nr;
	return &m->procs[m->nr - 1];
}

static int push(struct umaps *u, const struct umap *map)
{
	if (array_room(&u->v, &u->cap, u->nr, sizeof(*u->v)))
		return -ENOMEM;
	u->v[u->nr++] = *map;
	return 0;
}

int proc_maps_add(struct proc_maps *m, __u32 pid, const struct umap *map)
{
	struct umaps *u = proc_get(m, pid, true), n = {};
	size_t i;
	bool placed = false;

	if (!u)
		return -ENOMEM;
	for (i = 0; i < u->nr; i++) {
		struct umap o = u->v[i], lo = o, hi = o;

		if (!placed && o.start >= map->start) {
			if (push(&n, map))
				goto nomem;
			placed = true;
		}
		if (o.end <= map->start || o.start >= map->end) {
			if (push(&n, &o))
				goto nomem;
			continue;
		}
		/* what the new mapping leaves of @o on either side */
		if (o.start < map->start) {
			lo.end = map->start;
			if (push(&n, &lo))
				goto nomem;
		}
		if (!placed) {
			if (push(&n, map))
				goto nomem;
			placed = true;
		}
		if (o.end > map->end) {
			hi.start = map->end;
			hi.pgoff = o.pgoff + (map->end - o.start);
			if (push(&n, &hi))
				goto nomem;
		}
	}
	if (!placed && push(&n, map))
		goto nomem;
	free(u->v);
	*u = n;
	return 0;
nomem:
	free(n.v);
	return -ENOMEM;
}

int proc_maps_fork(struct proc_maps *m, __u32 pid, __u32 ppid)
{
	struct umaps *parent, *child;
	size_t i;

	if (pid == ppid || !proc_get(m, ppid, false))
		return 0;
	child = proc_get(m, pid, true);
	/* proc_get() may have moved the array: look the parent up again */
	parent = proc_get(m, ppid, false);
	if (!child || !parent)
		return -ENOMEM;
	child->nr = 0;
	for (i = 0; i < parent->nr; i++)
		if (push(child, &parent->v[i]))
			return -ENOMEM;
	return 0;
}

void proc_maps_exec(struct proc_maps *m, __u32 pid)
{
	struct umaps *u = proc_get(m, pid, false);

	if (u)
		u->nr = 0;
}

const struct umap *proc_maps_find(const struct proc_maps *m, __u32 pid, __u64 addr)
{
	__u64 *slot = hashmap_find(&m->by_pid, pid);
	const struct umaps *u;
	size_t lo = 0, hi;

	if (!slot || !*slot)
		return NULL;
	u = &m->procs[*slot - 1];
	hi = u->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < u->nr && u->v[lo].start <= addr ? &u->v[lo] : NULL;
}

void proc_maps_free(struct proc_maps *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->procs[i].v);
	free(m->procs);
	hashmap_free(&m->by_pid);
	memset(m, 0, sizeof(*m));
}
