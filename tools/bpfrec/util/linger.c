// SPDX-License-Identifier: GPL-2.0
/*
 * The objects the workload created and that still exist.  A release can
 * come well after the workload exited: a child it left holds an fd, or
 * the kernel frees the object from a kworker or after an RCU grace
 * period (MAP_FREE, BTF_UNLOAD; PROG_UNLOAD on newer kernels).  Stopping
 * at the workload's exit lost those records, and report called the
 * objects alive.  Creations are matched by the workload's pid (the
 * record's tgid); releases by kind and id, whoever does them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include "util/linger.h"

int linger_record(struct linger *l, __u16 type, __u32 id, __u32 pid)
{
	/* creations are odd (PROG_LOAD, MAP_CREATE, ...), their release follows */
	__u64 key = (__u64)((type + 1) / 2) << 32 | id;
	__u64 *alive;

	if (type == PERF_BPF_EVENT_UNKNOWN || type >= PERF_BPF_EVENT_MAX)
		return 0;
	if (type & 1) {
		if (pid != l->pid)
			return 0;
		alive = hashmap_add(&l->objs, key, NULL);
		if (!alive)
			return -ENOMEM;
		l->nr_alive += !*alive;
		*alive = 1;
		return 0;
	}
	alive = hashmap_find(&l->objs, key);
	if (alive && *alive) {
		*alive = 0;
		l->nr_alive--;
		/* a storm's objects must not stay in memory once released */
		return hashmap_prune(&l->objs, l->nr_alive);
	}
	return 0;
}

void linger_free(struct linger *l)
{
	hashmap_free(&l->objs);
	l->nr_alive = 0;
}
