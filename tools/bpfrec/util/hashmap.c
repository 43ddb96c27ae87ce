// SPDX-License-Identifier: GPL-2.0
/*
 * Open addressing with linear probing; the table doubles at half full, so
 * a probe ends after a couple of slots.  Nothing is removed one by one:
 * a user that lets keys go zeroes their values and prunes the table.
 */
#include <errno.h>
#include <stdlib.h>
#include "util/hashmap.h"

/* Fibonacci hashing: ids and tids are sequential, spread them. */
static size_t slot_of(const struct hashmap *h, __u64 key)
{
	size_t mask = h->cap - 1, s = (key * 0x9e3779b97f4a7c15ULL) >> 32 & mask;

	while (h->e[s].used && h->e[s].key != key)
		s = (s + 1) & mask;
	return s;
}

static int grow(struct hashmap *h)
{
	struct hashmap n = { .cap = h->cap ? h->cap * 2 : 64, .nr = h->nr };
	size_t i;

	n.e = calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	for (i = 0; i < h->cap; i++)
		if (h->e[i].used)
			n.e[slot_of(&n, h->e[i].key)] = h->e[i];
	free(h->e);
	*h = n;
	return 0;
}

__u64 *hashmap_add(struct hashmap *h, __u64 key, bool *created)
{
	struct hashmap_entry *e;

	if (created)
		*created = false;
	if ((h->nr + 1) * 2 > h->cap && grow(h))
		return NULL;
	e = &h->e[slot_of(h, key)];
	if (!e->used) {
		e->used = true;
		e->key = key;
		e->val = 0;
		h->nr++;
		if (created)
			*created = true;
	}
	return &e->val;
}

__u64 *hashmap_find(const struct hashmap *h, __u64 key)
{
	struct hashmap_entry *e;

	if (!h->cap)
		return NULL;
	e = &h->e[slot_of(h, key)];
	return e->used ? &e->val : NULL;
}

int hashmap_prune(struct hashmap *h, size_t nr_nonzero)
{
	struct hashmap n = { 0 };
	__u64 *val;
	size_t i;

	if (h->nr < 64 || h->nr < 4 * nr_nonzero)
		return 0;
	for (i = 0; i < h->cap; i++) {
		if (!h->e[i].used || !h->e[i].val)
			continue;
		val = hashmap_add(&n, h->e[i].key, NULL);
		if (!val) {
			hashmap_free(&n);
			return -ENOMEM;
		}
		*val = h->e[i].val;
	}
	hashmap_free(h);
	*h = n;
	return 0;
}

void hashmap_free(struct hashmap *h)
{
	free(h->e);
	h->e = NULL;
	h->cap = h->nr = 0;
}
