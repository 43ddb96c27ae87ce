/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics of `bpfrec serve`, in Prometheus' text format or in
 * OpenMetrics: every program's runs and run time, per program while it
 * lives and per name for good, the lifecycle counted by kind, type and
 * loader, lost records and the daemon's own cost.
 *
 * The label sets stay bounded.  Per-program series exist only for the
 * programs alive at a scrape (and those freed since the last one, once,
 * with their final counts), so they are as many as the kernel holds.
 * The per-name series sum every program of a name, type and loader,
 * freed ones included, so that a program that lived between two scrapes
 * still adds its runs; at most max_names of them, the programs of any
 * further name are summed under name "_other".
 */
#ifndef BPFREC_PROG_METRICS_H
#define BPFREC_PROG_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "util/hashmap.h"
#include "util/stat_progs.h"

#define PM_OTHER	"_other"

/* One per-name series, or one lifecycle counter. */
struct pm_series {
	char name[SP_NAME_LEN];		/* the lifecycle's: "load", "attach", "free" */
	char type[32];
	char loader[16];
	__u64 runs, ns;			/* per name: freed programs' totals */
	__u64 count;			/* lifecycle: events */
};

struct pm_table {
	struct pm_series *s;
	size_t nr, cap;
	struct hashmap index;		/* hash of the labels -> index + 1 */
};

struct prog_metrics {
	size_t max_names;		/* per table */
	struct pm_table names;
	struct pm_table life;
	__u64 overflow;			/* programs and events summed under "_other" */
	bool lifecycle_only;		/* no run counts: say so, show none */
};

/* What the daemon says of itself at a scrape. */
struct pm_self {
	double cpu_s;			/* its CPU time since start */
	double scrape_cpu_s;		/* of which in scrapes, this one not included */
	__u64 scrapes;
	__u64 lost_freed;		/* freed programs the hook's ring lost */
	__u64 lost_capture;		/* loads and attaches the capture's ring lost */
	__u64 events_dropped;		/* JSON lines not written (a full pipe) */
};

void prog_metrics_init(struct prog_metrics *m, size_t max_names, bool lifecycle_only);
/* Count one lifecycle event. */
int prog_metrics_event(struct prog_metrics *m, const struct sp_event *e);
/*
 * Write every metric of @s's programs to @f, OpenMetrics when @om, else
 * Prometheus text 0.0.4.
 */
int prog_metrics_write(struct prog_metrics *m, struct stat_progs *s, const struct pm_self *self,
		       bool om, FILE *f);
/*
 * After a scrape: add the freed programs already shown to their names'
 * series and forget them.
 */
int prog_metrics_fold(struct prog_metrics *m, struct stat_progs *s);
void prog_metrics_free(struct prog_metrics *m);

/* The program type's name as bpftool writes it ("xdp"), or "type N". */
const char *prog_type_name(__u32 type, char *buf, size_t len);

#endif /* BPFREC_PROG_METRICS_H */
