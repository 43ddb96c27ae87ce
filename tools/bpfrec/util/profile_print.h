/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile's outputs: a table by sort keys (perf report's), the stacks
 * with their times (off-CPU), and folded stacks (one line per stack,
 * "comm;root;...;leaf COUNT", as Brendan Gregg's flame graph tools read).
 * Each shows the samples of one event.
 */
#ifndef BPFREC_PROFILE_PRINT_H
#define BPFREC_PROFILE_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "util/profile.h"

enum sort_key { SORT_COMM, SORT_DSO, SORT_SYM, SORT_BPF, SORT_PID, NR_SORT_KEYS };

struct profile_view {
	int event;			/* the samples shown */
	bool off_cpu;			/* weights are times (ns), not samples */
	/*
	 * --wall: the CPU samples of event (cpu-clock, their periods in ns)
	 * and the off-CPU intervals of off_event in one profile of time, each
	 * stack ending in its state.
	 */
	bool wall;
	int off_event;
	enum sort_key keys[NR_SORT_KEYS];
	size_t nr_keys;
	bool json;			/* JSON lines instead of text */
	int width;			/* the table fits it (util/fit.h); 0: no limit */
	const char *const *comms;	/* only the samples of these tasks; none: all */
	size_t nr_comms;
};

/* "comm,dso,sym,bpf,pid" or part of it: 0, or -EINVAL with one line in @err. */
int profile_parse_sort(struct profile_view *v, const char *spec, char *err, size_t errlen);

/* One folded line per distinct stack, sorted; the count is samples, or ns off CPU. */
int profile_print_folded(const struct profile *p, const struct profile_view *v, FILE *f);
/* Samples grouped by the view's keys, the heaviest first. */
int profile_print_table(const struct profile *p, const struct profile_view *v, FILE *f);
/* Each stack with its time and share, the heaviest first, and the total. */
int profile_print_stacks(const struct profile *p, const struct profile_view *v, FILE *f);

/*
 * The stacks of the view's event, each as its folded text (malloc'ed)
 * and weight, merged where texts are equal, sorted by text.  For the
 * flame graph too.
 */
struct folded {
	char *text;
	__u64 weight;
	__u64 off_weight;		/* the part off CPU (--wall), for the colours */
};

int profile_folded(const struct profile *p, const struct profile_view *v, struct folded **out,
		   size_t *nr);
void profile_folded_free(struct folded *f, size_t nr);

#endif /* BPFREC_PROFILE_PRINT_H */
