// SPDX-License-Identifier: GPL-2.0
/*
 * Cutting names to fit a column.  A name cut at its end is ambiguous
 * ("..._unloc" could be two symbols) and hides the part that tells
 * similar symbols apart, usually their end: the middle goes instead, and
 * a column that would show two names alike is widened until it does not.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "util/fit.h"

/* A column narrower than this shows too little to cut in the middle. */
#define MIN_CUT		(int)(sizeof(FIT_MARK) + 1)

int fit_output_width(bool wide)
{
	struct winsize ws;

	if (wide)
		return 0;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return FIT_PIPE_WIDTH;
}

const char *fit_cut(const char *s, int width, char *buf, size_t len)
{
	int n = strlen(s), mark = sizeof(FIT_MARK) - 1, head, tail;

	if (n <= width || width < MIN_CUT || (size_t)width >= len)
		return s;
	tail = (width - mark) / 2;
	head = width - mark - tail;
	memcpy(buf, s, head);
	memcpy(buf + head, FIT_MARK, mark);
	memcpy(buf + head + mark, s + n - tail, tail);
	buf[width] = '\0';
	return buf;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many distinct strings @v holds, sorting it. */
static size_t distinct(char **v, size_t nr)
{
	size_t i, n = nr > 0;

	qsort(v, nr, sizeof(*v), str_cmp);
	for (i = 1; i < nr; i++)
		n += strcmp(v[i - 1], v[i]) != 0;
	return n;
}

int fit_unique_width(const char *const *v, size_t nr, int width)
{
	char **cut = calloc(nr ? nr : 1, sizeof(*cut)), **whole = calloc(nr ? nr : 1, sizeof(*whole));
	int longest = 0, w = width, len;
	size_t i, want;

	if (!cut || !whole)
		goto out;
	for (i = 0; i < nr; i++) {
		len = strlen(v[i]);
		longest = len > longest ? len : longest;
		whole[i] = (char *)v[i];
	}
	want = distinct(whole, nr);
	for (; w < longest; w++) {
		for (i = 0; i < nr; i++) {
			cut[i] = malloc(w + 1);
			if (!cut[i])
				goto out;
			if (fit_cut(v[i], w, cut[i], w + 1) != cut[i])
				strcpy(cut[i], v[i]);
		}
		len = distinct(cut, nr) == want;
		for (i = 0; i < nr; i++) {
			free(cut[i]);
			cut[i] = NULL;
		}
		if (len)
			break;
	}
out:
	if (cut)
		for (i = 0; i < nr; i++)
			free(cut[i]);
	free(cut);
	free(whole);
	return w;
}
