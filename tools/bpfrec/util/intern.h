/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interning: equal byte strings get one small id, so a profile compares
 * and hashes symbols, frames and stacks as integers.  Ids count from 0
 * in order of first appearance; nothing is ever removed.
 */
#ifndef BPFREC_INTERN_H
#define BPFREC_INTERN_H

#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"

struct intern {
	struct hashmap index;		/* hash (probed on collision) -> id */
	char *arena;			/* the blobs, each 4-byte aligned */
	size_t len, cap;
	struct intern_item {
		size_t off;		/* in the arena */
		size_t size;		/* bytes */
	} *items;			/* by id */
	size_t nr, cap_items;
};

/* The id of @len bytes at @blob, added if new: 0 or -ENOMEM. */
int intern_blob(struct intern *t, const void *blob, size_t len, __u32 *id);
int intern_str(struct intern *t, const char *s, __u32 *id);
/* Valid until the next addition. */
const void *intern_get(const struct intern *t, __u32 id, size_t *len);
const char *intern_str_get(const struct intern *t, __u32 id);
void intern_free(struct intern *t);

#endif /* BPFREC_INTERN_H */
