// SPDX-License-Identifier: GPL-2.0
/*
 * One tenant's objects (record --cgroup, --exe).
 *
 * The verdict is made in user space, from the task the capture describes
 * before each object it creates (struct cap_task: the cgroup's path below
 * the cgroup v2 root, the executable's path), not in the capture's BPF
 * programs: the kernel's own records (PROG_LOAD and PROG_UNLOAD on any
 * kernel; MAP_*, LINK_* and BTF_* with the series) arrive through the
 * perf rings, where no BPF program can leave them out, and user space
 * must then know the verdict of every id anyway.  One verdict per object,
 * kept by id, serves the kernel's records and the capture's alike, and
 * makes every later record follow the creation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "util/debug.h"
#include "util/tenant.h"

/*
 * Where @real (a real path on a cgroup v2 file system) is below the
 * hierarchy's root: the mount point's own root in the hierarchy (its
 * fourth field in mountinfo) joined with what follows the mount point.
 */
static int below_root(const char *real, char *dst, size_t len)
{
	char root[PATH_MAX], dir[PATH_MAX], type[64], path[2 * PATH_MAX];
	size_t best = 0, n;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0;

	if (!f)
		return -errno;
	/* id parent dev root mountpoint options [optional...] - type source super */
	while (fscanf(f, "%*s %*s %*s %4095s %4095s %*s%*[^-]- %63s %*[^\n]", root, dir, type) == 3) {
		n = strlen(dir);
		if (strcmp(type, "cgroup2") || strncmp(real, dir, n) ||
		    (real[n] && real[n] != '/' && strcmp(dir, "/")))
			continue;
		if (found && n <= best)
			continue;
		best = n;
		found = 1;
		snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "",
			 strcmp(dir, "/") ? real + n : real);
	}
	fclose(f);
	/* the capture names no longer paths: none would match */
	if (!found || strlen(path) >= len)
		return -ENOENT;
	memcpy(dst, path, strlen(path) + 1);
	if (!dst[0])
		snprintf(dst, len, "/");
	return 0;
}

/* Where cgroup v2 is mounted, for a path relative to it. */
static void cgroup2_mount(char *dst, size_t len)
{
	char dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	snprintf(dst, len, "/sys/fs/cgroup");
	while (f && fscanf(f, "%*s %4095s %63s %*[^\n]", dir, type) == 2) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(dst, len, "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
}

int tenant_set_cgroup(struct tenant *t, const char *path)
{
	char full[2 * PATH_MAX + 1], real[PATH_MAX], mnt[PATH_MAX] = "";
	struct statfs sf;
	struct stat st;

	if (path[0] != '/')
		cgroup2_mount(mnt, sizeof(mnt));
	snprintf(full, sizeof(full), "%s%s%s", mnt, mnt[0] ? "/" : "", path);
	if (!realpath(full, real) || stat(real, &st) || !S_ISDIR(st.st_mode) ||
	    statfs(real, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC ||
	    below_root(real, t->cgroup, sizeof(t->cgroup)))
		return errmsg_set(-EINVAL, "--cgroup: '%s' is not a cgroup v2 directory (see bpfrec record --help)",
				  full);
	t->on = true;
	return 0;
}

int tenant_set_exe(struct tenant *t, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode) ||
	    !(st.st_mode & 0111))
		return errmsg_set(-EINVAL, "--exe: '%s' is not an executable file (see bpfrec record --help)",
				  path);
	/* the capture names no longer paths: none would match */
	if (strlen(real) >= sizeof(t->exe))
		return errmsg_set(-EINVAL, "--exe: '%s' is longer than the %zu bytes a loader's path has",
				  real, sizeof(t->exe) - 1);
	memcpy(t->exe, real, strlen(real) + 1);
	t->on = true;
	return 0;
}

/* @path is @dir or below it. */
static bool at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

bool tenant_task(const struct tenant *t, const struct pd_loader *d)
{
	if (t->cgroup[0] &&
	    ((d->flags & PD_LOADER_CGROUP_CUT) || !at_or_below(d->cgroup, t->cgroup)))
		return false;
	if (t->exe[0] && ((d->flags & PD_LOADER_EXE_CUT) || strcmp(d->exe, t->exe)))
		return false;
	return true;
}

static __u64 key_of(enum pd_kind kind, __u32 id)
{
	return (__u64)kind << 32 | id;
}

enum tenant_verdict tenant_verdict(const struct tenant *t, enum pd_kind kind, __u32 id)
{
	const __u64 *v = hashmap_find(&t->objects, key_of(kind, id));

	return v ? (enum tenant_verdict)*v : TENANT_UNDECIDED;
}

enum tenant_verdict tenant_decide(struct tenant *t, enum pd_kind kind, __u32 id, bool keep)
{
	__u64 *v = hashmap_add(&t->objects, key_of(kind, id), NULL);

	/* out of memory: nothing is kept that was not decided so */
	if (!v)
		return TENANT_DROP;
	if (*v == TENANT_UNDECIDED)
		*v = keep ? TENANT_KEEP : TENANT_DROP;
	return (enum tenant_verdict)*v;
}

void tenant_free(struct tenant *t)
{
	hashmap_free(&t->objects);
}
