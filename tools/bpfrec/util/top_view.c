// SPDX-License-Identifier: GPL-2.0
/* What `bpfrec top` shows: see top_view.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ncurses.h>
#include "util/printable.h"
#include "util/prog_metrics.h"
#include "util/top_view.h"

/* Freed programs kept on the screen at most: the oldest go first. */
#define TOP_MAX_GONE	512

void top_view_event(struct top_view *v, const char *text)
{
	snprintf(v->events[v->next_event], TOP_EVENT_LEN, "%s", text);
	v->next_event = (v->next_event + 1) % TOP_EVENTS;
	if (v->nr_events < TOP_EVENTS)
		v->nr_events++;
}

static bool matches(const struct top_view *v, const struct sp_prog *p)
{
	char id[16], type[32];

	if (!v->filter[0])
		return true;
	snprintf(id, sizeof(id), "%u", p->id);
	return strstr(p->name, v->filter) || strstr(p->loader.comm, v->filter) ||
	       strstr(prog_type_name(p->type, type, sizeof(type)), v->filter) ||
	       !strcmp(id, v->filter);
}

static enum sp_sort sort_key;

/* Busiest first: over the last refresh, then since the start. */
static int cmp_rows(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;
	const struct sp_sort_counts ca = { a->iv_runs, a->iv_ns, a->runs, a->run_ns };
	const struct sp_sort_counts cb = { b->iv_runs, b->iv_ns, b->runs, b->run_ns };

	return sp_cmp(sort_key, a->p, &ca, b->p, &cb);
}

struct prune {
	bool idle;		/* --idle: programs that never ran are shown too */
	size_t excess;		/* shown freed programs to forget, oldest first */
};

static bool never_ran(const struct sp_prog *p)
{
	return p->cnt <= p->base_cnt;
}

/*
 * Freed programs that never ran are not shown (without --idle): forgotten
 * at once, so that a loader's storm of them cannot push out a freed
 * program that ran.  Of the others, the oldest beyond TOP_MAX_GONE.
 */
static bool drop_gone(const struct sp_prog *p, void *ctx)
{
	struct prune *pr = ctx;

	if (p->state != SP_GONE)
		return false;
	if (!pr->idle && never_ran(p))
		return true;
	if (!pr->excess)
		return false;
	pr->excess--;
	return true;
}

int top_view_update(struct top_view *v, struct stat_progs *s, __u64 iv_ns)
{
	struct prune pr = { .idle = v->idle };
	struct top_row *r;
	size_t i, n = 0, nr_gone = 0;

	for (i = 0; i < s->nr; i++)
		nr_gone += s->p[i].state == SP_GONE && (v->idle || !never_ran(&s->p[i]));
	if (nr_gone > TOP_MAX_GONE)
		pr.excess = nr_gone - TOP_MAX_GONE;
	if (stat_progs_prune(s, drop_gone, &pr))
		return -ENOMEM;
	r = realloc(v->rows, (s->nr ? s->nr : 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	v->rows = r;
	v->nr_progs = v->nr_freed = 0;
	for (i = 0; i < s->nr; i++) {
		const struct sp_prog *p = &s->p[i];
		struct top_row row = { .p = p };

		v->nr_progs++;
		v->nr_freed += p->state != SP_LIVE;
		row.runs = p->cnt > p->base_cnt ? p->cnt - p->base_cnt : 0;
		row.run_ns = p->ns > p->base_ns ? p->ns - p->base_ns : 0;
		row.iv_runs = p->cnt > p->shown_cnt ? p->cnt - p->shown_cnt : 0;
		row.iv_ns = p->ns > p->shown_ns ? p->ns - p->shown_ns : 0;
		if ((row.runs || v->idle) && matches(v, p))
			r[n++] = row;
	}
	sort_key = v->sort;
	qsort(r, n, sizeof(*r), cmp_rows);
	v->nr_rows = n;
	v->iv_ns = iv_ns;
	stat_progs_next_interval(s);
	return 0;
}

static void age_of(const struct sp_prog *p, char *buf, size_t len)
{
	struct timespec ts;
	__u64 now, age;

	if (p->state != SP_LIVE) {
		snprintf(buf, len, "freed");
		return;
	}
	clock_gettime(CLOCK_BOOTTIME, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (!p->load_time || p->load_time > now) {
		snprintf(buf, len, "-");
		return;
	}
	age = (now - p->load_time) / 1000000000ULL;
	if (age < 120)
		snprintf(buf, len, "%llus", (unsigned long long)age);
	else if (age < 7200)
		snprintf(buf, len, "%llum", (unsigned long long)age / 60);
	else
		snprintf(buf, len, "%lluh", (unsigned long long)age / 3600);
}

#define HEADER_FMT	"%7s %-14s %-*s %10s %9s %8s %6s %-16s %5s"

/* One program's line, its name cut to @name_w columns. */
static void row_line(const struct top_view *v, const struct top_row *r, int name_w,
		     char *buf, size_t len)
{
	const struct sp_prog *p = r->p;
	char id[16] = "-", type[32], name[SP_NAME_LEN * 4], loader[80] = "-", age[16];
	double secs = v->iv_ns / 1e9;

	if (p->id)
		snprintf(id, sizeof(id), "%u", p->id);
	if (p->loader.pid) {
		char comm[64];

		snprintf(loader, sizeof(loader), "%s[%u]",
			 printable(p->loader.comm, comm, sizeof(comm)), p->loader.pid);
	}
	age_of(p, age, sizeof(age));
	printable(p->name, name, sizeof(name));
	snprintf(buf, len, "%7s %-14.14s %-*.*s %10llu %9.0f %8.0f %6.2f %-16.16s %5s", id,
		 prog_type_name(p->type, type, sizeof(type)), name_w, name_w, name,
		 (unsigned long long)r->runs, secs > 0 ? r->iv_runs / secs : 0.0,
		 r->runs ? (double)r->run_ns / r->runs : 0.0,
		 v->iv_ns ? 100.0 * r->iv_ns / v->iv_ns : 0.0, loader, age);
}

static void summary(const struct top_view *v, char *buf, size_t len)
{
	__u64 runs = 0, ns = 0;
	double secs = v->iv_ns / 1e9;
	size_t i;

	for (i = 0; i < v->nr_rows; i++) {
		runs += v->rows[i].iv_runs;
		ns += v->rows[i].iv_ns;
	}
	snprintf(buf, len, "bpfrec top - %.0fs  programs %zu (%zu freed)  runs/s %.0f  BPF CPU %.2f %%  sort %s%s%s%s",
		 v->uptime_s, v->nr_progs, v->nr_freed, secs > 0 ? runs / secs : 0.0,
		 v->iv_ns ? 100.0 * ns / v->iv_ns : 0.0, sp_sort_name(v->sort),
		 v->filter[0] ? "  filter " : "", v->filter, v->paused ? "  [paused]" : "");
}

/* The events that match the filter, oldest first, at most @max of the newest. */
static size_t events_shown(const struct top_view *v, size_t max, const char **out)
{
	size_t i, n = 0;

	for (i = 0; i < v->nr_events && n < max; i++) {
		size_t k = (v->next_event + TOP_EVENTS - 1 - i) % TOP_EVENTS;

		if (!v->filter[0] || strstr(v->events[k], v->filter))
			out[n++] = v->events[k];
	}
	/* newest last, as a log reads */
	for (i = 0; i < n / 2; i++) {
		const char *t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

void top_view_print(const struct top_view *v, FILE *f)
{
	const char *ev[TOP_EVENTS];
	char line[512];
	size_t i, n;

	summary(v, line, sizeof(line));
	fprintf(f, "%s\n", line);
	fprintf(f, HEADER_FMT "\n", "ID", "TYPE", 32, "NAME", "RUNS", "RUNS/S", "NS/RUN", "CPU%",
		"LOADER", "AGE");
	for (i = 0; i < v->nr_rows; i++) {
		row_line(v, &v->rows[i], 32, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	n = events_shown(v, 20, ev);
	for (i = 0; i < n; i++)
		fprintf(f, "event %s\n", ev[i]);
	fflush(f);
}

void top_view_draw(const struct top_view *v)
{
	int rows = LINES, cols = COLS, name_w = cols - 91, ev_h, list_h, y = 0;
	const char *ev[TOP_EVENTS];
	char line[1024];
	size_t i, n;

	if (name_w < 12)
		name_w = 12;
	if (name_w > 64)
		name_w = 64;
	/* a third of the screen for the lifecycle pane */
	ev_h = rows / 3;
	list_h = rows - ev_h - 4;
	erase();
	summary(v, line, sizeof(line));
	mvaddnstr(y++, 0, line, cols);
	attron(A_REVERSE);
	snprintf(line, sizeof(line), HEADER_FMT, "ID", "TYPE", name_w, "NAME", "RUNS", "RUNS/S",
		 "NS/RUN", "CPU%", "LOADER", "AGE");
	mvaddnstr(y++, 0, line, cols);
	attroff(A_REVERSE);
	for (i = 0; i < v->nr_rows && (int)i < list_h; i++) {
		row_line(v, &v->rows[i], name_w, line, sizeof(line));
		mvaddnstr(y++, 0, line, cols);
	}
	y = rows - ev_h - 2;
	attron(A_REVERSE);
	mvaddnstr(y++, 0, "lifecycle (newest last)", cols);
	attroff(A_REVERSE);
	n = events_shown(v, ev_h, ev);
	for (i = 0; i < n; i++)
		mvaddnstr(y++, 0, ev[i], cols);
	mvaddnstr(rows - 1, 0, "q quit  p pause  s sort  / filter  c clear filter", cols);
	refresh();
}

void top_view_free(struct top_view *v)
{
	free(v->rows);
	v->rows = NULL;
}
