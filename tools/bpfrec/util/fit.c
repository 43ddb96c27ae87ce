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

const char *fit_cut_at(const char *s, int width, int head, char *buf, size_t len)
{
	int n = strlen(s), mark = sizeof(FIT_MARK) - 1, tail;

	if (n <= width || width < MIN_CUT || (size_t)width >= len)
		return s;
	tail = (width - mark) / 2;
	if (head >= 1 && head <= width - mark - 1)
		tail = width - mark - head;
	head = width - mark - tail;
	memcpy(buf, s, head);
	memcpy(buf + head, FIT_MARK, mark);
	memcpy(buf + head + mark, s + n - tail, tail);
	buf[width] = '\0';
	return buf;
}

const char *fit_cut(const char *s, int width, char *buf, size_t len)
{
	return fit_cut_at(s, width, -1, buf, len);
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

/*
 * Whether the cuts of the @nr names @v at @width, @head (fit_cut_at())
 * are @want distinct strings; -1 when memory runs out.  @cut holds @nr
 * pointers.
 */
static int cuts_distinct(const char *const *v, size_t nr, size_t want, int width, int head,
			 char **cut)
{
	size_t i;
	int ret = -1;

	for (i = 0; i < nr; i++) {
		cut[i] = malloc(width + 1);
		if (!cut[i])
			goto out;
		if (fit_cut_at(v[i], width, head, cut[i], width + 1) != cut[i])
			strcpy(cut[i], v[i]);
	}
	ret = distinct(cut, nr) == want;
out:
	for (i = 0; i < nr; i++) {
		free(cut[i]);
		cut[i] = NULL;
	}
	return ret;
}

/* How many distinct names @v holds, and the length of the longest. */
static int count_whole(const char *const *v, size_t nr, size_t *want, int *longest)
{
	char **whole = calloc(nr ? nr : 1, sizeof(*whole));
	size_t i;
	int len;

	if (!whole)
		return -1;
	*longest = 0;
	for (i = 0; i < nr; i++) {
		len = strlen(v[i]);
		*longest = len > *longest ? len : *longest;
		whole[i] = (char *)v[i];
	}
	*want = distinct(whole, nr);
	free(whole);
	return 0;
}

int fit_unique_width(const char *const *v, size_t nr, int width)
{
	char **cut = calloc(nr ? nr : 1, sizeof(*cut));
	int longest, w = width;
	size_t want;

	if (!cut || count_whole(v, nr, &want, &longest))
		goto out;
	for (; w < longest; w++)
		if (cuts_distinct(v, nr, want, w, -1, cut) != 0)
			break;
out:
	free(cut);
	return w;
}

int fit_unique_head(const char *const *v, size_t nr, int width)
{
	int mark = sizeof(FIT_MARK) - 1, mid = width - mark - (width - mark) / 2, longest, head, d;
	char **cut = calloc(nr ? nr : 1, sizeof(*cut));
	int ret = -1;
	size_t want;

	if (!cut || count_whole(v, nr, &want, &longest))
		goto out;
	if (longest <= width || width < MIN_CUT || cuts_distinct(v, nr, want, width, -1, cut) > 0) {
		ret = mid;
		goto out;
	}
	/* from the balanced cut outwards: the start longer first, then the end */
	for (d = 1; ret < 0 && d < width; d++) {
		for (head = mid + d; head >= mid - d; head -= 2 * d) {
			if (head < 1 || head > width - mark - 1)
				continue;
			if (cuts_distinct(v, nr, want, width, head, cut) > 0) {
				ret = head;
				break;
			}
		}
	}
out:
	free(cut);
	return ret;
}
