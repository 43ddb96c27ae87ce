/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text columns that fit a line: the width of the output (the terminal's,
 * or FIT_PIPE_WIDTH into a pipe or file, or no limit with --wide), and
 * names cut in the middle, where the cut shows (FIT_MARK) and long
 * symbols keep both their start and their end, at a width where the cut
 * names of a column stay as distinct as the names were.
 */
#ifndef BPFREC_FIT_H
#define BPFREC_FIT_H

#include <stdbool.h>
#include <stddef.h>

/* The width assumed when stdout is no terminal, as ps and perf do. */
#define FIT_PIPE_WIDTH	160
/* What stands for the cut part of a name. */
#define FIT_MARK	".."

/* The columns of stdout: 0 (no limit) when @wide, else as above. */
int fit_output_width(bool wide);

/*
 * @s as shown in @width columns: itself when it fits, else its start,
 * FIT_MARK and its end (the end a little shorter), in @buf of @len bytes.
 */
const char *fit_cut(const char *s, int width, char *buf, size_t len);
/* The same, with @head characters of the start kept (-1: fit_cut()'s). */
const char *fit_cut_at(const char *s, int width, int head, char *buf, size_t len);

/*
 * The least width from @width up to the longest of the @nr names @v at
 * which their cuts (fit_cut) are as distinct as the names themselves.
 */
int fit_unique_width(const char *const *v, size_t nr, int width);

/*
 * Where to cut the @nr names @v at @width so that their cuts stay as
 * distinct as the names: the length of the start kept (fit_cut_at()),
 * fit_cut()'s balanced cut when it does, else the nearest that does;
 * -1 when none does (the names differ too far inside) or memory runs out.
 */
int fit_unique_head(const char *const *v, size_t nr, int width);

#endif /* BPFREC_FIT_H */
