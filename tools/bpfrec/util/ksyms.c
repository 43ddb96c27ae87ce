// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms lists every symbol with its address but not its size: an
 * address belongs to the symbol below it, up to the next one.  Past the
 * last symbol nothing is known, and the last one is given at most
 * KSYM_LAST_SPAN bytes rather than the rest of the address space.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/ksyms.h"

#define KSYM_LAST_SPAN	4096

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line, cut in place: false for a line to skip. */
static bool parse_line(char *line, struct ksym *s)
{
	char *end, *name, *mod;

	s->addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	name = end + 3;
	mod = strchr(name, '\t');
	s->module = NULL;
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[')
			mod++;
		mod[strcspn(mod, "]")] = '\0';
		if (!strcmp(mod, "bpf"))
			return false;
		s->module = mod;
	}
	s->name = name;
	return *name;
}

int ksyms_parse(struct ksyms *k, const char *text, size_t len)
{
	size_t cap = 0;
	bool any_addr = false;
	char *line, *next;

	memset(k, 0, sizeof(*k));
	k->text = malloc(len + 1);
	if (!k->text)
		return -ENOMEM;
	memcpy(k->text, text, len);
	k->text[len] = '\0';
	for (line = k->text; *line; line = next) {
		struct ksym s;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!parse_line(line, &s))
			continue;
		any_addr |= s.addr != 0;
		if (array_room(&k->syms, &cap, k->nr, sizeof(*k->syms))) {
			ksyms_free(k);
			return -ENOMEM;
		}
		k->syms[k->nr++] = s;
	}
	if (!any_addr) {
		bool none = !k->nr;

		ksyms_free(k);
		return none ? -ENOENT : -EPERM;
	}
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
	return 0;
}

int ksyms_load(struct ksyms *k, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	if (!f)
		return -errno;
	do {
		if (len + 65536 > cap) {
			char *b = realloc(buf, cap = (cap ? cap * 2 : 1 << 20));

			if (!b) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	ret = ferror(f) ? -EIO : ksyms_parse(k, buf, len);
	fclose(f);
	free(buf);
	return ret;
}

const struct ksym *ksyms_find(const struct ksyms *k, __u64 addr)
{
	size_t lo = 0, hi = k->nr;

	if (!k->nr || addr < k->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (lo == k->nr - 1 && addr - k->syms[lo].addr >= KSYM_LAST_SPAN)
		return NULL;
	return &k->syms[lo];
}

__u64 ksyms_addr(const struct ksyms *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		if (!k->syms[i].module && !strcmp(k->syms[i].name, name))
			return k->syms[i].addr;
	return 0;
}

void ksyms_free(struct ksyms *k)
{
	free(k->syms);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
