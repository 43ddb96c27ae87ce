/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file bpfrec writes (record's perf.data, stat -o, report --svg):
 * written to a fresh temporary next to its name and renamed over the name
 * only at the end of a run that produced something.  bpfrec runs as root
 * and often writes into shared directories: the temporary is created with
 * O_EXCL and mode 0600, so no symbolic link is followed and nobody else's
 * file is written into; what was at the name is kept as NAME.old, as perf
 * keeps perf.data.old; a run that fails before it recorded anything leaves
 * the name as it was.
 *
 * The temporary has a visible name, NAME.partial.XXXXXX: a recorder killed
 * with SIGKILL (or a machine that stops) leaves it behind, readable and
 * marked "not finished" as a file cut short is, rather than losing it.
 *
 * "-" is standard output (report --svg -, pipe mode); an existing
 * character device (/dev/null) or a FIFO of the caller's own is written as
 * it is, since it cannot be replaced.
 */
#ifndef BPFREC_OUT_FILE_H
#define BPFREC_OUT_FILE_H

#include <stdbool.h>
#include <sys/types.h>

struct out_file {
	int fd;			/* where to write, -1 once closed */
	const char *path;	/* the name asked for */
	char *tmp;		/* the temporary's name, NULL when written in place */
	dev_t dev;		/* the temporary's inode, checked before the rename */
	ino_t ino;
};

/*
 * Create the temporary for @path (not copied: it must outlive @f).
 * 0 or a negative errno; @why (if not NULL) then says what was refused.
 */
int out_file_open(struct out_file *f, const char *path, const char **why);
/*
 * Close the file and rename it over its name; what was there becomes
 * NAME.old (unless @keep_old is false, or it is an empty file, as perf
 * does).  0 or a negative errno; on error the temporary stays, under
 * the name out_file_partial() gives.
 */
int out_file_commit(struct out_file *f, bool keep_old);
/* Close and remove the temporary: the name keeps what it had. */
void out_file_abort(struct out_file *f);
/* The name the data is under until the commit (the temporary's). */
const char *out_file_partial(const struct out_file *f);

#endif /* BPFREC_OUT_FILE_H */
