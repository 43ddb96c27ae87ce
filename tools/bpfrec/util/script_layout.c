// SPDX-License-Identifier: GPL-2.0
/*
 * The text lines of `script` (util/script_layout.h): columns as wide as
 * their longest value in the file, narrowed to the output's width where
 * names give way first, cut in the middle (util/fit.h) and still
 * distinct, so that the details keep their room; lines wrapped at a
 * space, never cut.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "util/fit.h"
#include "util/printable.h"
#include "util/script_layout.h"

/*
 * Text columns whose values vary in length are as wide as their longest
 * value in the file, within bounds; a longer comm, event, name or type is
 * cut in the middle, where FIT_MARK shows the cut (put_col()).
 * COMM stays at 16: a task's comm is at most 15 characters (only /proc's
 * names of kernel threads are longer) and readers of the text rely on it.
 */
static const struct script_widths min_widths = {
	.time = 8, .pidtid = 7, .comm = 16, .event = 12, .id = 6, .name = 16, .type = 20,
	.name_head = -1, .type_head = -1,
};
/* names are as long as they are: fit_width() narrows them to the line */
static const struct script_widths max_widths = {
	.time = 20, .pidtid = 23, .comm = 16, .event = 16, .id = 10, .name = 512, .type = 64,
	.details = 8192,
};
/*
 * The room the columns leave to the details when names must give way:
 * all of it on a terminal, where a longer line wraps and breaks the
 * table; into a pipe, as much as the longest details of the file need,
 * up to this.  It holds what a lifecycle line says of its object
 * ("unresolved", "jited=412 xlated=696", "prog=12 captured self").
 * Longer details (a map's four sizes, a load's maps and functions, a
 * sample's address and period) go on past the width.
 */
#define DETAILS_ROOM	32
/*
 * Into a pipe, a line past the width is only long (its reader has it
 * whole), so names give way to the details only down to this: most
 * kernel functions' and programs' names are shorter (72% of a 6.12
 * kernel's), and beside the other columns at their widest usual widths
 * (113 of 160, with pids and program ids of 7 digits) a lifecycle line's
 * marks and sizes still fit.  The columns alone cut names to 16.
 */
#define NAME_KEEP	28
/* a wrapped line goes on after this */
#define WRAP_INDENT	"    "
#define CPU_WIDTH	5
#define ID_WIDTH	6
#define TAG_WIDTH	16

/* Text of a record (a comm, a name) as shown: control characters escaped. */
#define TEXT_LEN	1024


static int widen(int width, int max, const char *s)
{
	int len = strlen(s);

	if (len > width)
		width = len < max ? len : max;
	return width;
}

/* The time, CPU and PID/TID columns of a row. */
struct where {
	char time[32], cpu[16], pidtid[32];
};

static void row_where(const struct script_row *r, struct where *wh)
{
	const struct pd_sample *s = &r->e->sample;

	if (!r->e->has_sample) {
		strcpy(wh->time, "-");
		strcpy(wh->cpu, "[-]");
		strcpy(wh->pidtid, "-/-");
		return;
	}
	timeline_time(s->time, wh->time, sizeof(wh->time));
	snprintf(wh->cpu, sizeof(wh->cpu), "[%03u]", s->cpu);
	snprintf(wh->pidtid, sizeof(wh->pidtid), "%u/%u", s->pid, s->tid);
}

/* A text line being built, cut at the width when printed. */
struct line {
	char buf[8192];
	size_t len;
};

static void put_details(struct line *l, const struct script_row *r);

static void fit_widths(struct script_widths *w, const struct script_row *r)
{
	char text[TEXT_LEN], id[16];
	struct line details;
	struct where wh;

	row_where(r, &wh);
	details.len = 0;
	put_details(&details, r);
	details.buf[details.len] = '\0';
	/* the details' first space is the separator after the tag */
	w->details = widen(w->details, max_widths.details, details.len ? details.buf + 1 : "");
	if (r->has_id) {
		snprintf(id, sizeof(id), "%u", r->id);
		w->id = widen(w->id, max_widths.id, id);
	}
	w->time = widen(w->time, max_widths.time, wh.time);
	w->pidtid = widen(w->pidtid, max_widths.pidtid, wh.pidtid);
	w->comm = widen(w->comm, max_widths.comm, printable(script_row_comm(r), text, sizeof(text)));
	w->event = widen(w->event, max_widths.event, r->event);
	w->name = widen(w->name, max_widths.name, printable(script_row_name(r), text, sizeof(text)));
	w->type = widen(w->type, max_widths.type, printable(script_row_type(r), text, sizeof(text)));
}

/* The columns before the details, with their spaces (the details' first too). */
static int columns(const struct script_widths *w)
{
	return w->time + CPU_WIDTH + w->pidtid + w->comm + w->event + w->id + w->name + w->type +
	       TAG_WIDTH + 9;
}

/* Column *@col narrowed by up to @over, down to @least: what is still over. */
static int give_way(int *col, int least, int over)
{
	int cut = *col - least < over ? *col - least : over;

	if (cut <= 0)
		return over;
	*col -= cut;
	return over - cut;
}

/*
 * Within @width columns: first the details' room (DETAILS_ROOM when
 * lines wrap, @wrap; else what they need, up to that), the name giving
 * way down to NAME_KEEP into a pipe, then the type; then the columns
 * themselves, the name giving way down to its least width, then the type.
 */
static void fit_width(struct script_widths *w, unsigned long width, bool wrap)
{
	int room = wrap || w->details > DETAILS_ROOM ? DETAILS_ROOM : w->details,
	    keep = wrap ? min_widths.name : NAME_KEEP, over;

	if (!width)
		return;
	over = give_way(&w->name, keep, columns(w) + room - (int)width);
	give_way(&w->type, min_widths.type, over);
	over = give_way(&w->name, min_widths.name, columns(w) - (int)width);
	give_way(&w->type, min_widths.type, over);
}

static void __attribute__((format(printf, 2, 3))) put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->buf) - l->len ? (size_t)n : sizeof(l->buf) - 1 - l->len;
}

/*
 * @s, escaped, left-aligned in @width columns, cut to fit with @head
 * characters of its start kept (-1: in the middle), then a space.
 */
static void put_col(struct line *l, const char *s, int width, int head)
{
	char text[TEXT_LEN], cut[TEXT_LEN];

	printable(s, text, sizeof(text));
	put(l, "%-*s ", width, fit_cut_at(text, width, head, cut, sizeof(cut)));
}

/* The details of @r, each after a space. */
static void put_details(struct line *l, const struct script_row *r)
{
	char text[TEXT_LEN];
	__u32 n;
	int i;

	for (i = 0; i < r->nr_kv; i++) {
		const struct sr_kv *kv = &r->kv[i];

		switch (kv->kind) {
		case SR_KV_U64:
			put(l, " %s=%llu", kv->key, (unsigned long long)kv->num);
			break;
		case SR_KV_HEX:
			put(l, " %s=0x%llx", kv->key, (unsigned long long)kv->num);
			break;
		case SR_KV_STR:
			put(l, " %s=%s", kv->key, printable(kv->str, text, sizeof(text)));
			break;
		case SR_KV_FLAG:
			put(l, " %s", kv->key);
			break;
		case SR_KV_META:
			for (n = 0; n < r->nr_meta; n++) {
				put(l, " %s.", kv->key);
				put(l, "%s=", printable(r->meta_key[n], text, sizeof(text)));
				put(l, "%s", printable(r->meta_value[n], text, sizeof(text)));
			}
			break;
		}
	}
}

/* The end of the text from @s to @end without its trailing spaces. */
static const char *trimmed(const char *s, const char *end)
{
	while (end > s && end[-1] == ' ')
		end--;
	return end;
}

/*
 * The line, wrapped at @width (0: never) at a space where there is one,
 * the rest on lines of their own after WRAP_INDENT: nothing is cut.
 */
static void put_line(struct line *l, unsigned long width)
{
	const unsigned long indent = sizeof(WRAP_INDENT) - 1;
	char *s = l->buf, *brk;
	unsigned long room = width;

	l->buf[l->len] = '\0';
	while (width > indent + 8 && strlen(s) > room) {
		for (brk = s + room; brk > s && *brk != ' '; brk--)
			;
		if (brk == s)
			brk = s + room;
		printf("%.*s\n%s", (int)(trimmed(s, brk) - s), s, WRAP_INDENT);
		/* the next line starts with text, not with a column's padding */
		for (s = brk; *s == ' '; s++)
			;
		room = width - indent;
	}
	puts(s);
}

void script_print_text(const struct script_row *r, const struct script_widths *w,
		       unsigned long width, unsigned int f)
{
	char id[16], pid[16];
	struct line l = {};
	struct where wh;

	row_where(r, &wh);
	if (r->has_id)
		snprintf(id, sizeof(id), "%u", r->id);
	else
		strcpy(id, "-");
	if (f & 1U << SF_TIME)
		put(&l, "%*s ", w->time, wh.time);
	if (f & 1U << SF_CPU)
		put(&l, "%*s ", CPU_WIDTH, wh.cpu);
	if ((f & 1U << SF_PID) && (f & 1U << SF_TID))
		put(&l, "%*s ", w->pidtid, wh.pidtid);
	else if (f & (1U << SF_PID | 1U << SF_TID))
		put(&l, "%*s ", ID_WIDTH + 1, !r->e->has_sample ? "-" :
		    (snprintf(pid, sizeof(pid), "%u", f & 1U << SF_PID ? r->e->sample.pid :
			      r->e->sample.tid), pid));
	if (f & 1U << SF_COMM)
		put_col(&l, script_row_comm(r), w->comm, -1);
	if (f & 1U << SF_EVENT)
		put_col(&l, r->event, w->event, -1);
	if (f & 1U << SF_ID)
		put(&l, "%*s ", w->id, id);
	if (f & 1U << SF_NAME)
		put_col(&l, script_row_name(r), w->name, w->name_head);
	if (f & 1U << SF_TYPE)
		put_col(&l, script_row_type(r), w->type, w->type_head);
	/* padded only when details follow: no line ends in spaces */
	if (f & 1U << SF_TAG)
		put(&l, r->nr_kv && (f & 1U << SF_DETAILS) ? "%-*s" : "%.*s", TAG_WIDTH,
		    r->tag[0] ? r->tag : "-");
	/* no line ends in spaces */
	if (!r->nr_kv || !(f & 1U << SF_DETAILS))
		while (l.len && l.buf[l.len - 1] == ' ')
			l.len--;
	if (f & 1U << SF_DETAILS)
		put_details(&l, r);
	put_line(&l, width);
}

void script_print_header(const struct script_widths *w, unsigned long width, unsigned int f)
{
	struct line l = {};

	put(&l, "#");
	if (f & 1U << SF_TIME)
		put(&l, "%*s ", w->time - 1, "TIME");
	if (f & 1U << SF_CPU)
		put(&l, "%*s ", CPU_WIDTH - (l.len == 1), "CPU");
	if ((f & 1U << SF_PID) && (f & 1U << SF_TID))
		put(&l, "%*s ", w->pidtid - (l.len == 1), "PID/TID");
	else if (f & (1U << SF_PID | 1U << SF_TID))
		put(&l, "%*s ", ID_WIDTH + 1 - (l.len == 1), f & 1U << SF_PID ? "PID" : "TID");
	if (f & 1U << SF_COMM)
		put(&l, "%-*s ", w->comm - (l.len == 1), "COMM");
	if (f & 1U << SF_EVENT)
		put(&l, "%-*s ", w->event - (l.len == 1), "EVENT");
	if (f & 1U << SF_ID)
		put(&l, "%*s ", w->id - (l.len == 1), "ID");
	if (f & 1U << SF_NAME)
		put(&l, "%-*s ", w->name - (l.len == 1), "NAME");
	if (f & 1U << SF_TYPE)
		put(&l, "%-*s ", w->type - (l.len == 1), "TYPE");
	if (f & 1U << SF_TAG)
		put(&l, "%-*s ", TAG_WIDTH - (l.len == 1), "TAG");
	if (f & 1U << SF_DETAILS)
		put(&l, "DETAILS");
	while (l.len && l.buf[l.len - 1] == ' ')
		l.len--;
	put_line(&l, width);
}

void script_print_callchain(struct script_rows *rs, const struct script_row *r)
{
	struct script_frames it;
	struct script_frame f;

	script_frames_start(&it, r);
	while (script_frames_next(rs, r, &it, &f)) {
		if (f.sym && f.dso)
			printf("\t%16llx %s+0x%llx (%s)\n", (unsigned long long)f.addr, f.sym,
			       (unsigned long long)f.off, user_syms_base_name(f.dso));
		else if (f.sym)
			printf("\t%16llx %s+0x%llx\n", (unsigned long long)f.addr, f.sym,
			       (unsigned long long)f.off);
		else if (f.dso)
			printf("\t%16llx [%s]\n", (unsigned long long)f.addr,
			       user_syms_base_name(f.dso));
		else
			printf("\t%16llx [%s]\n", (unsigned long long)f.addr, f.where);
	}
}

void script_output_width(bool wide, bool width_set, unsigned long width, unsigned long *budget,
			 unsigned long *cut)
{
	struct winsize ws;

	if (wide) {
		*budget = *cut = 0;
		return;
	}
	if (width_set) {
		*budget = *cut = width;
		return;
	}
	*budget = FIT_PIPE_WIDTH;
	*cut = 0;
	if (isatty(STDOUT_FILENO)) {
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
			*budget = ws.ws_col;
		*cut = *budget;
	}
}

/*
 * The cuts of the strings of @t at *@width kept distinct: by where they
 * are cut (*@head), else, when the strings differ too far inside for any
 * cut at that width, by *@width raised until the balanced cuts differ (a
 * name told apart matters more than the details' room).
 */
static int unique_cut(const struct intern *t, int *width, int *head)
{
	const char **v = calloc(t->nr ? t->nr : 1, sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		v[i] = intern_str_get(t, i);
	*head = fit_unique_head(v, t->nr, *width);
	if (*head < 0)
		*width = fit_unique_width(v, t->nr, *width);
	free(v);
	return 0;
}

void script_measure_init(struct script_measure *m)
{
	memset(m, 0, sizeof(*m));
	m->w = min_widths;
}

int script_measure_row(struct script_measure *m, const struct script_row *r)
{
	char text[TEXT_LEN];
	__u32 id;

	fit_widths(&m->w, r);
	/* the distinct names and types: their cuts must stay distinct */
	if (intern_str(&m->names, printable(script_row_name(r), text, sizeof(text)), &id) ||
	    intern_str(&m->types, printable(script_row_type(r), text, sizeof(text)), &id))
		return -ENOMEM;
	return 0;
}

int script_measure_fit(struct script_measure *m, unsigned long width, bool wrap)
{
	struct script_widths natural = m->w;
	int ret = 0;

	fit_width(&m->w, width, wrap);
	if (m->w.name < natural.name)
		ret = unique_cut(&m->names, &m->w.name, &m->w.name_head);
	if (!ret && m->w.type < natural.type)
		ret = unique_cut(&m->types, &m->w.type, &m->w.type_head);
	return ret;
}

void script_measure_free(struct script_measure *m)
{
	intern_free(&m->names);
	intern_free(&m->types);
}
