// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF, mapped where the kernel allows it (Linux
 * 6.16 and later): sysfs reads it 4 KiB per read() otherwise, some 1400
 * syscalls that take a busy machine most of a second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/file_read.h"
#include "util/vmlinux_btf.h"

#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

/* The raw vmlinux BTF mapped, *size long; NULL where it cannot be. */
static void *map_raw(size_t *size)
{
	struct stat st;
	void *data = MAP_FAILED;
	int fd;

	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0)
		data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	*size = st.st_size;
	return data == MAP_FAILED ? NULL : data;
}

/* Whether string @name is in the string section of the raw BTF @data. */
static bool raw_has_string(const void *data, size_t size, const char *name)
{
	const struct btf_header *h = data;
	size_t len = strlen(name);
	const char *strs, *p;
	size_t left;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > size)
		return true;	/* let libbpf parse it and say what is wrong */
	strs = (const char *)data + h->hdr_len + h->str_off;
	/* each string is NUL-terminated, and the first is the empty one */
	for (p = strs, left = h->str_len; (p = memmem(p, left, name, len + 1));
	     left = h->str_len - (p - strs)) {
		if (p > strs && p[-1] == '\0')
			return true;
		p += len;
	}
	return false;
}

static struct btf *load(const char *name)
{
	char *text;
	bool mapped = true;
	struct btf *btf = NULL;
	size_t size;
	void *data = map_raw(&size);

	/* sysfs gives it 4 KiB a read where it cannot be mapped */
	if (!data) {
		mapped = false;
		data = file_read(VMLINUX_BTF, 8 << 20, &text, &size) ? NULL : text;
	}
	if (!data)
		return btf__load_vmlinux_btf();
	if (name && !raw_has_string(data, size, name))
		errno = ENOENT;
	else
		btf = btf__new(data, size);	/* libbpf copies it */
	if (mapped)
		munmap(data, size);
	else
		free(data);
	return btf;
}

struct btf *vmlinux_btf_load(void)
{
	return load(NULL);
}

struct btf *vmlinux_btf_load_naming(const char *name)
{
	return load(name);
}

int vmlinux_btf_memfd(void)
{
	size_t size, done = 0;
	void *data = map_raw(&size);
	ssize_t n = 0;
	int fd = -1;

	if (data)
		fd = memfd_create("vmlinux-btf", MFD_CLOEXEC);
	while (fd >= 0 && done < size && (n = write(fd, (char *)data + done, size - done)) > 0)
		done += n;
	if (data)
		munmap(data, size);
	if (fd >= 0 && done < size) {
		close(fd);
		fd = -1;
	}
	return fd;
}
