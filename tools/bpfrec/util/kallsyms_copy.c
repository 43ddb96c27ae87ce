// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms read whole, in large reads, once: a recording's kernel
 * map (_text.._etext) comes from it at the start, and its tracing data
 * keeps it at the end unless a module was loaded or removed meanwhile.
 * BPF programs come and go in kallsyms too, but their names reach the
 * file as KSYMBOL records, which readers prefer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/file_read.h"
#include "util/kallsyms_copy.h"

/*
 * Room for a small kernel's kallsyms (5 MiB here; a distribution
 * kernel's is 10 to 15): grown when short, and what was not read into
 * is given back.
 */
#define KALLSYMS_ROOM	(8 << 20)

/*
 * The first and last fields of each line of /proc/modules, the module
 * and its address: its reference counts change with every user.  No
 * /proc/modules (a kernel without modules) is none, not an error.
 */
static int modules_now(char **out, size_t *out_len)
{
	char *text, *line, *end, *last, *w;
	size_t len, name_len;
	int err = file_read("/proc/modules", 1 << 16, &text, &len);

	if (err == -ENOENT) {
		*out = NULL;
		*out_len = 0;
		return 0;
	}
	if (err)
		return err;
	/* a line gives at most itself and a space */
	*out = w = malloc(2 * len + 1);
	for (line = text; w && *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		name_len = strcspn(line, " \n");
		last = end;
		while (last > line + name_len && last[-1] != ' ')
			last--;
		w = mempcpy(w, line, name_len);
		*w++ = ' ';
		w = mempcpy(w, last, end - last);
		*w++ = '\n';
	}
	free(text);
	if (!*out)
		return -ENOMEM;
	*out_len = w - *out;
	return 0;
}

int kallsyms_copy_read(struct kallsyms_copy *k)
{
	int err;

	memset(k, 0, sizeof(*k));
	err = modules_now(&k->modules, &k->modules_len);
	if (!err)
		err = file_read("/proc/kallsyms", KALLSYMS_ROOM, &k->text, &k->len);
	if (err)
		kallsyms_copy_free(k);
	return err;
}

void kallsyms_copy_refresh(struct kallsyms_copy *k)
{
	struct kallsyms_copy now;
	char *modules = NULL;
	size_t len = 0;

	if (!modules_now(&modules, &len) && k->text && len == k->modules_len &&
	    (!len || !memcmp(modules, k->modules, len))) {
		free(modules);
		return;
	}
	free(modules);
	/* the start's copy is better than none */
	if (kallsyms_copy_read(&now))
		return;
	kallsyms_copy_free(k);
	*k = now;
}

bool kallsyms_copy_addr(const struct kallsyms_copy *k, const char *name,
			unsigned long long *addr)
{
	size_t name_len = strlen(name);
	const char *p = k->text, *end = k->text + k->len, *line, *at;
	char *parsed;

	/* "ADDR T NAME\n": a match ends a line and follows the type's space */
	while (p && (at = memmem(p, end - p, name, name_len))) {
		p = at + name_len;
		if ((p < end && *p != '\n' && *p != '\t') || at - k->text < 3 ||
		    at[-1] != ' ' || at[-3] != ' ')
			continue;
		line = at - 3;
		while (line > k->text && line[-1] != '\n')
			line--;
		*addr = strtoull(line, &parsed, 16);
		return parsed == at - 3 && *addr;
	}
	return false;
}

void kallsyms_copy_free(struct kallsyms_copy *k)
{
	free(k->text);
	free(k->modules);
	memset(k, 0, sizeof(*k));
}
