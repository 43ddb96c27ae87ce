/* SPDX-License-Identifier: GPL-2.0 */
/*
 * COMM records of our own for the tasks the kernel sent none for, named
 * from /proc after each drain.
 */
#ifndef BPFREC_THREAD_NAMES_H
#define BPFREC_THREAD_NAMES_H

#include <stddef.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

struct task_names {
	struct hashmap tasks;	/* tid -> named, unnamed, or pending */
	struct pd_sample *pending;	/* earliest record of each unnamed task */
	size_t nr_pending, cap_pending;
};

/* The kernel named @tid in a COMM record. */
int names_comm(struct task_names *n, __u32 tid);
/* A record of task @s->tid at @s->time. */
int names_seen(struct task_names *n, const struct pd_sample *s);
/* Name the tasks seen since the last flush, where /proc can. */
int names_flush(struct task_names *n, struct pd_writer *w);
void names_free(struct task_names *n);

#endif /* BPFREC_THREAD_NAMES_H */
