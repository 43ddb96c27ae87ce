// SPDX-License-Identifier: GPL-2.0
/*
 * The objects the workload created and that still exist.  A release can
 * come well after the workload exited: a child it left holds an fd, or
 * the kernel frees the object from a kworker or after an RCU grace
 * period (MAP_FREE, BTF_UNLOAD; PROG_UNLOAD and LINK_RELEASE on newer
 * kernels).  Stopping at the workload's exit lost those records, and
 * report called the objects alive.  Creations are matched by the workload's pid (the
 * record's tgid); releases by kind and id, whoever does them.
 */
#include <errno.h>
#include "util/linger.h"
#include "util/perf_data/perf_data.h"

int linger_record(struct linger *l, __u16 type, __u32 id, __u32 pid)
{
	enum pd_bpf_change change;
	enum pd_kind kind;
	__u64 key, *alive;

	/* a link detached or updated is still alive */
	if (!pd_bpf_event_kind(type, &kind, &change) || change == PD_BPF_CHANGE)
		return 0;
	key = (__u64)kind << 32 | id;
	if (change == PD_BPF_CREATE) {
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
