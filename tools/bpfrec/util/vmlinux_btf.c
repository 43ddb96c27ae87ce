// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF, mapped where the kernel allows it (Linux
 * 6.16 and later): sysfs reads it 4 KiB per read() otherwise, some 1400
 * syscalls that take a busy machine most of a second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
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

struct btf *vmlinux_btf_load(void)
{
	struct btf *btf = NULL;
	size_t size;
	void *data = map_raw(&size);

	if (data) {
		/* libbpf copies it */
		btf = btf__new(data, size);
		munmap(data, size);
	}
	return btf ? btf : btf__load_vmlinux_btf();
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
