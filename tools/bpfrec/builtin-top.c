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

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

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

/* Keys until @deadline (CLOCK_MONOTONIC ns); true when asked to quit. */
static bool keys(struct top_view *v, __u64 deadline, bool *redraw)
{
	for (;;) {
		__u64 now = mono_ns();
		int c;

		if (stop)
			return true;
		if (now >= deadline)
			return false;
		timeout((deadline - now) / 1000000 + 1);
		c = getch();
		switch (c) {
		case 'q':
		case 'Q':
			return true;
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
			continue;
		}
		*redraw = true;
		return false;
	}
}

static void sleep_until(__u64 deadline)
{
	while (!stop) {
		__u64 now = mono_ns();
		struct timespec ts;

		if (now >= deadline)
			return;
		ts.tv_sec = (deadline - now) / 1000000000ULL;
		ts.tv_nsec = (deadline - now) % 1000000000ULL;
		nanosleep(&ts, NULL);
	}
}

static int run(struct top_opts *o, struct stat_progs *s, bool tty)
{
	__u64 start = mono_ns(), last = start, delay = o->delay * 1e9;
	unsigned long shown = 0;
	bool quit = false;
	int err;

	/* a first refresh at once would show rates over no time */
	if (tty) {
		bool redraw;

		mvaddstr(0, 0, "bpfrec top: the first refresh comes after one delay");
		refresh();
		while (!quit && mono_ns() < start + delay)
			quit = keys(&o->v, start + delay, &redraw);
	} else {
		sleep_until(start + delay);
		quit = stop;
	}
	if (quit)
		return 0;
	for (;;) {
		bool redraw = false;
		__u64 now = mono_ns();

		if (!o->v.paused) {
			err = stat_progs_read(s, false);
			if (!err)
				err = top_view_update(&o->v, s, now - last);
			if (err)
				return err;
			last = now;
		}
		o->v.uptime_s = (now - start) / 1e9;
		if (tty)
			top_view_draw(&o->v);
		else
			top_view_print(&o->v, stdout);
		if (o->iterations && ++shown >= o->iterations)
			return 0;
		if (!tty) {
			sleep_until(now + delay);
			if (stop)
				return 0;
			continue;
		}
		/* a key redraws at once; the refresh keeps its pace */
		while (!redraw || o->v.paused) {
			if (keys(&o->v, now + delay, &redraw))
				return 0;
			if (!redraw)
				break;
			if (o->v.paused) {
				top_view_draw(&o->v);
				redraw = false;
			}
		}
	}
}

int cmd_top(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, NULL, doc, cmd_help_children, NULL, NULL };
	struct top_opts o = { .delay = 1 };
	struct stat_progs s = { .stats_fd = -1 };
	struct stat_progs_opts po = { .on_event = on_event, .ctx = &o.v };
	bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
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
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	if (tty) {
		initscr();
		cbreak();
		noecho();
		keypad(stdscr, TRUE);
		curs_set(0);
	}
	err = run(&o, &s, tty);
	if (tty)
		endwin();
	if (err)
		fprintf(stderr, "bpfrec top: reading BPF program stats: %s\n", strerror(-err));
	stat_progs_close(&s);
	top_view_free(&o.v);
	return err ? BPFREC_EXIT_ERROR : BPFREC_EXIT_OK;
}
