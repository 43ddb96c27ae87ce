// SPDX-License-Identifier: GPL-2.0
/*
 * The listing of ids that tells which watched objects are gone.  Ids are
 * not reused soon (the kernel hands them out cyclically), so an id
 * missing from a listing is an object released since it was last seen.
 * A listing is one BPF_*_GET_NEXT_ID call per object of the machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "util/array.h"
#include "util/gone_scan.h"
#include "util/mono_clock.h"

static const __u16 release_type[PD_NR_KINDS] = {
	[PD_MAP] = PERF_BPF_EVENT_MAP_FREE,
	[PD_LINK] = PERF_BPF_EVENT_LINK_RELEASE,
	[PD_BTF] = PERF_BPF_EVENT_BTF_UNLOAD,
};

int gone_track(struct gone_scan *g, enum pd_kind kind, __u32 id, __u64 time)
{
	bool created;
	__u64 *seen;

	if (!release_type[kind])
		return 0;
	seen = hashmap_add(&g->alive[kind], id, &created);
	if (!seen)
		return -ENOMEM;
	if (created || !*seen)
		g->nr_alive[kind]++;
	/* 0 is "not watched": a time of 0 is taken as 1 ns */
	*seen = time ? time : 1;
	return 0;
}

void gone_forget(struct gone_scan *g, enum pd_kind kind, __u32 id)
{
	__u64 *seen = hashmap_find(&g->alive[kind], id);

	if (seen && *seen) {
		*seen = 0;
		g->nr_alive[kind]--;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Every id of @kind now, sorted in g->ids. */
static int list_ids(struct gone_scan *g, enum pd_kind kind)
{
	int (*next)(__u32, __u32 *) = kind == PD_MAP ? bpf_map_get_next_id :
				      kind == PD_LINK ? bpf_link_get_next_id :
				      bpf_btf_get_next_id;
	__u32 id = 0;

	g->nr_ids = 0;
	while (!next(id, &id)) {
		if (array_room(&g->ids, &g->cap_ids, g->nr_ids, sizeof(*g->ids)))
			return -ENOMEM;
		g->ids[g->nr_ids++] = id;
	}
	if (errno != ENOENT)
		return -errno;
	/* the kernel lists them in id order: sorted already, but for safety */
	if (g->nr_ids)
		qsort(g->ids, g->nr_ids, sizeof(*g->ids), cmp_u32);
	return 0;
}

static int release(struct gone_scan *g, struct pd_writer *w, enum pd_kind kind, __u32 id,
		   __u64 seen, const struct pd_sample *s)
{
	__u8 tag[BPF_TAG_SIZE];

	/* no description: readers name the object from its facts */
	memcpy(tag, &seen, sizeof(seen));
	g->found++;
	return pd_write_bpf_event(w, release_type[kind],
				  PD_BPF_EVENT_FLAG_CAPTURED | PD_BPF_EVENT_FLAG_GONE, id, tag, s);
}

int gone_scan(struct gone_scan *g, struct pd_writer *w, __u64 event_id)
{
	struct pd_sample s = { .id = event_id };
	struct hashmap_entry *en;
	int kind, err = 0;
	__u64 begin;
	size_t i;

	for (kind = 0; kind < PD_NR_KINDS && !err && !g->denied; kind++) {
		if (!g->nr_alive[kind])
			continue;
		/* a listed id existed at some time between the two, a missing one went before the end */
		begin = mono_ns();
		err = list_ids(g, kind);
		s.time = mono_ns();
		/* listing ids takes CAP_SYS_ADMIN; recording needs only CAP_PERFMON and CAP_BPF */
		if (err == -EPERM) {
			fprintf(stderr, "bpfrec record: without CAP_SYS_ADMIN, maps, links and BTF have no release records\n");
			g->denied = true;
			return 0;
		}
		for (i = 0; i < g->alive[kind].cap && !err; i++) {
			en = &g->alive[kind].e[i];
			if (!en->used || !en->val)
				continue;
			if (bsearch(&(__u32){ en->key }, g->ids, g->nr_ids, sizeof(*g->ids), cmp_u32)) {
				en->val = begin;
				continue;
			}
			err = release(g, w, kind, en->key, en->val, &s);
			en->val = 0;
			g->nr_alive[kind]--;
		}
		if (!err)
			err = hashmap_prune(&g->alive[kind], g->nr_alive[kind]);
	}
	g->last = mono_ns();
	return err;
}

void gone_free(struct gone_scan *g)
{
	int kind;

	for (kind = 0; kind < PD_NR_KINDS; kind++)
		hashmap_free(&g->alive[kind]);
	free(g->ids);
	memset(g, 0, sizeof(*g));
}
