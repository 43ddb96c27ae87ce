/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `bpfrec top` shows: every program that ran since top started (and
 * with --idle the others), freed ones included, with its runs since then
 * and its rate over the last refresh; and the newest lifecycle events.
 * Drawn with ncurses on a terminal, or as plain lines when stdout is not
 * one.
 */
#ifndef BPFREC_TOP_VIEW_H
#define BPFREC_TOP_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "util/stat_progs.h"

#define TOP_EVENTS	4096		/* lifecycle lines kept: loaders storm */
#define TOP_EVENT_LEN	160

struct top_row {
	const struct sp_prog *p;
	__u64 runs, run_ns;		/* since top started */
	__u64 iv_runs, iv_ns;		/* over the last refresh */
};

struct top_view {
	enum sp_sort sort;
	char filter[64];		/* substring of a row's id, type, name or loader */
	bool idle;
	bool paused;
	/* the newest events, a ring */
	char events[TOP_EVENTS][TOP_EVENT_LEN];
	size_t nr_events, next_event;
	/* this refresh */
	struct top_row *rows;
	size_t nr_rows, nr_progs, nr_freed;
	__u64 iv_ns;			/* wall time of the refresh */
	double uptime_s;
};

/* Keep an event's line (@text) for the pane. */
void top_view_event(struct top_view *v, const char *text);
/* The rows of @s after a read, filtered and sorted; then the next refresh starts. */
int top_view_update(struct top_view *v, struct stat_progs *s, __u64 iv_ns);
/* One refresh as plain lines. */
void top_view_print(const struct top_view *v, FILE *f);
/* One refresh on the ncurses screen (initialised by the caller). */
void top_view_draw(const struct top_view *v);
void top_view_free(struct top_view *v);

#endif /* BPFREC_TOP_VIEW_H */
