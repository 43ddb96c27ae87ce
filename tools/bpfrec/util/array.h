/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays: the one way the tool makes room for one more element, or copies an array. */
#ifndef BPFREC_ARRAY_H
#define BPFREC_ARRAY_H

#include <stddef.h>

/*
 * Room for element @nr of the array at *@items (@size bytes each, *@cap
 * allocated): doubled when full.  0, or -ENOMEM with the array as it was.
 */
int array_room(void *items, size_t *cap, size_t nr, size_t size);

/* A copy of @n elements of @size bytes at @src; NULL when @n is 0, @src NULL or memory short. */
void *array_dup(const void *src, size_t n, size_t size);

#endif /* BPFREC_ARRAY_H */
