// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include "util/stat_count.h"

__u64 stat_count_scaled(const struct stat_count *c)
{
	if (!c->v.running || c->v.running >= c->v.enabled)
		return c->v.counter;
	return (__u64)((double)c->v.counter * c->v.enabled / c->v.running);
}

void stat_value_sub(struct bpf_perf_event_value *d, const struct bpf_perf_event_value *a,
		    const struct bpf_perf_event_value *b)
{
	d->counter = a->counter - b->counter;
	d->enabled = a->enabled - b->enabled;
	d->running = a->running - b->running;
}
