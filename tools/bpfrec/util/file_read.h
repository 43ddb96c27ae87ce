/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A whole file read into memory, for the /proc and sysfs files whose
 * size stat() does not tell (kallsyms, modules, the vmlinux BTF before
 * Linux 6.16 lets it be mapped).
 */
#ifndef BPFREC_FILE_READ_H
#define BPFREC_FILE_READ_H

#include <stddef.h>

/*
 * @path read to its end into a buffer of @room bytes first, grown when
 * short and given back what it did not use: *data (NUL-terminated, to
 * free()) and *len.  0 or a negative errno.
 */
int file_read(const char *path, size_t room, char **data, size_t *len);

#endif /* BPFREC_FILE_READ_H */
