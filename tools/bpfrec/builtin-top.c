// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec top: a live view of every BPF program's cost and of the newest
 * loads, attaches and frees, refreshed from the machinery of
 * `stat --all-progs` (util/stat_progs.c), drawn by util/top_view.c.
 * Programs that live shorter than a refresh are shown with all their
 * runs: the freed hook reports their final counts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ncurses.h>
#include "builtin.h"
#include "util/cmd_loop.h"
#include "util/debug.h"
#include "util/mono_clock.h"
#include "util/parse_num.h"
#include "util/prog_events.h"
#include "util/stat_progs.h"
#include "util/top_view.h"

static const char doc[] =
"Show every BPF program's cost, refreshed, and the newest lifecycle events.\n"
"\n"
"One row per program that ran since top started (--idle: every program),\n"
"freed ones included with all their runs, even those that lived shorter\n"
"than a refresh: RUNS since the start, RUNS/S and CPU % (of one CPU) over\n"
"the last refresh, NS/RUN since the start, the loader (for programs loaded\n"
"while top runs) and the age.  Below, the newest loads, link attaches and\n"
"frees, with who did them.\n"
"\n"
"Keys: q quits, p pauses, s changes the sort (time, runs, avg, id, name),\n"
"/ sets a filter (a substring of the type, name or loader, or an id), c\n"
"clears it.  When stdout is not a terminal, each refresh is printed as\n"
"plain lines instead (events as lines starting with \"event\").\n"
"\n"
"The run counts come from the kernel's BPF run time stats, on while top\n"
"runs: they cost every BPF program run two clock reads.\n"
"\n"
"EXAMPLES:\n"
"    bpfrec top\n"
"    bpfrec top -d 0.5 --sort runs --filter xdp\n"
"    bpfrec top -n 2 -d 1 | less          # two refreshes as plain lines\n";

enum { OPT_SORT = 0x100, OPT_FILTER, OPT_IDLE };

static const struct argp_option options[] = {
	{ "delay", 'd', "SEC", 0, "Refresh every SEC seconds (default 1, at least 0.1)", 0 },
	{ "iterations", 'n', "N", 0, "Stop after N refreshes", 0 },
	{ "sort", OPT_SORT, "KEY", 0, "time (default), runs, avg, id, name", 0 },
	{ "filter", OPT_FILTER, "TEXT", 0, "Only programs and events that contain TEXT", 0 },
	{ "idle", OPT_IDLE, NULL, 0, "Programs that did not run too", 0 },
	{},
};

struct top_opts {
	double delay;
	unsigned long iterations;
	struct top_view v;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;

	switch (key) {
	case 'd':
		if (parse_seconds(arg, 0.1, 3600, &o->delay))
			return cmd_usage_error(state, "-d wants seconds from 0.1 to 3600, not '%s'", arg);
		break;
	case 'n':
		if (parse_ulong(arg, &o->iterations) || !o->iterations)
			return cmd_usage_error(state, "-n wants a count of refreshes, not '%s'", arg);
		break;
	case OPT_SORT:
		if (sp_parse_sort(arg, &o->v.sort))
			return cmd_usage_error(state, "unknown sort key '%s': time, runs, avg, id or name",
					       arg);
		break;
	case OPT_FILTER:
		snprintf(o->v.filter, sizeof(o->v.filter), "%s", arg);
		break;
	case OPT_IDLE:
		o->v.idle = true;
		break;
	case ARGP_KEY_ARG:
		return cmd_usage_error(state, "unexpected argument '%s'", arg);
	default:
		return cmd_other_key(key, state);
	}
	return 0;
}

static void on_event(void *ctx, const struct sp_event *e)
{
	struct top_view *v = ctx;
	char line[TOP_EVENT_LEN];

	prog_event_text(line, sizeof(line), e, real_ns());
	top_view_event(v, line);
}

/* The filter typed after '/', on the last line; Esc keeps the old one. */
static void read_filter(struct top_view *v)
{
	char buf[sizeof(v->filter)] = "";
	size_t n = 0;
	int c;

	timeout(-1);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		printw("filter: %s", buf);
		refresh();
		c = getch();
		if (c == '\n' || c == KEY_ENTER || c == '\r')
			break;
		if (c == 27 || c == ERR)
			return;
		if ((c == KEY_BACKSPACE || c == 127 || c == 8) && n)
			buf[--n] = 0;
		else if (c >= 0x20 && c < 0x7f && n + 1 < sizeof(buf))
			buf[n++] = c, buf[n] = 0;
	}
	snprintf(v->filter, sizeof(v->filter), "%s", buf);
}

/* What a key asks for. */
enum key_action { KEY_NONE, KEY_REDRAW, KEY_QUIT };

static enum key_action key(struct top_view *v, int c)
{
	switch (c) {
	case 'q':
	case 'Q':
		return KEY_QUIT;
	case 'p':
	case ' ':
		v->paused = !v->paused;
		break;
	case 's':
		v->sort = (v->sort + 1) % (SP_SORT_NAME + 1);
		break;
	case '/':
		read_filter(v);
		break;
	case 'c':
		v->filter[0] = 0;
		break;
	case KEY_RESIZE:
		break;
	default:
		return KEY_NONE;
	}
	return KEY_REDRAW;
}

struct top_run {
	struct top_opts *o;
	struct stat_progs *s;
	struct cmd_loop loop;
	bool tty;
	bool started;		/* the first refresh came */
	unsigned long shown;	/* refreshes so far */
	__u64 start, last;	/* CLOCK_MONOTONIC ns: top's start, the last reading */
};

/* One refresh: the counts read since the last (unless paused), then drawn or printed. */
static int refresh_view(struct top_run *t)
{
	struct top_view *v = &t->o->v;
	__u64 now = mono_ns();
	int err;

	if (!v->paused) {
		err = stat_progs_read(t->s, false);
		if (!err)
			err = top_view_update(v, t->s, now - t->last);
		if (err)
			return err;
		t->last = now;
	}
	v->uptime_s = (now - t->start) / 1e9;
	if (t->tty)
		top_view_draw(v);
	else
		top_view_print(v, stdout);
	t->started = true;
	if (t->o->iterations && ++t->shown >= t->o->iterations)
		t->loop.stop = true;
	return 0;
}

static unsigned long delay_ms(const struct top_opts *o)
{
	return o->delay * 1000 + 0.5;
}

static int on_interval(void *ctx)
{
	return refresh_view(ctx);
}

/*
 * Every wakeup on a terminal (a key, a resize, a refresh): the keys typed.
 * A key that changes the view redraws at once, with a fresh reading, and
 * the next refresh comes one delay later; paused, it only redraws.
 * Before the first refresh, keys change the view but draw nothing: rates
 * over no time would be shown.
 */
static int on_wake(void *ctx)
{
	struct top_run *t = ctx;
	bool redraw = false;
	int c;

	if (!t->tty || t->loop.stop)
		return 0;
	timeout(0);
	while ((c = getch()) != ERR) {
		switch (key(&t->o->v, c)) {
		case KEY_QUIT:
			t->loop.stop = true;
			return 0;
		case KEY_REDRAW:
			redraw = true;
			timeout(0);
			break;
		case KEY_NONE:
			break;
		}
	}
	if (!redraw || !t->started)
		return 0;
	if (t->o->v.paused) {
		top_view_draw(&t->o->v);
		return 0;
	}
	return refresh_view(t) ?: cmd_loop_arm(&t->loop, 0, delay_ms(t->o));
}

/* Ctrl-C or SIGTERM ends top, exit 0 (no .signal) */
static const struct cmd_loop_ops loop_ops = {
	.interval = on_interval,
	.wake = on_wake,
};

static int run(struct top_run *t)
{
	int err = t->tty ? cmd_loop_add_fd(&t->loop, STDIN_FILENO, 0) : 0;

	if (err)
		return err;
	/* a first refresh at once would show rates over no time */
	t->start = t->last = mono_ns();
	if (t->tty) {
		mvaddstr(0, 0, "bpfrec top: the first refresh comes after one delay");
		refresh();
	}
	err = cmd_loop_arm(&t->loop, 0, delay_ms(t->o));
	return err ?: cmd_loop_run(&t->loop);
}

int cmd_top(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, NULL, doc, cmd_help_children, NULL, NULL };
	struct top_opts o = { .delay = 1 };
	struct stat_progs s = { .stats_fd = -1 };
	struct stat_progs_opts po = { .on_event = on_event, .ctx = &o.v };
	struct top_run t = {
		.o = &o,
		.s = &s,
		.loop = CMD_LOOP_INIT,
		.tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO),
	};
	int err;

	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &o);
	if (err)
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	err = stat_progs_open_opts(&s, &po);
	if (err) {
		errmsg_print();
		stat_progs_close(&s);
		return BPFREC_EXIT_ERROR;
	}
	/* the signals first: ncurses then leaves them to the loop */
	err = cmd_loop_init(&t.loop, 0, &loop_ops, &t);
	if (err) {
		fprintf(stderr, "bpfrec top: waiting for signals: %s\n", strerror(-err));
		stat_progs_close(&s);
		return BPFREC_EXIT_ERROR;
	}
	if (t.tty) {
		initscr();
		cbreak();
		noecho();
		keypad(stdscr, TRUE);
		curs_set(0);
	}
	err = run(&t);
	if (t.tty)
		endwin();
	if (err)
		fprintf(stderr, "bpfrec top: reading BPF program stats: %s\n", strerror(-err));
	cmd_loop_close(&t.loop);
	stat_progs_close(&s);
	top_view_free(&o.v);
	return err ? BPFREC_EXIT_ERROR : BPFREC_EXIT_OK;
}
