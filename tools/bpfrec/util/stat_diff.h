/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `bpfrec diff` compares: two files of `bpfrec stat --all-progs -o`
 * per program name (ids differ from run to run; programs of one name are
 * summed), or two profiles per symbol (the share of the samples whose
 * leaf it is).
 */
#ifndef BPFREC_STAT_DIFF_H
#define BPFREC_STAT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct sd_entry {
	char *name;			/* program name, or symbol */
	__u64 runs, run_ns;		/* stat files */
	double share;			/* profiles: % of the samples' period */
};

struct sd_file {
	bool profile;			/* a profile, not counts */
	__u64 wall_ns;			/* counts: the session's length */
	struct sd_entry *e;
	size_t nr, cap;
};

/*
 * Read @path: 0, or -1 with one line in @err.  @filter (or NULL): only
 * the programs whose name or loader's comm contains it (profiles: the
 * symbols, or the samples of comms, that contain it).
 */
int sd_read(const char *path, struct sd_file *f, const char *filter, char *err, size_t errlen);
void sd_free(struct sd_file *f);

struct sd_row {
	const char *name;
	const struct sd_entry *a, *b;	/* NULL: only in the other file */
	double change;			/* %: ns/run (counts) or share points (profiles) */
};

/* The rows of both files, biggest regression first; *rows is the caller's to free. */
int sd_compare(const struct sd_file *a, const struct sd_file *b, struct sd_row **rows,
	       size_t *nr);
void sd_print(FILE *f, const struct sd_file *a, const struct sd_file *b,
	      const struct sd_row *rows, size_t nr);

#endif /* BPFREC_STAT_DIFF_H */
