// SPDX-License-Identifier: GPL-2.0
/*
 * Output files created fresh and renamed into place (see out_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/out_file.h"

#define PARTIAL_SUFFIX	".partial.XXXXXX"

/*
 * A name that exists and cannot be replaced by a rename: a device such
 * as /dev/null, or a FIFO (a reader waits on it).  Written as it is, but
 * never someone else's FIFO, which would hand them the recording.
 */
static int open_in_place(struct out_file *f, const struct stat *st, const char **why)
{
	if (S_ISFIFO(st->st_mode) && st->st_uid != geteuid()) {
		*why = "a FIFO owned by another user";
		return -EPERM;
	}
	f->fd = open(f->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	return f->fd < 0 ? -errno : 0;
}

int out_file_open(struct out_file *f, const char *path, const char **why)
{
	const char *dummy;
	struct stat st;
	int err;

	if (!why)
		why = &dummy;
	*why = NULL;
	*f = (struct out_file){ .fd = -1, .path = path };
	if (!strcmp(path, "-")) {
		f->fd = dup(STDOUT_FILENO);
		return f->fd < 0 ? -errno : 0;
	}
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return open_in_place(f, &st, why);
	}
	if (asprintf(&f->tmp, "%s" PARTIAL_SUFFIX, path) < 0) {
		f->tmp = NULL;
		return -ENOMEM;
	}
	/* O_EXCL: never through a link, never into a file that exists */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		err = -errno;
		out_file_abort(f);
		return err;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return 0;
}

const char *out_file_partial(const struct out_file *f)
{
	return f->tmp ? f->tmp : f->path;
}

/* perf's perf.data.old: the name's previous entry, unless an empty file. */
static int keep_previous(const char *path)
{
	struct stat st;
	char *old;
	int err = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode) && !st.st_size)
		return 0;
	if (asprintf(&old, "%s.old", path) < 0)
		return -ENOMEM;
	/* rename() moves a link itself and replaces an old .old at once */
	if (rename(path, old))
		err = -errno;
	free(old);
	return err;
}

int out_file_commit(struct out_file *f, bool keep_old)
{
	struct stat st;
	int err = 0;

	if (f->fd >= 0 && close(f->fd))
		err = -errno;
	f->fd = -1;
	if (!f->tmp || err)
		return err;
	/*
	 * In a directory others may write to, the temporary's name could
	 * have been replaced: rename only the file written here.
	 */
	if (lstat(f->tmp, &st))
		return -errno;
	if (st.st_dev != f->dev || st.st_ino != f->ino)
		return -ESTALE;
	if (keep_old)
		err = keep_previous(f->path);
	if (!err && rename(f->tmp, f->path))
		err = -errno;
	if (!err) {
		free(f->tmp);
		f->tmp = NULL;
	}
	return err;
}

void out_file_abort(struct out_file *f)
{
	struct stat st;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	/* the same check as the commit's: remove only what was created here */
	if (f->tmp && !lstat(f->tmp, &st) && st.st_dev == f->dev && st.st_ino == f->ino)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
}
