/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload's BPF objects still alive (linger.c): after the workload
 * exits, the recording goes on until they are released, or for at most
 * LINGER_MS.
 */
#ifndef BPFREC_LINGER_H
#define BPFREC_LINGER_H

#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"

/* The longest a recording goes on after its workload exited. */
#define LINGER_MS	1000

struct linger {
	__u32 pid;		/* the workload's process */
	struct hashmap objs;	/* kind << 32 | id: 1 while alive, 0 once released */
	size_t nr_alive;
};

/* A BPF_EVENT record of @type and @id, by process @pid. */
int linger_record(struct linger *l, __u16 type, __u32 id, __u32 pid);
void linger_free(struct linger *l);

#endif /* BPFREC_LINGER_H */
