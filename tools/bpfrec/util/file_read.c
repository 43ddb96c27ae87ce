// SPDX-License-Identifier: GPL-2.0
/* Reading a whole file of unknown size (util/file_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/file_read.h"

int file_read(const char *path, size_t room, char **data, size_t *len)
{
	size_t cap = room < 4096 ? 4096 : room, n = 0;
	char *p = malloc(cap), *q;
	ssize_t got;
	int fd, err = 0;

	if (!p)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(p);
		return err;
	}
	for (;;) {
		if (cap - n < 4096) {
			q = realloc(p, cap * 2);
			if (!q) {
				err = -ENOMEM;
				break;
			}
			p = q;
			cap *= 2;
		}
		got = read(fd, p + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		n += got;
	}
	close(fd);
	if (err) {
		free(p);
		return err;
	}
	p[n] = '\0';
	/* what was not read into goes back to the heap for the next buffer */
	q = realloc(p, n + 1);
	*data = q ? q : p;
	*len = n;
	return 0;
}
