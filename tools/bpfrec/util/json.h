/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal JSON-lines output: one flat object per line, nested once. */
#ifndef BPFREC_JSON_H
#define BPFREC_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct json {
	FILE *f;
	bool first;			/* no member yet in the open object */
};

void json_begin(struct json *j, FILE *f);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, __u64 val);
void json_bool(struct json *j, const char *key, bool val);
/* A member whose value is already valid JSON text (a number, ...). */
void json_raw(struct json *j, const char *key, const char *val);
void json_object(struct json *j, const char *key);	/* opens a member object */
void json_close(struct json *j);			/* closes it */
void json_end(struct json *j);				/* "}\n" */

/* Write @s as a JSON string; invalid UTF-8 becomes U+FFFD. */
void json_write_string(FILE *f, const char *s);

#endif /* BPFREC_JSON_H */
