/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifecycle events of `bpfrec serve` and `bpfrec top`, written out:
 * as JSON lines for log shippers, or as one line of text.  Both say what
 * happened (load, attach, free), to which program, and who did it (for a
 * free, the loader: the kernel frees in a worker, not in a task).
 */
#ifndef BPFREC_PROG_EVENTS_H
#define BPFREC_PROG_EVENTS_H

#include <stdio.h>
#include <stddef.h>
#include "util/stat_progs.h"

/* One JSON object and a newline, with the wall clock time @real_ns. */
void prog_event_json(FILE *f, const struct sp_event *e, __u64 real_ns);
/*
 * "17:50:01 load   id 123 xdp stat_target by stat-prog[1234]" into @buf,
 * made safe for a terminal.
 */
void prog_event_text(char *buf, size_t len, const struct sp_event *e, __u64 real_ns);
/* CLOCK_REALTIME in ns. */
__u64 real_ns(void);

#endif /* BPFREC_PROG_EVENTS_H */
