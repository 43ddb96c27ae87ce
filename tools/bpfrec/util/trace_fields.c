// SPDX-License-Identifier: GPL-2.0
/*
 * perf's tracing data, parsed with libtraceevent.  The blob is input
 * from a file: every size is checked against what is left before it is
 * used, and the texts libtraceevent wants NUL-terminated are copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "util/printable.h"
#include "util/trace_fields.h"

struct blob_cur {
	const char *p;
	size_t len, pos;
	bool bad;
};

static const char *take(struct blob_cur *c, size_t n)
{
	const char *p;

	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

static __u64 take_num(struct blob_cur *c, size_t n)
{
	const char *p = take(c, n);
	__u64 v = 0;

	if (p)
		memcpy(&v, p, n);
	return v;
}

/* A NUL-terminated string in place. */
static const char *take_str(struct blob_cur *c)
{
	const char *p = c->bad ? NULL : memchr(c->p + c->pos, 0, c->len - c->pos);
	const char *s = c->p + c->pos;

	if (!p) {
		c->bad = true;
		return NULL;
	}
	c->pos += p - s + 1;
	return s;
}

/* A text of @size bytes, copied with its NUL, for the parsers that want one. */
static char *take_text(struct blob_cur *c, __u64 size)
{
	const char *p = take(c, size);
	char *t;

	if (!p)
		return NULL;
	t = malloc(size + 1);
	if (t) {
		memcpy(t, p, size);
		t[size] = 0;
	}
	return t;
}

/*
 * The lines of printk formats ("ADDR : FORMAT") that libtraceevent can
 * take, kept in place in @text.  tep_parse_printk_formats() 1.7 copies
 * from two bytes past the first ':' of each line, so a line without a
 * ':', or with nothing after it, made it read past the text (found by
 * the report fuzzer): such lines are dropped.
 */
static void printk_lines(char *text)
{
	char *in = text, *out = text, *end, *next, *colon;
	size_t len;

	while (*in) {
		end = strchr(in, '\n');
		if (!end)
			end = in + strlen(in);
		next = *end ? end + 1 : end;
		len = end - in;
		colon = memchr(in, ':', len);
		if (*in != ':' && colon && colon + 1 < end) {
			/* out never passes in: the line moves down, or stays */
			memmove(out, in, len);
			out += len;
			*out++ = '\n';
		}
		in = next;
	}
	*out = 0;
}

/*
 * Whether libtraceevent 1.7 can parse @p safely: it dereferences a NULL
 * token when an array's '[' is followed by the end of the text or by a
 * byte it has no token for (found by the script fuzzer).  Kernel formats
 * are printable ASCII, tabs and newlines, each '[' closed.
 */
static bool format_safe(const char *p, __u64 size)
{
	__u64 i;

	for (i = 0; i < size; i++) {
		if ((p[i] < 0x20 || p[i] > 0x7e) && p[i] != '\t' && p[i] != '\n')
			return false;
		if (p[i] == '[' && !memchr(p + i, ']', size - i))
			return false;
	}
	return true;
}

/* @nr formats of @sys, each a u64 size and the text. */
static int parse_formats(struct tep_handle *tep, struct blob_cur *c, const char *sys, __u32 nr)
{
	const char *p;
	__u64 size;
	__u32 i;

	for (i = 0; i < nr && !c->bad; i++) {
		size = take_num(c, 8);
		p = take(c, size);
		/* one format libtraceevent cannot parse leaves the others usable */
		if (p && format_safe(p, size))
			tep_parse_event(tep, p, size, sys);
	}
	return c->bad ? -EINVAL : 0;
}

/*
 * The formats go to @tep; the kallsyms are handed out as they lie in the
 * blob (*@ksyms, *@ksyms_size; size 0 when there are none, as perf has
 * written since 6.x) for the caller to parse as it needs.
 */
static int parse(struct tep_handle *tep, struct blob_cur *c, const char **ksyms,
		 __u32 *ksyms_size)
{
	static const char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *m = take(c, sizeof(magic)), *version, *p, *sys;
	__u32 nr_sys, i;
	__u64 size;
	char *text;
	int long_size;

	if (!m || memcmp(m, magic, sizeof(magic)))
		return -EINVAL;
	version = take_str(c);
	/* big-endian data: not decoded */
	if (!version || take_num(c, 1))
		return -EINVAL;
	long_size = take_num(c, 1);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, take_num(c, 4));
	p = take_str(c);
	if (!p || strcmp(p, "header_page"))
		return -EINVAL;
	size = take_num(c, 8);
	p = take(c, size);
	if (p)
		tep_parse_header_page(tep, (char *)p, size, long_size);
	p = take_str(c);
	if (!p || strcmp(p, "header_event"))
		return -EINVAL;
	take(c, take_num(c, 8));
	if (parse_formats(tep, c, "ftrace", take_num(c, 4)))
		return -EINVAL;
	nr_sys = take_num(c, 4);
	for (i = 0; i < nr_sys && !c->bad; i++) {
		sys = take_str(c);
		if (!sys || parse_formats(tep, c, sys, take_num(c, 4)))
			return -EINVAL;
	}
	*ksyms_size = take_num(c, 4);
	*ksyms = take(c, *ksyms_size);
	text = take_text(c, take_num(c, 4));
	if (text) {
		printk_lines(text);
		tep_parse_printk_formats(tep, text);
	}
	free(text);
	/* the saved cmdlines (0.6 on) are not needed: COMM records name tasks */
	return c->bad ? -EINVAL : 0;
}

struct tep_handle *trace_fields_open(const void *data, size_t len, char *err, size_t errlen)
{
	struct blob_cur c = { .p = data, .len = len };
	struct tep_handle *tep = tep_alloc();
	const char *ksyms;
	__u32 ksyms_size;
	char *text = NULL;

	if (!tep) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse(tep, &c, &ksyms, &ksyms_size)) {
		snprintf(err, errlen, "malformed tracing data at byte %zu of %zu", c.pos, len);
		goto fail;
	}
	if (ksyms_size) {
		text = strndup(ksyms, ksyms_size);
		if (!text || tep_parse_kallsyms(tep, text)) {
			snprintf(err, errlen, "%s", text ? "malformed kallsyms in the tracing data" :
				 "out of memory");
			goto fail;
		}
		free(text);
	}
	return tep;
fail:
	free(text);
	tep_free(tep);
	return NULL;
}

int trace_fields_kallsyms(const void *data, size_t len, const char **text, size_t *size)
{
	struct blob_cur c = { .p = data, .len = len };
	struct tep_handle *tep = tep_alloc();
	__u32 ksyms_size;
	int err;

	if (!tep)
		return -ENOMEM;
	err = parse(tep, &c, text, &ksyms_size);
	tep_free(tep);
	*size = ksyms_size;
	return err;
}

void trace_fields_close(struct tep_handle *tep)
{
	tep_free(tep);
}

/* A plain number: not an array, a string or a pointer shown as one. */
static bool numeric(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC |
			     TEP_FIELD_IS_POINTER)) && f->size <= 8;
}

/*
 * Where the bytes of array @field lie in @raw: the field itself, or for a
 * __data_loc field, where its 4-byte slot (length << 16 | offset) says,
 * after the field when it is relative (__rel_loc).  libtraceevent trusts
 * the slot: it is checked against the record here first.
 */
static bool array_bytes(const struct tep_format_field *field, const void *raw, __u32 size,
			__u32 *off, __u32 *len)
{
	__u32 slot;

	*off = field->offset;
	*len = field->size;
	if (!(field->flags & TEP_FIELD_IS_DYNAMIC))
		return true;
	if (field->size != sizeof(slot))
		return false;
	memcpy(&slot, (const char *)raw + field->offset, sizeof(slot));
	*off = slot & 0xffff;
	*len = slot >> 16;
	if (field->flags & TEP_FIELD_IS_RELATIVE)
		*off += field->offset + field->size;
	return (__u64)*off + *len <= size;
}

/*
 * A string field as text, up to its NUL and never past its bytes (for
 * libtraceevent prints it with %s, reading on to a NUL wherever it is).
 */
static size_t string_text(const char *p, __u32 n, char *out, size_t room)
{
	const char *nul = memchr(p, 0, n);
	size_t len = nul ? (size_t)(nul - p) : n;

	if (len >= room)
		len = room - 1;
	memcpy(out, p, len);
	out[len] = 0;
	return len + 1;
}

int trace_fields_decode(struct tep_handle *tep, __u64 id, const void *raw, __u32 size,
			struct trace_field *f, int max, char *buf, size_t len)
{
	struct tep_event *ev = tep_find_event(tep, id);
	struct tep_format_field *field;
	struct trace_seq s;
	unsigned long long v;
	__u32 aoff = 0, alen = 0;
	size_t used = 0;
	int n = 0;

	if (!ev)
		return -ENOENT;
	for (field = ev->format.fields; field && n < max; field = field->next) {
		if ((__u64)field->offset + field->size > size)
			return -EINVAL;
		/* no room left: the fields so far are complete */
		if (used + 2 >= len)
			break;
		/* a name from the file: escaped like any text shown */
		f[n].name = printable(field->name, buf + used, (len - used) / 2);
		used += strlen(f[n].name) + 1;
		f[n].is_num = numeric(field) && !tep_read_number_field(field, raw, &v) &&
			      (!(field->flags & TEP_FIELD_IS_SIGNED) ||
			       !(v >> (field->size * 8 - 1)));
		if (f[n].is_num) {
			f[n].num = v;
			n++;
			continue;
		}
		f[n].text = buf + used;
		if ((field->flags & TEP_FIELD_IS_ARRAY) &&
		    !array_bytes(field, raw, size, &aoff, &alen)) {
			used += snprintf(buf + used, len - used, "(out of the record)") + 1;
			if (used > len)
				used = len;
			n++;
			continue;
		}
		if ((field->flags & TEP_FIELD_IS_ARRAY) && (field->flags & TEP_FIELD_IS_STRING)) {
			used += string_text((const char *)raw + aoff, alen, buf + used, len - used);
			n++;
			continue;
		}
		trace_seq_init(&s);
		tep_print_field_content(&s, (void *)raw, size, field);
		trace_seq_terminate(&s);
		used += snprintf(buf + used, len - used, "%s", s.buffer) + 1;
		trace_seq_destroy(&s);
		/* a text cut short stays terminated */
		if (used > len)
			used = len;
		n++;
	}
	return n;
}

const char *trace_fields_ksym(struct tep_handle *tep, __u64 addr, __u64 *off)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		*off = addr - tep_find_function_address(tep, addr);
	return name;
}
