// SPDX-License-Identifier: GPL-2.0
/*
 * The summary `report` prints of a recording's lifecycle
 * (util/lifecycle.h): the file's header lines; the objects by kind and
 * type and by creating process, their lifetimes, those of maps by name,
 * the links detached and updated, the objects alive at the end; or one
 * table by creator or link target (--by).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "util/fit.h"
#include "util/lifecycle_print.h"
#include "util/printable.h"

/* At most this many survivors are listed one by one. */
#define MAX_ALIVE_LISTED	50
/* And this many creating processes, the most prolific first; the rest summed. */
#define MAX_LOADERS_LISTED	20

struct type_count {
	enum pd_kind kind;
	const char *type;
	size_t created, destroyed, alive, synthesised, unresolved;
};

static int type_cmp(const void *a, const void *b)
{
	const struct lc_obj *x = *(const struct lc_obj **)a, *y = *(const struct lc_obj **)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->type, y->type);
}

static bool alive(const struct lc_obj *o)
{
	return (o->created || o->synthesised) && !o->destroyed;
}

/* What is left out of the tables of the user's objects. */
static void self_line(const bool *recorded, const char *what, const size_t cnt[PD_NR_KINDS])
{
	int k, n = 0;

	if (!cnt[PD_PROG] && !cnt[PD_MAP] && !cnt[PD_LINK] && !cnt[PD_BTF])
		return;
	printf("  %s %s:", TL_SELF_NAME, what);
	for (k = 0; k < PD_NR_KINDS; k++)
		if (recorded[k])
			printf("%s %zu %s", n++ ? "," : "", cnt[k], pd_kind_name(k));
	putchar('\n');
}

/* The kinds the file has no records of, said once where they would be. */
static void not_recorded_line(const bool *recorded)
{
	int k, n = 0;

	for (k = 0; k < PD_NR_KINDS; k++)
		if (!recorded[k])
			printf("%s%s", n++ ? ", " : "  not recorded: ", pd_kind_name(k));
	if (n)
		printf(" (the kernel of the recording has no records of them: bpf_obj_event)\n");
}

/* The recorder's own objects are counted apart, in a line of their own. */
static void by_type(struct lc_obj **v, size_t n, const bool *recorded)
{
	size_t i = 0, j, self[PD_NR_KINDS] = { 0 };

	qsort(v, n, sizeof(*v), type_cmp);
	printf("\nObjects by kind and type:\n");
	printf("  %-5s %-24s %8s %10s %6s %12s %11s\n", "KIND", "TYPE",
	       "CREATED", "DESTROYED", "ALIVE", "SYNTHESISED", "UNRESOLVED");
	while (i < n) {
		struct type_count c = { .kind = v[i]->kind, .type = v[i]->type };
		size_t nr = 0;

		for (j = i; j < n && !type_cmp(&v[i], &v[j]); j++) {
			if (v[j]->self) {
				self[v[j]->kind]++;
				continue;
			}
			nr++;
			c.created += v[j]->created;
			c.destroyed += v[j]->destroyed;
			c.alive += alive(v[j]);
			c.synthesised += v[j]->synthesised;
			c.unresolved += v[j]->unresolved;
		}
		if (nr)
			printf("  %-5s %-24s %8zu %10zu %6zu %12zu %11zu\n",
			       pd_kind_name(c.kind), c.type, c.created,
			       c.destroyed, c.alive, c.synthesised, c.unresolved);
		i = j;
	}
	self_line(recorded, "not counted", self);
	not_recorded_line(recorded);
}

static int proc_cmp(const void *a, const void *b)
{
	const struct lc_obj *x = *(const struct lc_obj **)a, *y = *(const struct lc_obj **)b;
	int r;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	r = strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	return r;
}

/* One creating process: its first object, and how many of each kind. */
struct loader {
	const struct lc_obj *o;
	size_t cnt[PD_NR_KINDS], total;
};

static int loader_cmp(const void *a, const void *b)
{
	const struct loader *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->o->pid < y->o->pid ? -1 : x->o->pid > y->o->pid;
}

static void loader_line(const bool *recorded, const char *pid, const char *comm,
			const size_t *cnt)
{
	char text[64];
	int k;

	printf("  %8s %-16s", pid, printable(comm, text, sizeof(text)));
	for (k = 0; k < PD_NR_KINDS; k++)
		if (recorded[k])
			printf(" %7zu", cnt[k]);
	putchar('\n');
}

/*
 * A storm of short-lived loaders is thousands of processes: the first
 * MAX_LOADERS_LISTED by number of objects, then one line for the rest.
 */
static int by_process(struct lc_obj **v, size_t n, const bool *recorded)
{
	struct loader *l = calloc(n ? n : 1, sizeof(*l));
	size_t i = 0, j, k, nr = 0, rest[PD_NR_KINDS] = {};
	char pid[16], others[32];

	if (!l)
		return -1;
	qsort(v, n, sizeof(*v), proc_cmp);
	for (i = 0; i < n; i = j, nr++) {
		l[nr].o = v[i];
		for (j = i; j < n && !proc_cmp(&v[i], &v[j]); j++)
			l[nr].cnt[v[j]->kind]++;
		l[nr].total = j - i;
	}
	qsort(l, nr, sizeof(*l), loader_cmp);
	printf("\nObjects by creating process:\n");
	printf("  %8s %-16s", "PID", "COMM");
	for (k = 0; k < PD_NR_KINDS; k++)
		if (recorded[k])
			printf(" %7s", (const char *[]){ "PROGS", "MAPS", "LINKS", "BTF" }[k]);
	putchar('\n');
	for (i = 0; i < nr && i < MAX_LOADERS_LISTED; i++) {
		const struct lc_obj *o = l[i].o;

		snprintf(pid, sizeof(pid), "%u", o->pid);
		if (o->pid)
			loader_line(recorded, pid, o->comm ? o->comm : "-", l[i].cnt);
		else
			loader_line(recorded, "-", o->comm ? o->comm : "(unknown)", l[i].cnt);
	}
	for (; i < nr; i++)
		for (k = 0; k < PD_NR_KINDS; k++)
			rest[k] += l[i].cnt[k];
	if (nr > MAX_LOADERS_LISTED) {
		snprintf(others, sizeof(others), "(%zu others)", nr - MAX_LOADERS_LISTED);
		loader_line(recorded, "-", others, rest);
	}
	free(l);
	return 0;
}

/*
 * One object, or one LINK_DETACH or LINK_UPDATE, with what --by groups it
 * by: its creator (who made the change), or a link's target.
 */
struct by_item {
	int kind;			/* enum pd_kind, or -1: a link change it made */
	__u32 pid;
	const char *comm;
	const struct pd_loader *loader;
	const char *type;		/* a link's */
	const char *target;
	bool alive;
	bool synthesised;		/* existed at start: no creator seen */
	size_t detaches, updates;
};

/* What stands for a creator the capture did not see. */
static const char *item_unknown(const struct by_item *x)
{
	return x->synthesised ? "(existed at start)" : "-";
}

static const char *item_exe(const struct by_item *x)
{
	return x->loader && x->loader->exe[0] ? x->loader->exe : item_unknown(x);
}

static const char *item_cgroup(const struct by_item *x)
{
	return x->loader && x->loader->cgroup[0] ? x->loader->cgroup : item_unknown(x);
}

static const char *item_target(const struct by_item *x)
{
	return x->target && x->target[0] ? x->target : "-";
}

/* Whether two items are in one group of --by. */
static int by_cmp(const void *a, const void *b, void *by)
{
	const struct by_item *x = a, *y = b;
	int r;

	switch (*(const enum lc_by *)by) {
	case LC_BY_LOADER:
		if (x->pid != y->pid)
			return x->pid < y->pid ? -1 : 1;
		r = strcmp(item_exe(x), item_exe(y));
		return r ? r : strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	case LC_BY_EXE:
		return strcmp(item_exe(x), item_exe(y));
	case LC_BY_CGROUP:
		return strcmp(item_cgroup(x), item_cgroup(y));
	default:
		r = strcmp(x->type, y->type);
		return r ? r : strcmp(item_target(x), item_target(y));
	}
}

/* One row of --by: its first item, the objects of each kind and the link changes. */
struct by_group {
	const struct by_item *x;
	size_t cnt[PD_NR_KINDS], total, changes, alive, detaches, updates;
};

static int by_group_cmp(const void *a, const void *b, void *by)
{
	const struct by_group *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return by_cmp(x->x, y->x, by);
}

static void by_line(const struct by_group *g, const char *others, enum lc_by by,
		    const bool *recorded)
{
	char text[4 * PD_PATH_LEN + 1], pid[16], uid[16];
	const struct by_item *x = g->x;
	int k;

	if (by == LC_BY_TARGET) {
		printf("  %7zu %7zu %8zu %8zu %-24s %s\n", g->total, g->alive, g->detaches,
		       g->updates, others ? "-" : x->type,
		       others ? others : printable(item_target(x), text, sizeof(text)));
		return;
	}
	if (by == LC_BY_LOADER) {
		snprintf(pid, sizeof(pid), x->pid && !others ? "%u" : "-", x->pid);
		snprintf(uid, sizeof(uid), x->loader && !others ? "%u" : "-",
			 x->loader ? x->loader->uid : 0);
		printf("  %8s %-18s %6s", pid,
		       others ? "-" : printable(x->comm ? x->comm : item_unknown(x), text,
						sizeof(text)), uid);
	}
	for (k = 0; k < PD_NR_KINDS; k++)
		if (recorded[k])
			printf(" %7zu", g->cnt[k]);
	printf(" %7zu %s\n", g->changes,
	       others ? others : printable(by == LC_BY_CGROUP ? item_cgroup(x) : item_exe(x),
					   text, sizeof(text)));
}

/*
 * report --by: the user's objects grouped by their creator's process,
 * executable or cgroup (with the link changes each made), or the links by
 * their target; the most objects first, MAX_LOADERS_LISTED rows, then one
 * line for the rest.
 */
int lifecycle_print_by(const struct lifecycle *c, enum lc_by by)
{
	struct by_item *v = calloc(c->nr + c->nr_changes + 1, sizeof(*v));
	struct by_group *g = calloc(c->nr + c->nr_changes + 1, sizeof(*g));
	size_t i, j, n = 0, nr = 0, self[PD_NR_KINDS] = { 0 };
	struct by_group rest = {};
	char others[32];
	int k;

	if (!v || !g) {
		free(v);
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < c->nr; i++) {
		const struct lc_obj *o = &c->objs[i];

		if (o->self) {
			self[o->kind]++;
			continue;
		}
		if (by == LC_BY_TARGET && o->kind != PD_LINK)
			continue;
		v[n++] = (struct by_item){ .kind = o->kind, .pid = o->pid, .comm = o->comm,
					   .loader = o->loader, .type = o->type,
					   .target = o->target, .alive = alive(o),
					   .synthesised = o->synthesised && !o->loader,
					   .detaches = o->detaches, .updates = o->updates };
	}
	for (i = 0; by != LC_BY_TARGET && i < c->nr_changes; i++)
		v[n++] = (struct by_item){ .kind = -1, .pid = c->changes[i].pid,
					   .comm = c->changes[i].comm,
					   .loader = c->changes[i].loader, .type = "" };
	qsort_r(v, n, sizeof(*v), by_cmp, &by);
	for (i = 0; i < n; i = j, nr++) {
		g[nr].x = &v[i];
		for (j = i; j < n && !by_cmp(&v[i], &v[j], &by); j++) {
			if (v[j].kind < 0) {
				g[nr].changes++;
				continue;
			}
			g[nr].cnt[v[j].kind]++;
			g[nr].total++;
			g[nr].alive += v[j].alive;
			g[nr].detaches += v[j].detaches;
			g[nr].updates += v[j].updates;
		}
	}
	qsort_r(g, nr, sizeof(*g), by_group_cmp, &by);
	if (by == LC_BY_TARGET) {
		printf("\nLinks by target:\n");
		printf("  %7s %7s %8s %8s %-24s %s\n", "LINKS", "ALIVE", "DETACHES", "UPDATES",
		       "TYPE", "TARGET");
	} else {
		printf("\nObjects by %s:\n", by == LC_BY_LOADER ? "loader" :
		       by == LC_BY_EXE ? "executable" : "cgroup");
		if (by == LC_BY_LOADER)
			printf("  %8s %-18s %6s", "PID", "COMM", "UID");
		for (k = 0; k < PD_NR_KINDS; k++)
			if (c->recorded[k])
				printf(" %7s", (const char *[]){ "PROGS", "MAPS", "LINKS", "BTF" }[k]);
		printf(" %7s %s\n", "CHANGES", by == LC_BY_CGROUP ? "CGROUP" : "EXE");
	}
	for (i = 0; i < nr && i < MAX_LOADERS_LISTED; i++)
		by_line(&g[i], NULL, by, c->recorded);
	for (; i < nr; i++) {
		for (k = 0; k < PD_NR_KINDS; k++)
			rest.cnt[k] += g[i].cnt[k];
		rest.total += g[i].total;
		rest.changes += g[i].changes;
		rest.alive += g[i].alive;
		rest.detaches += g[i].detaches;
		rest.updates += g[i].updates;
	}
	if (nr > MAX_LOADERS_LISTED) {
		rest.x = &v[0];
		snprintf(others, sizeof(others), "(%zu others)", nr - MAX_LOADERS_LISTED);
		by_line(&rest, others, by, c->recorded);
	}
	if (by != LC_BY_TARGET)
		self_line(c->recorded, "not counted", self);
	free(v);
	free(g);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Created and destroyed during the recording: one that existed at start has no creation time. */
static bool lived(const struct lc_obj *o)
{
	return o->created && !o->synthesised && o->destroyed;
}

/* COUNT MIN MEDIAN MAX of the @m lifetimes @d (sorted here), after @label. */
static void lifetime_line(const char *fmt, const char *label, __u64 *d, size_t m)
{
	char lo[32] = "-", med[32] = "-", hi[32] = "-";

	if (m) {
		qsort(d, m, sizeof(*d), u64_cmp);
		timeline_duration(d[0], lo, sizeof(lo));
		timeline_duration(m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2,
				  med, sizeof(med));
		timeline_duration(d[m - 1], hi, sizeof(hi));
	}
	printf(fmt, label);
	printf(" %8zu %12s %12s %12s\n", m, lo, med, hi);
}

static int lifetimes(struct lc_obj *objs, size_t n, const bool *recorded)
{
	__u64 *d = calloc(n ? n : 1, sizeof(*d));
	size_t i, m;
	int k;

	if (!d)
		return -1;
	printf("\nLifetimes (created and destroyed during the recording):\n");
	printf("  %-5s %8s %12s %12s %12s\n", "KIND", "COUNT", "MIN", "MEDIAN",
	       "MAX");
	for (k = 0; k < PD_NR_KINDS; k++) {
		if (!recorded[k])
			continue;
		for (i = m = 0; i < n; i++) {
			if (objs[i].kind == (enum pd_kind)k && lived(&objs[i]))
				d[m++] = objs[i].t_destroy - objs[i].t_create;
		}
		lifetime_line("  %-5s", pd_kind_name(k), d, m);
	}
	free(d);
	return 0;
}

/* At most this many map names get a line of their own, the most frequent first. */
#define MAX_MAP_NAMES_LISTED	10

static int name_cmp(const void *a, const void *b)
{
	const struct lc_obj *x = *(const struct lc_obj **)a, *y = *(const struct lc_obj **)b;

	return strcmp(x->name, y->name);
}

/* One name's maps: where they start in the sorted list, and how many. */
struct name_group {
	size_t first, nr;
};

static int group_cmp(const void *a, const void *b)
{
	const struct name_group *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * The lifetimes of the maps of each name (a storm's maps are many of a
 * few names): named from the facts, or the descriptions of their records.
 */
static int map_lifetimes(struct lc_obj *objs, size_t n)
{
	struct lc_obj **v = calloc(n ? n : 1, sizeof(*v));
	struct name_group *g = calloc(n ? n : 1, sizeof(*g));
	__u64 *d = calloc(n ? n : 1, sizeof(*d));
	size_t i, j, nr = 0, ng = 0, rest = 0;
	char name[TL_NAME_LEN];
	int err = -1;

	if (!v || !g || !d)
		goto out;
	for (i = 0; i < n; i++)
		if (objs[i].kind == PD_MAP && !objs[i].self && lived(&objs[i]))
			v[nr++] = &objs[i];
	err = 0;
	if (!nr)
		goto out;
	qsort(v, nr, sizeof(*v), name_cmp);
	for (i = 0; i < nr; i = j, ng++) {
		for (j = i; j < nr && !name_cmp(&v[i], &v[j]); j++)
			;
		g[ng] = (struct name_group){ .first = i, .nr = j - i };
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	printf("\nMap lifetimes by name:\n");
	printf("  %-16s %8s %12s %12s %12s\n", "NAME", "COUNT", "MIN", "MEDIAN", "MAX");
	for (i = 0; i < ng && i < MAX_MAP_NAMES_LISTED; i++) {
		for (j = 0; j < g[i].nr; j++)
			d[j] = v[g[i].first + j]->t_destroy - v[g[i].first + j]->t_create;
		printable(v[g[i].first]->name[0] ? v[g[i].first]->name : "-", name, sizeof(name));
		lifetime_line("  %-16s", name, d, g[i].nr);
	}
	for (; i < ng; i++)
		rest += g[i].nr;
	if (rest)
		printf("  ... and %zu maps of %zu other names\n", rest, ng - MAX_MAP_NAMES_LISTED);
out:
	free(v);
	free(g);
	free(d);
	return err;
}

struct link_change_count {
	__u32 type;
	size_t detaches, updates;
};

static int link_type_cmp(const void *a, const void *b)
{
	const struct link_change_count *x = a, *y = b;

	return x->type < y->type ? -1 : x->type > y->type;
}

/* LINK_DETACH and LINK_UPDATE records by link type; nothing when none came. */
static int link_changes(const struct lifecycle *c)
{
	struct link_change_count *t = calloc(c->link_changes.nr + 1, sizeof(*t));
	const struct hashmap_entry *e;
	char type[40];
	size_t i, j, nr = 0;

	if (!t)
		return -1;
	for (i = 0; i < c->link_changes.cap; i++) {
		e = &c->link_changes.e[i];
		if (!e->used)
			continue;
		for (j = 0; j < nr && t[j].type != e->key >> 1; j++)
			;
		nr += j == nr;
		t[j].type = e->key >> 1;
		if (e->key & 1)
			t[j].updates += e->val;
		else
			t[j].detaches += e->val;
	}
	if (nr) {
		qsort(t, nr, sizeof(*t), link_type_cmp);
		printf("\nLinks detached and updated, by link type:\n");
		printf("  %-24s %8s %8s\n", "TYPE", "DETACHES", "UPDATES");
	}
	for (i = 0; i < nr; i++) {
		const char *s = libbpf_bpf_link_type_str(t[i].type);

		if (s)
			snprintf(type, sizeof(type), "%s", s);
		else
			snprintf(type, sizeof(type), "link_type_%u", t[i].type);
		printf("  %-24s %8zu %8zu\n", type, t[i].detaches, t[i].updates);
	}
	free(t);
	return 0;
}

static const char *obj_name(const struct lc_obj *o)
{
	return o->name[0] ? o->name : "-";
}

/*
 * The NAME column of the survivors: as wide as their longest name, and
 * narrower when a row would not fit the output, but never so narrow that
 * two names look alike.
 */
static int name_width(const struct lc_obj *objs, size_t n, int width)
{
	/* KIND, ID, TYPE and a short CREATED BY around the name */
	const int around = 2 + 5 + 1 + 8 + 1 + 1 + 24 + 1 + 24;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	size_t i, nr = 0;
	int w = 16, len;

	if (!names)
		return w;
	for (i = 0; i < n; i++) {
		if (objs[i].self || !alive(&objs[i]))
			continue;
		names[nr++] = obj_name(&objs[i]);
		len = strlen(obj_name(&objs[i]));
		w = len > w ? len : w;
	}
	if (width && around + w > width) {
		len = w;
		w = width - around > 16 ? width - around : 16;
		if (w < len)
			w = fit_unique_width(names, nr, w);
	}
	free(names);
	return w;
}

/* The user's survivors, listed; the recorder's own, counted apart. */
static void survivors(struct lc_obj *objs, size_t n, const bool *recorded, int width)
{
	size_t i, nr = 0, listed = 0, self[PD_NR_KINDS] = { 0 };
	char name[TL_NAME_LEN], cut[TL_NAME_LEN], comm[64], pid[16];
	int nw;

	for (i = 0; i < n; i++) {
		if (objs[i].self)
			self[objs[i].kind] += alive(&objs[i]);
		else
			nr += alive(&objs[i]);
	}
	printf("\nAlive at the end of the recording: %zu\n", nr);
	self_line(recorded, "also alive", self);
	if (!nr)
		return;
	nw = name_width(objs, n, width);
	printf("  %-5s %8s %-*s %-24s %s\n", "KIND", "ID", nw, "NAME", "TYPE", "CREATED BY");
	for (i = 0; i < n && listed < MAX_ALIVE_LISTED; i++) {
		const struct lc_obj *o = &objs[i];

		if (o->self || !alive(o))
			continue;
		snprintf(pid, sizeof(pid), o->pid ? "%u" : "-", o->pid);
		printf("  %-5s %8u %-*s %-24s %s %s%s\n", pd_kind_name(o->kind), o->id, nw,
		       fit_cut(printable(obj_name(o), name, sizeof(name)), nw, cut, sizeof(cut)),
		       o->type, pid, printable(o->comm ? o->comm : "-", comm, sizeof(comm)),
		       o->synthesised ? " (existed at start)" : "");
		listed++;
	}
	if (nr > listed)
		printf("  ... and %zu more\n", nr - listed);
}

/* The events of the file and the samples each one has. */
static void events_line(const struct timeline *tl)
{
	const struct pd_file_info *in = tl->info;
	size_t i;

	printf("# events:");
	for (i = 0; i < in->nr_events; i++)
		printf("%s %s (%zu samples)", i ? "," : "",
		       in->events[i].name ? in->events[i].name : "-", tl->nr_samples[i]);
	putchar('\n');
}

void lifecycle_print_header(const char *path, const struct timeline *tl, const struct lifecycle *c)
{
	const struct pd_file_info *in = tl->info;
	const struct pd_capture *cap = pd_reader_capture(tl->reader);
	char a[32], b[32], d[32];

	printf("# bpfrec report of %s\n", path);
	if (in->hostname || in->osrelease)
		printf("# host: %s, kernel %s\n",
		       in->hostname ? in->hostname : "-",
		       in->osrelease ? in->osrelease : "-");
	if (in->version)
		printf("# written by: %s\n", in->version);
	if (in->cmdline)
		printf("# cmdline: %s\n", in->cmdline);
	events_line(tl);
	timeline_time(c->first, a, sizeof(a));
	timeline_time(c->last, b, sizeof(b));
	timeline_duration(c->last - c->first, d, sizeof(d));
	printf("# records: %zu, from %s to %s (%s)\n", c->nr_records, a, b, d);
	printf("# lost records: %llu (in %zu LOST records)\n",
	       (unsigned long long)c->lost, c->nr_lost);
	if (cap)
		printf("# capture: %llu records lost in ring buffers, %llu facts lost, map/link/btf records %s\n",
		       (unsigned long long)cap->lost_records,
		       (unsigned long long)cap->lost_facts,
		       cap->flags & PD_CAP_BPF_OBJ_EVENT ? "on" : "off");
}

int lifecycle_print_tables(struct lifecycle *c, int width)
{
	struct lc_obj **v = calloc(c->nr ? c->nr : 1, sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->nr; i++)
		v[i] = &c->objs[i];
	by_type(v, c->nr, c->recorded);
	if (by_process(v, c->nr, c->recorded) || lifetimes(c->objs, c->nr, c->recorded) ||
	    map_lifetimes(c->objs, c->nr) || link_changes(c)) {
		free(v);
		return -ENOMEM;
	}
	survivors(c->objs, c->nr, c->recorded, width);
	free(v);
	return 0;
}
