/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's HEADER_TRACING_DATA built by hand, for the tests that write a
 * file with a tracepoint (tests/unit/, tests/host/craft.c): what
 * util/tracing_data.c writes from tracefs, here from a format given.
 */
#ifndef BPFREC_TESTS_TRACING_DATA_H
#define BPFREC_TESTS_TRACING_DATA_H

#include <stddef.h>
#include <linux/types.h>

/* Bytes appended to a growing buffer; exit(1) when memory runs out. */
struct blob {
	char *p;
	size_t len;
};

void blob_put(struct blob *b, const void *d, size_t n);
/* The low @n bytes of @v, little-endian as the host. */
void blob_put_num(struct blob *b, __u64 v, size_t n);

/*
 * The tracing data of one system "test" with the event of @format (its
 * "name:", "ID:", "format:" and "print fmt:" lines), and @kallsyms (""
 * for none).
 */
void tracing_data_craft(struct blob *b, const char *format, const char *kallsyms);

#endif /* BPFREC_TESTS_TRACING_DATA_H */
