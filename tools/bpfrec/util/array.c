// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"

int array_room(void *items, size_t *cap, size_t nr, size_t size)
{
	void **p = items, *n;
	size_t want = *cap ? *cap * 2 : 64;

	if (nr < *cap)
		return 0;
	n = realloc(*p, want * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = want;
	return 0;
}

void *array_dup(const void *src, size_t n, size_t size)
{
	void *a;

	if (!src || !n || n > SIZE_MAX / size)
		return NULL;
	a = malloc(n * size);
	if (a)
		memcpy(a, src, n * size);
	return a;
}
