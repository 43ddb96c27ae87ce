/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hash table of the tool: 64-bit keys to 64-bit values (an index,
 * a state, a pointer), open addressing.  Objects and tasks are tens of
 * thousands in a storm: every lookup by id or tid goes through it.
 */
#ifndef BPFREC_HASHMAP_H
#define BPFREC_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct hashmap_entry {
	__u64 key;
	__u64 val;
	bool used;
};

struct hashmap {
	struct hashmap_entry *e;
	size_t cap;			/* a power of two, at least twice nr */
	size_t nr;
};

/*
 * The value of @key, added as 0 when new (then *created is true, if
 * given).  NULL when out of memory.  Valid until the next hashmap_add().
 */
__u64 *hashmap_add(struct hashmap *h, __u64 key, bool *created);
/* The value of @key, or NULL when it was never added. */
__u64 *hashmap_find(const struct hashmap *h, __u64 key);
/*
 * Rebuild the table without the keys whose value is 0 (those a user
 * counts as gone), once they are most of it: nothing is removed
 * otherwise.  -ENOMEM leaves it as it was.
 */
int hashmap_prune(struct hashmap *h, size_t nr_nonzero);
void hashmap_free(struct hashmap *h);

#endif /* BPFREC_HASHMAP_H */
