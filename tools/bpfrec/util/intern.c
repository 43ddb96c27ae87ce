// SPDX-License-Identifier: GPL-2.0
/*
 * Blobs are stored once in a growing arena and found by a 64-bit hash of
 * their bytes; two different blobs with the same hash probe on to the
 * next hash value, so a collision costs a comparison, never a wrong id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/intern.h"

static __u64 hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int append(struct intern *t, const void *blob, size_t len, __u32 *id)
{
	size_t need = t->len + ((len + 3) & ~(size_t)3);

	if (array_room(&t->items, &t->cap_items, t->nr, sizeof(*t->items)))
		return -ENOMEM;
	if (need > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *n;

		while (cap < need)
			cap *= 2;
		n = realloc(t->arena, cap);
		if (!n)
			return -ENOMEM;
		t->arena = n;
		t->cap = cap;
	}
	memcpy(t->arena + t->len, blob, len);
	t->items[t->nr].off = t->len;
	t->items[t->nr].size = len;
	t->len = need;
	*id = t->nr++;
	return 0;
}

int intern_blob(struct intern *t, const void *blob, size_t len, __u32 *id)
{
	__u64 h = hash_bytes(blob, len), *slot;
	bool added;

	for (;; h++) {
		slot = hashmap_add(&t->index, h, &added);
		if (!slot)
			return -ENOMEM;
		if (added)
			break;
		if (t->items[*slot].size == len &&
		    !memcmp(t->arena + t->items[*slot].off, blob, len)) {
			*id = *slot;
			return 0;
		}
	}
	if (append(t, blob, len, id))
		return -ENOMEM;
	/* the slot may have moved: hashmap_add() of a present key finds it */
	*hashmap_add(&t->index, h, NULL) = *id;
	return 0;
}

int intern_str(struct intern *t, const char *s, __u32 *id)
{
	return intern_blob(t, s, strlen(s) + 1, id);
}

const void *intern_get(const struct intern *t, __u32 id, size_t *len)
{
	if (len)
		*len = t->items[id].size;
	return t->arena + t->items[id].off;
}

const char *intern_str_get(const struct intern *t, __u32 id)
{
	return t->arena + t->items[id].off;
}

void intern_free(struct intern *t)
{
	hashmap_free(&t->index);
	free(t->arena);
	free(t->items);
	memset(t, 0, sizeof(*t));
}
