// SPDX-License-Identifier: GPL-2.0
/* Shared BPF-managed counters: see stat_bperf.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/debug.h"
#include "util/printable.h"
#include "util/stat_bperf.h"
#include "bpf_skel/stat_follower.skel.h"
#include "bpf_skel/stat_leader.skel.h"

#define BPF_FS_MAGIC		0xcafe4a11
#define CGROUP2_ROOT		"/sys/fs/cgroup"
#define CGROUP2_SUPER_MAGIC	0x63677270
#define REGISTRY_ENTRIES	64
#define REGISTRY_NAME		"bpfrec_bperf"
/*
 * How long a session waits for another to release the registry's lock. A
 * session holds it while it loads its programs, and sessions started
 * together wait for one another: on a KASAN kernel under emulation, with
 * the host busy, the fourth of four waited over 30 s. The wait must
 * outlast that; a holder that keeps the lock is named after LOCK_NOTE_MS.
 */
#define LOCK_TIMEOUT_MS		300000UL
#define LOCK_NOTE_MS		5000

int stat_bperf_add_key(struct stat_bperf *b, __u64 key)
{
	int i;

	for (i = 0; i < b->nr_keys; i++)
		if (b->keys[i] == key)
			return 0;
	if (b->nr_keys == BPERF_MAX_FILTERS)
		return -E2BIG;
	b->keys[b->nr_keys++] = key;
	return 0;
}

int stat_bperf_add_cgroup(struct stat_bperf *b, const char *name)
{
	char path[PATH_MAX];
	struct statfs fs;
	struct stat st;

	if (b->nr_keys == BPERF_MAX_CGROUPS)
		return errmsg_set(-E2BIG, "-G: at most %d cgroups", BPERF_MAX_CGROUPS);
	snprintf(path, sizeof(path), "%s/%s", CGROUP2_ROOT, name[0] == '/' ? name + 1 : name);
	if (stat(path, &st) || statfs(path, &fs)) {
		int err = -errno;

		return errmsg_set(err, "-G %s: %s: %s", name, path, strerror(-err));
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode))
		return errmsg_set(-ENOTDIR, "-G %s: %s is no cgroup2 directory", name, path);
	/* a kernfs inode number is its node's id on 64-bit: the BPF side's key */
	b->names[b->nr_keys] = name;
	b->keys[b->nr_keys++] = st.st_ino;
	return 0;
}

static bool on_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * The registry is trusted only when no one but root could have made or
 * changed it: a directory of root's that only root may write to, in a
 * parent where no one else can rename it away.  Anything else is refused
 * with how to remove it, never repaired in place.
 */
static int refuse(const struct stat_bperf *b, const char *path, const char *what)
{
	return errmsg_set(-EPERM, "--bpf-counters: %s %s: not trusted; remove it (rm -r %s) or choose another --bpf-registry",
			  path, what, b->dir);
}

static int check_dir(const struct stat_bperf *b, const char *parent)
{
	struct stat st;

	if (fstat(b->dir_fd, &st))
		return -errno;
	if (st.st_uid != 0)
		return refuse(b, b->dir, "is not owned by root");
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return refuse(b, b->dir, "may be written by others than root");
	if (stat(parent, &st))
		return -errno;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return refuse(b, parent, "may be written by anyone and is not sticky");
	return 0;
}

/* The registry's directory on a bpffs, mounting /sys/fs/bpf if need be. */
static int registry_dir(struct stat_bperf *b)
{
	char parent[PATH_MAX];
	int err;

	snprintf(parent, sizeof(parent), "%s", b->dir);
	dirname(parent);
	if (!on_bpffs(parent)) {
		if (strcmp(parent, "/sys/fs/bpf"))
			return errmsg_set(-ENOTDIR, "--bpf-registry %s: %s is not a BPF filesystem (mount -t bpf bpf DIR)",
					  b->dir, parent);
		/* only root may pin there, as the registry wants */
		if (mount("bpf", parent, "bpf", 0, "mode=0700")) {
			err = -errno;
			return errmsg_set(err, "/sys/fs/bpf is not a BPF filesystem and mounting one failed (%s): run 'mount -t bpf bpf /sys/fs/bpf'",
					  strerror(-err));
		}
		pr_warning("mounted a BPF filesystem on /sys/fs/bpf\n");
	}
	if (mkdir(b->dir, 0700) && errno != EEXIST) {
		err = -errno;
		return errmsg_set(err, "cannot create the counter registry %s: %s", b->dir,
				  strerror(-err));
	}
	/* a link planted in place of the directory is not followed */
	b->dir_fd = open(b->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (b->dir_fd < 0 && errno == ELOOP)
		return refuse(b, b->dir, "is a symbolic link");
	if (b->dir_fd < 0) {
		err = -errno;
		return errmsg_set(err, "opening the counter registry %s: %s", b->dir, strerror(-err));
	}
	err = check_dir(b, parent);
	if (err == -EPERM)
		return err;
	if (err)
		errmsg_set(err, "checking the counter registry %s: %s", b->dir, strerror(-err));
	return err;
}

/*
 * Who holds the flock() of the registry's directory, from /proc/locks: the
 * pid, and its command name in @comm, made printable (a process names
 * itself, escape sequences included). 0 when no holder is found.
 */
static pid_t lock_holder(const struct stat_bperf *b, char *comm, size_t len)
{
	unsigned int maj, min;
	unsigned long ino;
	char line[256], kind[16], path[64], raw[32] = "?";
	struct stat st;
	pid_t pid = 0;
	FILE *f;
	int p;

	printable(raw, comm, len);
	if (fstat(b->dir_fd, &st))
		return 0;
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 00:1d:5678 0 EOF"; waiters have "->" */
	while (!pid && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu",
			   kind, &p, &maj, &min, &ino) == 5 && !strcmp(kind, "FLOCK") &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) && ino == st.st_ino)
			pid = p;
	fclose(f);
	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(raw, sizeof(raw), f))
			raw[strcspn(raw, "\n")] = 0;
		fclose(f);
	}
	printable(raw, comm, len);
	return pid;
}

/*
 * flock() that gives up after --bpf-lock-timeout (LOCK_TIMEOUT_MS by
 * default): a session that hangs, or anyone who can open the directory,
 * must not stop every other one for ever. A wait longer than LOCK_NOTE_MS
 * is said once, with the holder.
 */
static int lock_registry(const struct stat_bperf *b)
{
	unsigned long limit = b->lock_timeout_ms ? b->lock_timeout_ms : LOCK_TIMEOUT_MS;
	struct timespec t0, now;
	bool noted = false;
	char comm[128];
	long waited;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (flock(b->dir_fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = -errno;

			return errmsg_set(err, "locking %s: %s", b->dir, strerror(-err));
		}
		/* the time waited, not the sleeps counted: a loaded machine sleeps longer */
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (waited >= LOCK_NOTE_MS && !noted) {
			pid = lock_holder(b, comm, sizeof(comm));
			if (pid)
				pr_warning("--bpf-counters: waiting for the lock of %s, which pid %d (%s) holds\n",
					   b->dir, pid, comm);
			else
				pr_warning("--bpf-counters: waiting for the lock of %s\n", b->dir);
			noted = true;
		}
		if (waited >= (long)limit) {
			pid = lock_holder(b, comm, sizeof(comm));
			if (!pid)
				return errmsg_set(-ETIMEDOUT, "--bpf-counters: %s stayed locked for %lu s; see /proc/locks for the holder",
						  b->dir, limit / 1000);
			return errmsg_set(-ETIMEDOUT, "--bpf-counters: %s stayed locked for %lu s by pid %d (%s); stop it, or remove the registry",
					  b->dir, limit / 1000, pid, comm);
		}
		usleep(10000);
	}
	return 0;
}

/* A path inside the registry's directory, as it was opened and checked. */
static void in_dir(const struct stat_bperf *b, const char *name, char *path, size_t len)
{
	snprintf(path, len, "/proc/self/fd/%d/%s", b->dir_fd, name);
}

/* Is @fd a map as bpfrec makes it: @type, named @name, with these sizes? */
static bool map_is(int fd, __u32 type, const char *name, __u32 key_size, __u32 value_size,
		   struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return !bpf_obj_get_info_by_fd(fd, info, &len) && info->type == type &&
	       !strcmp(info->name, name) && info->key_size == key_size &&
	       info->value_size == value_size;
}

static const char *map_type_name(__u32 type)
{
	const char *name = libbpf_bpf_map_type_str(type);

	return name ? name : "unknown";
}

/*
 * What a pinned object is: a map, a program or a link, as the kernel
 * names its file (bpftool asks the same way).  Asked before its info is
 * read as a map's: a program's or a link's info read so looks like a map
 * with sizes made of other fields.
 */
static const char *pinned_kind(int fd)
{
	char link[64], name[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof(name) - 1);
	if (n < 0)
		return "an object of unknown kind";
	name[n] = 0;
	if (!strcmp(name, "anon_inode:bpf-map"))
		return NULL;
	if (!strcmp(name, "anon_inode:bpf-prog"))
		return "a pinned program";
	/* "bpf_link" when created, "bpf-link" when opened from its pin */
	if (!strcmp(name, "anon_inode:bpf-link") || !strcmp(name, "anon_inode:bpf_link"))
		return "a pinned link";
	return "an object of unknown kind";
}

static int registry_map(struct stat_bperf *b)
{
	const char *kind;
	struct bpf_map_info info;
	char path[PATH_MAX], at[PATH_MAX];
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "%s/registry", b->dir);
	in_dir(b, "registry", at, sizeof(at));
	/* bpf_obj_get() follows links: the pin must be a file of root's */
	if (!fstatat(b->dir_fd, "registry", &st, AT_SYMLINK_NOFOLLOW) &&
	    (!S_ISREG(st.st_mode) || st.st_uid != 0))
		return refuse(b, path, S_ISLNK(st.st_mode) ? "is a symbolic link" :
				       "is not a pin of root's");
	b->reg_fd = bpf_obj_get(at);
	if (b->reg_fd >= 0 && (kind = pinned_kind(b->reg_fd))) {
		fprintf(stderr, "bpfrec stat: --bpf-counters: %s is %s, not bpfrec's counter registry (a map): not trusted; remove it (rm -r %s) or choose another --bpf-registry\n",
			path, kind, b->dir);
		return -EPERM;
	}
	if (b->reg_fd >= 0) {
		if (map_is(b->reg_fd, BPF_MAP_TYPE_HASH, REGISTRY_NAME,
			   sizeof(struct perf_event_attr), sizeof(struct bperf_entry), &info)) {
			b->reg_ok = true;
			return 0;
		}
		return errmsg_set(-EPERM, "--bpf-counters: %s is not bpfrec's counter registry (a %s map '%s', key %u, value %u bytes): not trusted; remove it (rm -r %s) or choose another --bpf-registry",
				  path, map_type_name(info.type), info.name, info.key_size, info.value_size, b->dir);
	}
	if (errno != ENOENT) {
		err = -errno;
		return errmsg_set(err, "opening the counter registry %s: %s", path, strerror(-err));
	}
	b->reg_fd = bpf_map_create(BPF_MAP_TYPE_HASH, REGISTRY_NAME, sizeof(struct perf_event_attr),
				   sizeof(struct bperf_entry), REGISTRY_ENTRIES, NULL);
	if (b->reg_fd < 0 || bpf_obj_pin(b->reg_fd, at)) {
		err = -errno;
		return errmsg_set(err, "cannot create the counter registry %s: %s", path,
				  strerror(-err));
	}
	b->reg_ok = true;
	return 0;
}

/* The CPU's perf events of @c into the leader's events map. */
static int install_events(struct stat_bperf *b, struct bperf_counter *c)
{
	int cpu, n;
	__u32 key;

	if (!c->event_fds) {
		c->event_fds = calloc(b->nr_cpus, sizeof(*c->event_fds));
		if (!c->event_fds)
			return -ENOMEM;
	} else {
		for (cpu = 0; cpu < b->nr_cpus; cpu++)
			if (c->event_fds[cpu] >= 0)
				close(c->event_fds[cpu]);
	}
	n = stat_event_open_cpus(c->ev, b->nr_cpus, c->event_fds);
	if (n < 0)
		return n;
	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		key = cpu;
		if (c->event_fds[cpu] >= 0 &&
		    bpf_map_update_elem(c->events_fd, &key, &c->event_fds[cpu], BPF_ANY))
			return -errno;
	}
	return 0;
}

static __u32 id_of(int fd)
{
	struct bpf_link_info link = {};
	struct bpf_map_info map = {};
	__u32 len = sizeof(link);

	if (!bpf_obj_get_info_by_fd(fd, &link, &len))
		return link.id;
	len = sizeof(map);
	return bpf_obj_get_info_by_fd(fd, &map, &len) ? 0 : map.id;
}

/* A new leader for @c's attr, registered. */
static int load_leader(struct stat_bperf *b, struct bperf_counter *c)
{
	struct stat_leader_bpf *skel = stat_leader_bpf__open();
	struct bperf_entry e = {};
	int err;

	if (!skel)
		return -errno;
	c->leader = skel;
	err = bpf_map__set_max_entries(skel->maps.events, b->nr_cpus);
	if (!err)
		err = stat_leader_bpf__load(skel);
	if (err)
		return err;
	c->events_fd = bpf_map__fd(skel->maps.events);
	err = install_events(b, c);
	if (!err)
		err = stat_leader_bpf__attach(skel);
	if (err)
		return err;
	c->link_fd = bpf_link__fd(skel->links.on_switch);
	c->prog_fd = bpf_program__fd(skel->progs.on_switch);
	e.owner_pid = getpid();
	e.link_id = id_of(c->link_fd);
	e.diff_map_id = id_of(bpf_map__fd(skel->maps.diff));
	e.events_map_id = id_of(c->events_fd);
	return bpf_map_update_elem(b->reg_fd, &c->ev->attr, &e, BPF_ANY) ? -errno : 0;
}

/* Watch the session that owns @c's perf events, as the registry says. */
static void watch_owner(struct stat_bperf *b, struct bperf_counter *c)
{
	struct bperf_entry e;

	if (c->owner_fd >= 0)
		close(c->owner_fd);
	c->owner_fd = -1;
	/* gone already, or not found: the next reading takes over */
	if (!bpf_map_lookup_elem(b->reg_fd, &c->ev->attr, &e) && e.owner_pid != (__u32)getpid())
		c->owner_fd = pidfd_open(e.owner_pid, 0);
}

/* This session opened @c's perf events: the registry says so. */
static int own_events(struct stat_bperf *b, struct bperf_counter *c)
{
	struct bperf_entry e;

	if (bpf_map_lookup_elem(b->reg_fd, &c->ev->attr, &e))
		return -errno;
	e.owner_pid = getpid();
	if (bpf_map_update_elem(b->reg_fd, &c->ev->attr, &e, BPF_EXIST))
		return -errno;
	if (c->owner_fd >= 0)
		close(c->owner_fd);
	c->owner_fd = -1;
	return 0;
}

/*
 * A registry entry is trusted only if it names a leader as bpfrec loads
 * it: a raw tracepoint program named on_switch whose own maps are the
 * entry's diff (per-CPU counter values) and events (perf events) maps.
 * Otherwise a tampered entry would have root run any program
 * (BPF_PROG_TEST_RUN) and write perf events into any map.
 */
static bool is_leader(int prog_fd, const struct bperf_entry *e)
{
	struct bpf_prog_info info = {};
	__u32 ids[8], len = sizeof(info), i;
	bool diff = false, events = false;

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) ||
	    info.type != BPF_PROG_TYPE_RAW_TRACEPOINT || strcmp(info.name, "on_switch"))
		return false;
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		diff |= ids[i] == e->diff_map_id;
		events |= ids[i] == e->events_map_id;
	}
	return diff && events && e->diff_map_id != e->events_map_id;
}

/* The maps of a leader have the types and sizes its program gives them. */
static bool leader_maps_ok(int diff_fd, int events_fd)
{
	struct bpf_map_info info;

	return map_is(diff_fd, BPF_MAP_TYPE_PERCPU_ARRAY, "diff", sizeof(__u32),
		      sizeof(struct bpf_perf_event_value), &info) &&
	       map_is(events_fd, BPF_MAP_TYPE_PERF_EVENT_ARRAY, "events", sizeof(__u32),
		      sizeof(int), &info);
}

/*
 * The registered leader of @c's attr, if its link still exists: a leader
 * lives as long as a session holds its link.  *diff_fd is its diff map.
 */
static int reuse_leader(struct stat_bperf *b, struct bperf_counter *c, int *diff_fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct bperf_entry e;

	if (bpf_map_lookup_elem(b->reg_fd, &c->ev->attr, &e))
		return -ENOENT;
	c->link_fd = bpf_link_get_fd_by_id(e.link_id);
	if (c->link_fd < 0)
		return -ENOENT;		/* stale: repaired by a new leader */
	if (bpf_obj_get_info_by_fd(c->link_fd, &info, &len))
		return -errno;
	c->prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	*diff_fd = bpf_map_get_fd_by_id(e.diff_map_id);
	c->events_fd = bpf_map_get_fd_by_id(e.events_map_id);
	if (c->prog_fd < 0 || *diff_fd < 0 || c->events_fd < 0)
		return -ENOENT;
	if (!is_leader(c->prog_fd, &e) || !leader_maps_ok(*diff_fd, c->events_fd)) {
		return errmsg_set(-EPERM, "--bpf-counters: %s/registry: the entry of %s names link %u, maps %u and %u, which are not a leader of bpfrec's: not trusted; remove it (rm -r %s)",
				  b->dir, c->ev->name, e.link_id, e.diff_map_id, e.events_map_id, b->dir);
	}
	c->reused = true;
	watch_owner(b, c);
	return 0;
}

/* The map named @name of the program @prog_fd, -1 when it has none. */
static int prog_map(int prog_fd, const char *name)
{
	struct bpf_prog_info info = {};
	struct bpf_map_info map;
	__u32 ids[8], len = sizeof(info), i, mlen;
	int fd;

	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -1;
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&map, 0, sizeof(map));
		mlen = sizeof(map);
		if (!bpf_obj_get_info_by_fd(fd, &map, &mlen) && !strcmp(map.name, name) &&
		    map.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
		    map.value_size == sizeof(struct bpf_perf_event_value))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * The leader's per-CPU totals, which a session of the whole machine or
 * of some CPUs reads instead of loading a follower; -1 for the other
 * filters, and for a leader of an older bpfrec (no totals).
 */
static int leader_totals(const struct stat_bperf *b, const struct bperf_counter *c)
{
	if (b->filter != BPERF_FILTER_GLOBAL && b->filter != BPERF_FILTER_CPU)
		return -1;
	if (c->leader)
		return dup(bpf_map__fd(c->leader->maps.total));
	return prog_map(c->prog_fd, "total");
}

static int load_follower(struct stat_bperf *b, struct bperf_counter *c, int diff_fd)
{
	struct stat_follower_bpf *skel = stat_follower_bpf__open();
	__u32 i, slot;
	int err;

	if (!skel)
		return -errno;
	c->follower = skel;
	skel->rodata->filter_type = b->filter;
	err = bpf_map__reuse_fd(skel->maps.diff, diff_fd);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.on_leader, c->prog_fd, "on_switch");
	if (!err)
		err = stat_follower_bpf__load(skel);
	for (i = 0; !err && i < (__u32)b->nr_keys; i++) {
		/* one accumulator per cgroup; the other filters add up in one */
		slot = b->filter == BPERF_FILTER_CGROUP ? i : 0;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.filter), &b->keys[i], &slot, BPF_ANY))
			err = -errno;
	}
	if (!err)
		err = stat_follower_bpf__attach(skel);
	return err;
}

static int open_counter(struct stat_bperf *b, struct bperf_counter *c)
{
	int diff_fd = -1, err;

	c->link_fd = c->prog_fd = c->events_fd = c->owner_fd = c->total_fd = -1;
	err = reuse_leader(b, c, &diff_fd);
	if (err) {
		if (c->link_fd >= 0)
			close(c->link_fd);
		if (c->prog_fd >= 0)
			close(c->prog_fd);
		if (c->events_fd >= 0)
			close(c->events_fd);
		if (diff_fd >= 0)
			close(diff_fd);
		c->link_fd = c->prog_fd = c->events_fd = -1;
		c->reused = false;
		if (err == -EPERM)
			return err;	/* a registry not trusted, said */
		err = load_leader(b, c);
		if (err)
			return err;
		diff_fd = dup(bpf_map__fd(c->leader->maps.diff));
	}
	c->total_fd = leader_totals(b, c);
	err = c->total_fd >= 0 ? 0 : load_follower(b, c, diff_fd);
	close(diff_fd);
	if (err == -EPERM || err == -EACCES)
		return errmsg_set(err, "--bpf-counters: this kernel refuses BPF trampolines (fentry/fexit: %s), which the followers need",
				  strerror(-err));
	if (err)
		return errmsg_set(err, "--bpf-counters: loading the counter of %s: %s", c->ev->name,
				  strerror(-err));
	return 0;
}

int stat_bperf_open(struct stat_bperf *b, const struct stat_events *es)
{
	libbpf_print_fn_t old;
	struct stat st;
	int i, err;

	b->dir_fd = b->reg_fd = -1;
	b->nr_cpus = libbpf_num_possible_cpus();
	b->percpu = calloc(b->nr_cpus, sizeof(*b->percpu));
	if (!b->percpu)
		return -ENOMEM;
	/*
	 * One session at a time looks leaders up and loads them.  The last
	 * session removes the directory: one that waited for its lock finds
	 * it unlinked and starts again.
	 */
	for (;;) {
		err = registry_dir(b);
		if (!err)
			err = lock_registry(b);
		if (err)
			return err;
		if (!fstat(b->dir_fd, &st) && st.st_nlink)
			break;
		close(b->dir_fd);
		b->dir_fd = -1;
	}
	err = registry_map(b);
	old = libbpf_set_print(debug_libbpf_verbose);
	for (i = 0; !err && i < es->nr; i++) {
		b->c[i].ev = &es->ev[i];
		b->nr = i + 1;
		err = open_counter(b, &b->c[i]);
	}
	libbpf_set_print(old);
	flock(b->dir_fd, LOCK_UN);
	if (err)
		return err;
	/*
	 * The first diff of an idle CPU spans the time since its last context
	 * switch, before we came: taken now, and left out.
	 */
	err = stat_bperf_read(b);
	for (i = 0; !err && i < b->nr; i++) {
		memcpy(b->c[i].base, b->c[i].total, sizeof(b->c[i].base));
		memcpy(b->c[i].shown, b->c[i].total, sizeof(b->c[i].shown));
	}
	return err;
}

/*
 * Run the leader on @cpu: the diff since its last run goes to the
 * followers.  1 when the leader's event is gone: its owner exited.
 */
static int trigger(const struct bperf_counter *c, int cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	if (bpf_prog_test_run_opts(c->prog_fd, &o))
		return errno == ENXIO || errno == ENODEV ? 0 : -errno;	/* offline */
	return o.retval == BPERF_NO_EVENT;
}

/* Readings of every CPU; perf events re-installed when their owner left. */
static int sync_counter(struct stat_bperf *b, struct bperf_counter *c)
{
	int cpu, ret, missing = 0, err;

	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		ret = trigger(c, cpu);
		if (ret < 0)
			return ret;
		missing += ret;
	}
	if (!missing)
		return 0;
	/* the session that created the leader exited: one of us takes over */
	err = lock_registry(b);
	if (err)
		return err;
	for (cpu = 0, ret = 0; cpu < b->nr_cpus && !ret; cpu++)
		ret = trigger(c, cpu);
	err = ret > 0 ? install_events(b, c) : ret;
	if (ret > 0 && !err)
		err = own_events(b, c);
	flock(b->dir_fd, LOCK_UN);
	return err;
}

int stat_bperf_owner_fd(const struct stat_bperf *b, int i)
{
	return b->c[i].owner_fd;
}

int stat_bperf_owner_gone(struct stat_bperf *b, int i)
{
	struct bperf_counter *c = &b->c[i];
	int err;

	close(c->owner_fd);
	c->owner_fd = -1;
	err = sync_counter(b, c);
	/* another session was first: it is the owner to watch now */
	if (!err && !c->event_fds)
		watch_owner(b, c);
	return err;
}

/* Whether the session counts @cpu: every CPU, or those of -C. */
static bool counts_cpu(const struct stat_bperf *b, int cpu)
{
	int i;

	if (b->filter == BPERF_FILTER_GLOBAL)
		return true;
	for (i = 0; i < b->nr_keys; i++)
		if (b->keys[i] == (__u64)cpu)
			return true;
	return false;
}

/*
 * Slot @k of @c, summed over the CPUs: the follower's accumulator, or
 * the leader's totals of the CPUs counted (the base taken at the start
 * leaves out what came before).
 */
static int sum_slot(struct stat_bperf *b, struct bperf_counter *c, __u32 k)
{
	bool totals = c->total_fd >= 0;
	int cpu, fd = totals ? c->total_fd : bpf_map__fd(c->follower->maps.accum);

	if (bpf_map_lookup_elem(fd, &k, b->percpu))
		return -errno;
	memset(&c->total[k], 0, sizeof(c->total[k]));
	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		if (totals && !counts_cpu(b, cpu))
			continue;
		c->total[k].counter += b->percpu[cpu].counter;
		c->total[k].enabled += b->percpu[cpu].enabled;
		c->total[k].running += b->percpu[cpu].running;
	}
	return 0;
}

int stat_bperf_read(struct stat_bperf *b)
{
	int i, k, err, slots = b->filter == BPERF_FILTER_CGROUP ? b->nr_keys : 1;

	for (i = 0; i < b->nr; i++) {
		err = sync_counter(b, &b->c[i]);
		for (k = 0; !err && k < slots; k++)
			err = sum_slot(b, &b->c[i], k);
		if (err)
			return err;
	}
	return 0;
}

int stat_bperf_counts(struct stat_bperf *b, bool total, struct stat_count *out)
{
	int i, k, n = 0, slots = b->filter == BPERF_FILTER_CGROUP ? b->nr_keys : 1;

	/* cgroup by cgroup, perf's order with -G */
	for (k = 0; k < slots; k++) {
		for (i = 0; i < b->nr; i++, n++) {
			struct bperf_counter *c = &b->c[i];

			out[n] = (struct stat_count){
				.ev = c->ev,
				.who = b->filter == BPERF_FILTER_CGROUP ? b->names[k] : NULL,
			};
			stat_value_sub(&out[n].v, &c->total[k], total ? &c->base[k] : &c->shown[k]);
			c->shown[k] = c->total[k];
		}
	}
	return n;
}

/*
 * The registry goes with its last session: when no entry names a leader
 * whose link is still held (ours are closed by now), the pin and the
 * directory are removed, under the lock so that no session starts
 * between the check and the removal.
 */
static void remove_if_last(struct stat_bperf *b)
{
	struct perf_event_attr key, next;
	struct bperf_entry e;
	char at[PATH_MAX];
	void *prev = NULL;
	int fd;

	/* never what was refused: it is not ours to remove */
	if (b->dir_fd < 0 || !b->reg_ok || lock_registry(b))
		return;
	while (!bpf_map_get_next_key(b->reg_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(b->reg_fd, &key, &e))
			continue;
		fd = bpf_link_get_fd_by_id(e.link_id);
		if (fd >= 0) {
			close(fd);
			goto out;	/* another session's leader lives */
		}
	}
	in_dir(b, "registry", at, sizeof(at));
	unlink(at);
	/* empty now, unless someone put something else there */
	rmdir(b->dir);
out:
	flock(b->dir_fd, LOCK_UN);
}

void stat_bperf_close(struct stat_bperf *b)
{
	int i, cpu;

	if (!b->percpu)
		return;		/* never opened */
	for (i = 0; i < b->nr; i++) {
		struct bperf_counter *c = &b->c[i];

		stat_follower_bpf__destroy(c->follower);
		if (c->total_fd >= 0)
			close(c->total_fd);
		if (c->owner_fd >= 0)
			close(c->owner_fd);
		if (c->reused) {
			close(c->link_fd);
			close(c->prog_fd);
		}
		if (c->reused || !c->leader)
			close(c->events_fd);
		stat_leader_bpf__destroy(c->leader);
		for (cpu = 0; c->event_fds && cpu < b->nr_cpus; cpu++)
			if (c->event_fds[cpu] >= 0)
				close(c->event_fds[cpu]);
		free(c->event_fds);
	}
	remove_if_last(b);
	if (b->reg_fd >= 0)
		close(b->reg_fd);
	if (b->dir_fd >= 0)
		close(b->dir_fd);
	free(b->percpu);
	b->nr = 0;
	b->percpu = NULL;
}
