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

/*
 * The start of the format of the tests' tracepoint "tp", ID 1234: its
 * name and id, and the common fields every tracepoint has (8 bytes).
 */
#define TRACING_TP_HEAD							\
	"name: tp\n"							\
	"ID: 1234\n"							\
	"format:\n"							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"	\
	"\n"

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
