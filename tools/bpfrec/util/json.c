// SPDX-License-Identifier: GPL-2.0
/*
 * JSON lines for log pipelines.  Names and comms come from the recorded
 * programs and from files of unknown origin, so every string is escaped
 * and made valid UTF-8: one bad byte must not make a line unparsable.
 */
#include <inttypes.h>
#include "util/json.h"

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	__u32 cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF are invalid. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n;

		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			n = utf8_len(s);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', f);
}

static void key(struct json *j, const char *k)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = false;
	json_write_string(j->f, k);
	fputc(':', j->f);
}

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->first = true;
	fputc('{', f);
}

void json_str(struct json *j, const char *k, const char *val)
{
	key(j, k);
	json_write_string(j->f, val);
}

void json_u64(struct json *j, const char *k, __u64 val)
{
	key(j, k);
	fprintf(j->f, "%" PRIu64, (uint64_t)val);
}

void json_bool(struct json *j, const char *k, bool val)
{
	key(j, k);
	fputs(val ? "true" : "false", j->f);
}

void json_raw(struct json *j, const char *k, const char *val)
{
	key(j, k);
	fputs(val, j->f);
}

void json_object(struct json *j, const char *k)
{
	key(j, k);
	fputc('{', j->f);
	j->first = true;
}

void json_close(struct json *j)
{
	fputc('}', j->f);
	j->first = false;
}

void json_end(struct json *j)
{
	fputs("}\n", j->f);
}
