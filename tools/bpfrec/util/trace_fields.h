/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back perf's HEADER_TRACING_DATA (util/tracing_data.h writes
 * it, perf record too) with libtraceevent: the tracepoints' formats, to
 * decode a RAW sample field by field, and the kallsyms of record time, to
 * name kernel addresses.
 */
#ifndef BPFREC_TRACE_FIELDS_H
#define BPFREC_TRACE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct tep_handle;

/*
 * Parse @len bytes of tracing data.  Returns the handle, or NULL with one
 * line in @err (a malformed blob; the rest of the file stays readable).
 */
struct tep_handle *trace_fields_open(const void *data, size_t len, char *err, size_t errlen);
void trace_fields_close(struct tep_handle *tep);
/*
 * The kallsyms text of record time in @len bytes of tracing data, where
 * it lies in @data: 0 (*@size is 0 when the data holds none, as in
 * perf's files), -EINVAL for malformed data, -ENOMEM.
 */
int trace_fields_kallsyms(const void *data, size_t len, const char **text, size_t *size);

struct trace_field {
	const char *name;		/* the format's, escaped, in the caller's buffer */
	bool is_num;			/* a number: num, else text */
	__u64 num;
	const char *text;		/* in the caller's buffer */
};

/*
 * The fields of a RAW sample of tracepoint @id, the common_* ones left
 * out, at most @max; text values are written into @buf.  Returns the
 * number of fields, or -ENOENT when the data has no format for @id,
 * -EINVAL when @raw is shorter than the format says.
 */
int trace_fields_decode(struct tep_handle *tep, __u64 id, const void *raw, __u32 size,
			struct trace_field *f, int max, char *buf, size_t len);

/* "name" of the kernel symbol holding @addr and @off into it, or NULL. */
const char *trace_fields_ksym(struct tep_handle *tep, __u64 addr, __u64 *off);

#endif /* BPFREC_TRACE_FIELDS_H */
