// SPDX-License-Identifier: GPL-2.0
/* perf's HEADER_TRACING_DATA built by hand, for the tests (tests/lib/tracing_data.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/lib/tracing_data.h"

void blob_put(struct blob *b, const void *d, size_t n)
{
	char *p = realloc(b->p, b->len + n);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	b->p = p;
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

void blob_put_num(struct blob *b, __u64 v, size_t n)
{
	blob_put(b, &v, n);
}

void tracing_data_craft(struct blob *b, const char *format, const char *kallsyms)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	blob_put(b, magic, sizeof(magic));
	blob_put(b, "0.6", 4);
	blob_put_num(b, 0, 1);			/* little-endian */
	blob_put_num(b, 8, 1);			/* sizeof(long) */
	blob_put_num(b, 4096, 4);		/* page size */
	blob_put(b, "header_page", 12);
	blob_put_num(b, 0, 8);
	blob_put(b, "header_event", 13);
	blob_put_num(b, 0, 8);
	blob_put_num(b, 0, 4);			/* ftrace events */
	blob_put_num(b, 1, 4);			/* systems */
	blob_put(b, "test", 5);
	blob_put_num(b, 1, 4);			/* its events */
	blob_put_num(b, strlen(format), 8);
	blob_put(b, format, strlen(format));
	blob_put_num(b, strlen(kallsyms), 4);
	blob_put(b, kallsyms, strlen(kallsyms));
	blob_put_num(b, 0, 4);			/* printk formats */
	blob_put_num(b, 0, 8);			/* saved cmdlines */
}
