// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec report: what a recording saw, summarised - BPF objects by kind
 * and type, by creating process, their lifetimes, those still alive when
 * the recording ended, and what was lost.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "builtin.h"
#include "util/array.h"
#include "util/fit.h"
#include "util/perf_data/oversized.h"
#include "util/printable.h"
#include "util/timeline.h"

/* At most this many survivors are listed one by one. */
#define MAX_ALIVE_LISTED	50
/* And this many creating processes, the most prolific first; the rest summed. */
#define MAX_LOADERS_LISTED	20
/* who created the kernel's own BTF */
#define KERNEL_CREATOR		"(kernel)"

/* One lifetime of one object id: creation and destruction, as seen. */
struct obj {
	enum pd_kind kind;
	__u32 id;
	bool created;			/* creation record seen */
	bool destroyed;
	__u64 t_create;
	__u64 t_destroy;
	__u32 pid;			/* creating process, 0 if unknown */
	char *comm;			/* malloc'ed; NULL if unknown */
	size_t seq;			/* position of its first record, in time order */
	char type[40];
	char name[PD_BTF_NAME_LEN];	/* the facts', else its record's description */
	bool synthesised;
	bool unresolved;
	bool self;			/* the recorder's own (PD_F_SELF) */
	const struct pd_loader *loader;	/* its creator, as the capture saw it (the reader's) */
	char *target;			/* a link's, from the facts (malloc'ed); NULL: unknown */
	size_t detaches, updates;	/* a link's LINK_DETACH and LINK_UPDATE records */
};

/* A LINK_DETACH or LINK_UPDATE, by whom (report --by). */
struct change {
	__u32 pid;
	char *comm;			/* malloc'ed; NULL if unknown */
	const struct pd_loader *loader;	/* the reader's */
};

/* What one reading of the file gathers. */
struct collection {
	struct obj *objs;
	size_t nr, cap;
	struct hashmap open;		/* kind << 32 | id -> its latest obj */
	struct hashmap link_changes;	/* link type << 1 | updated -> LINK_DETACH/UPDATE records */
	struct change *changes;		/* every LINK_DETACH and LINK_UPDATE, by whom */
	size_t nr_changes, cap_changes;
	__u64 lost, first, last;	/* LOST total, times of the records */
	size_t nr_lost, nr_records;
	bool recorded[PD_NR_KINDS];	/* a record of the kind was seen */
};

/*
 * What the file could have records of: programs always; maps, links and
 * BTF when the recorder's kernel had bpf_obj_event, or a record says so.
 * The others are not recorded: no row of zeros stands for them.
 */
static bool recorded[PD_NR_KINDS];
static int width;		/* of the output (util/fit.h); 0: no limit */

/* report --by: what the objects are grouped by. */
enum by { BY_NONE, BY_LOADER, BY_EXE, BY_CGROUP, BY_TARGET };

static const char *const by_names[] = {
	[BY_LOADER] = "loader", [BY_EXE] = "exe", [BY_CGROUP] = "cgroup", [BY_TARGET] = "target",
};

static const char report_doc[] =
	"Summarise the BPF objects of a perf.data: counts by kind and type\n"
	"and by creating process, lifetimes (min/median/max), those of maps by\n"
	"name, links detached and updated by link type (a link lives until its\n"
	"LINK_RELEASE), objects still alive at the end of the recording, and\n"
	"lost records.\n"
	"\n"
	"A file with samples (record -e cpu-clock, --off-cpu, or perf record)\n"
	"gets a profile instead, unless --lifecycle asks for the summary:\n"
	"samples by command, file and symbol, named as they were at the time -\n"
	"BPF programs by their KSYMBOL records (also those unloaded since), user\n"
	"code by ELF symbols of the mapped files, the kernel by the kallsyms the\n"
	"file kept (perf's keep none: this machine's, or --kallsyms).  --folded,\n"
	"--svg, --json and --pprof (for go tool pprof) are its other outputs.\n"
	"\n"
	"Reads files written by 'bpfrec record' and by 'perf record': without\n"
	"-i, bpfrec.data, or perf.data when there is no bpfrec.data.\n"
	"\n"
	"Examples:\n"
	"  bpfrec report\n"
	"  bpfrec report -i /tmp/bpf.data\n"
	"  bpfrec report -i perf.data --sort bpf\n"
	"  bpfrec report --folded > out.folded\n"
	"  bpfrec report --svg flame.svg\n"
	"  bpfrec report --pprof cpu.pb.gz && go tool pprof -top cpu.pb.gz\n"
	"  bpfrec report --off-cpu\n"
	"  bpfrec report -i wall.data --wall --svg wall.svg   # on and off CPU\n"
	"  bpfrec report -i prof.data --lifecycle\n"
	"  bpfrec report --by exe          # who created the objects, by executable\n"
	"  bpfrec report --by target       # links by what they are attached to\n"
	"\v"
	"Exit status: 0 ok, 1 unreadable or malformed file, 2 usage error.";

enum { OPT_LIFECYCLE = 0x100, OPT_BY };

static const struct argp_option report_options[] = {
	{ "lifecycle", OPT_LIFECYCLE, NULL, 0,
	  "the summary of BPF objects, also of a file with samples (instead of its profile)", 0 },
	{ "by", OPT_BY, "KEY", 0,
	  "the objects by their creator's process (loader), executable (exe) or cgroup, each "
	  "with the link detaches and updates it made (CHANGES); or the links by their target "
	  "(target): one table after the summary's header (implies --lifecycle)", 0 },
	{ 0 }
};

static const struct argp_child report_children[] = {
	{ &input_argp, 0, NULL, 0 },
	{ &report_profile_argp, 0, "Profiles, of files with samples:", 0 },
	{ &cmd_help_argp, 0, NULL, 0 },
	{ 0 }
};

struct report_args {
	const char *input;
	bool lifecycle;			/* --lifecycle */
	enum by by;			/* --by */
	struct report_profile_args profile;
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;
	int by;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->input;
		state->child_inputs[1] = &a->profile;
		return 0;
	case OPT_LIFECYCLE:
		a->lifecycle = true;
		return 0;
	case OPT_BY:
		for (by = BY_LOADER; by <= BY_TARGET && strcmp(arg, by_names[by]); by++)
			;
		if (by > BY_TARGET)
			return cmd_usage_error(state, "--by: '%s' is not one of loader, exe, cgroup, target",
					       arg);
		a->by = by;
		a->lifecycle = true;
		return 0;
	case ARGP_KEY_END:
		if (a->lifecycle && report_profile_asked(&a->profile))
			return cmd_usage_error(state, "%s",
					       a->by ? "--by shows no profile: not with --sort, --off-cpu, --wall, --folded, --svg, --json or -g" :
					       "--lifecycle shows no profile: not with --sort, --off-cpu, --wall, --folded, --svg, --json or -g");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}


/* Kind, then id, then time: how survivors are listed. */
static int obj_cmp(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void set_type(struct obj *o, const char *s, const char *kind,
		     __u32 type)
{
	if (s)
		snprintf(o->type, sizeof(o->type), "%s", s);
	else
		snprintf(o->type, sizeof(o->type), "%s_type_%u", kind, type);
}

/* Type, name, creator and marks of @o from the stored facts, else the record. */
static void describe(struct obj *o, const struct timeline *tl,
		     const struct tl_event *e)
{
	struct pd_reader *rd = tl->reader;
	const struct pd_origin *origin = NULL;
	/* without facts, a record that describes its object resolves it */
	__u32 flags = e->bpf.described ? 0 : PD_F_UNRESOLVED;

	switch (o->kind) {
	case PD_PROG: {
		const struct pd_prog *p = pd_reader_prog(rd, o->id);

		if (p) {
			flags = p->flags;
			origin = &p->origin;
			snprintf(o->name, sizeof(o->name), "%s", p->name);
			set_type(o, libbpf_bpf_prog_type_str(p->type), "prog",
				 p->type);
		}
		break;
	}
	case PD_MAP: {
		const struct pd_map *m = pd_reader_map(rd, o->id);
		__u32 t = m ? m->type : e->bpf.flags;

		if (m) {
			flags = m->flags;
			origin = &m->origin;
			snprintf(o->name, sizeof(o->name), "%s", m->name);
		}
		if (!o->name[0] && e->bpf.described)
			snprintf(o->name, sizeof(o->name), "%s", e->bpf.desc.map.name);
		set_type(o, libbpf_bpf_map_type_str(t), "map", t);
		break;
	}
	case PD_LINK: {
		const struct pd_link *l = pd_reader_link(rd, o->id);
		__u32 t = l ? l->type : e->bpf.flags;

		if (l) {
			flags = l->flags;
			origin = &l->origin;
			o->target = l->target[0] ? strndup(l->target, sizeof(l->target)) : NULL;
		}
		set_type(o, libbpf_bpf_link_type_str(t), "link", t);
		break;
	}
	default: {
		const struct pd_btf *b = pd_reader_btf(rd, o->id);

		if (b) {
			flags = b->flags;
			origin = &b->origin;
			snprintf(o->name, sizeof(o->name), "%s", b->name);
		}
		if (!o->name[0])
			snprintf(o->name, sizeof(o->name), "%s", pd_bpf_btf_name(&e->bpf));
		if (!(e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL))
			snprintf(o->type, sizeof(o->type), "user");
		else if (e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_MODULE)
			snprintf(o->type, sizeof(o->type), "module");
		else
			snprintf(o->type, sizeof(o->type), "kernel");
		break;
	}
	}
	o->unresolved = flags & PD_F_UNRESOLVED;
	o->synthesised = flags & PD_F_SYNTHESISED;
	o->self = flags & PD_F_SELF;
	if (o->unresolved && o->kind == PD_PROG)
		snprintf(o->type, sizeof(o->type), "unresolved");
	if (origin)
		o->loader = pd_reader_loader(rd, origin->loader);
	/* the event's comm lives until the next one: the obj keeps a copy */
	if (o->self) {
		o->pid = origin->pid;
		o->comm = strdup(TL_SELF_NAME);
	} else if (origin && origin->comm[0]) {
		o->pid = origin->pid;
		o->comm = strdup(origin->comm);
	} else if (origin && origin->pid && (!e->has_sample || e->sample.pid != origin->pid)) {
		o->pid = origin->pid;
		o->comm = strdup("");
	} else if (o->kind == PD_BTF && e->bpf.flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL &&
		   (!e->has_sample || !e->sample.pid)) {
		/* vmlinux's, a module's loaded before: no task made them */
		o->comm = strdup(KERNEL_CREATOR);
	} else if (e->has_sample) {
		o->pid = e->sample.pid;
		if (timeline_comm(tl, e))
			o->comm = strdup(timeline_comm(tl, e));
	}
}

/*
 * A LINK_DETACH or LINK_UPDATE: counted by the link's type (in the
 * record's flags), on its link, and kept with who made it.
 */
static int link_changed(struct collection *c, const struct timeline *tl,
			const struct tl_event *e)
{
	bool update = e->bpf.type == PERF_BPF_EVENT_LINK_UPDATE;
	__u64 *n = hashmap_add(&c->link_changes, (__u64)e->bpf.flags << 1 | update, NULL);
	__u64 *latest = hashmap_find(&c->open, (__u64)PD_LINK << 32 | e->bpf.id);
	struct change *ch;

	if (!n)
		return -ENOMEM;
	(*n)++;
	if (latest && update)
		c->objs[*latest].updates++;
	else if (latest)
		c->objs[*latest].detaches++;
	if (array_room(&c->changes, &c->cap_changes, c->nr_changes, sizeof(*c->changes)))
		return -ENOMEM;
	ch = &c->changes[c->nr_changes++];
	memset(ch, 0, sizeof(*ch));
	if (!e->has_sample)
		return 0;
	ch->pid = e->sample.pid;
	ch->loader = pd_reader_loader_of(tl->reader, e->sample.tid, e->sample.time);
	if (timeline_comm(tl, e))
		ch->comm = strdup(timeline_comm(tl, e));
	return 0;
}

/*
 * A BPF record pairs with the open lifetime of its id: a release closes
 * it, a creation starts a new one, and so does a release without one.
 * A link detached or updated lives on until its LINK_RELEASE.
 */
static int add_change(struct collection *c, const struct timeline *tl,
		      const struct tl_event *e)
{
	enum pd_bpf_change change;
	enum pd_kind kind;
	bool create, added;
	struct obj *o;
	__u64 *latest;

	if (e->type != PERF_RECORD_BPF_EVENT || !pd_bpf_event_kind(e->bpf.type, &kind, &change))
		return 0;
	if (change == PD_BPF_CHANGE)
		return link_changed(c, tl, e);
	create = change == PD_BPF_CREATE;
	c->recorded[kind] = true;
	latest = hashmap_add(&c->open, (__u64)kind << 32 | e->bpf.id, &added);
	if (!latest)
		return -ENOMEM;
	o = added ? NULL : &c->objs[*latest];
	if (!create && o && !o->destroyed) {
		o->destroyed = true;
		o->t_destroy = e->sample.time;
		return 0;
	}
	if (array_room(&c->objs, &c->cap, c->nr, sizeof(*c->objs)))
		return -ENOMEM;
	*latest = c->nr;
	o = &c->objs[c->nr++];
	memset(o, 0, sizeof(*o));
	o->kind = (enum pd_kind)kind;
	o->id = e->bpf.id;
	o->seq = tl->nr;
	if (create) {
		o->created = true;
		o->t_create = e->sample.time;
	} else {
		o->destroyed = true;
		o->t_destroy = e->sample.time;
	}
	describe(o, tl, e);
	return 0;
}

/* Read the file once, in time order: lifetimes, losses, times. */
static int collect(struct timeline *tl, struct collection *c, char *err, size_t errlen)
{
	struct tl_event e;
	int ret;

	while ((ret = timeline_next(tl, &e, err, errlen)) > 0) {
		c->nr_records++;
		if (e.type == PERF_RECORD_LOST) {
			c->lost += e.lost;
			c->nr_lost++;
		}
		if (e.has_sample && e.sample.time) {
			if (!c->first)
				c->first = e.sample.time;
			c->last = e.sample.time;
		}
		if (add_change(c, tl, &e)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (!ret && c->nr)
		qsort(c->objs, c->nr, sizeof(*c->objs), obj_cmp);
	return ret;
}

static void collection_free(struct collection *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->objs[i].comm);
		free(c->objs[i].target);
	}
	free(c->objs);
	for (i = 0; i < c->nr_changes; i++)
		free(c->changes[i].comm);
	free(c->changes);
	hashmap_free(&c->open);
	hashmap_free(&c->link_changes);
}

struct type_count {
	enum pd_kind kind;
	const char *type;
	size_t created, destroyed, alive, synthesised, unresolved;
};

static int type_cmp(const void *a, const void *b)
{
	const struct obj *x = *(const struct obj **)a, *y = *(const struct obj **)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->type, y->type);
}

static bool alive(const struct obj *o)
{
	return (o->created || o->synthesised) && !o->destroyed;
}

/* What is left out of the tables of the user's objects. */
static void self_line(const char *what, const size_t cnt[PD_NR_KINDS])
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
static void not_recorded_line(void)
{
	int k, n = 0;

	for (k = 0; k < PD_NR_KINDS; k++)
		if (!recorded[k])
			printf("%s%s", n++ ? ", " : "  not recorded: ", pd_kind_name(k));
	if (n)
		printf(" (the kernel of the recording has no records of them: bpf_obj_event)\n");
}

/* The recorder's own objects are counted apart, in a line of their own. */
static void by_type(struct obj **v, size_t n)
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
	self_line("not counted", self);
	not_recorded_line();
}

static int proc_cmp(const void *a, const void *b)
{
	const struct obj *x = *(const struct obj **)a, *y = *(const struct obj **)b;
	int r;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	r = strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	return r;
}

/* One creating process: its first object, and how many of each kind. */
struct loader {
	const struct obj *o;
	size_t cnt[PD_NR_KINDS], total;
};

static int loader_cmp(const void *a, const void *b)
{
	const struct loader *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->o->pid < y->o->pid ? -1 : x->o->pid > y->o->pid;
}

static void loader_line(const char *pid, const char *comm, const size_t *cnt)
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
static int by_process(struct obj **v, size_t n)
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
		const struct obj *o = l[i].o;

		snprintf(pid, sizeof(pid), "%u", o->pid);
		if (o->pid)
			loader_line(pid, o->comm ? o->comm : "-", l[i].cnt);
		else
			loader_line("-", o->comm ? o->comm : "(unknown)", l[i].cnt);
	}
	for (; i < nr; i++)
		for (k = 0; k < PD_NR_KINDS; k++)
			rest[k] += l[i].cnt[k];
	if (nr > MAX_LOADERS_LISTED) {
		snprintf(others, sizeof(others), "(%zu others)", nr - MAX_LOADERS_LISTED);
		loader_line("-", others, rest);
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

static enum by by_key;

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
static int by_cmp(const void *a, const void *b)
{
	const struct by_item *x = a, *y = b;
	int r;

	switch (by_key) {
	case BY_LOADER:
		if (x->pid != y->pid)
			return x->pid < y->pid ? -1 : 1;
		r = strcmp(item_exe(x), item_exe(y));
		return r ? r : strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	case BY_EXE:
		return strcmp(item_exe(x), item_exe(y));
	case BY_CGROUP:
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

static int by_group_cmp(const void *a, const void *b)
{
	const struct by_group *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return by_cmp(x->x, y->x);
}

static void by_line(const struct by_group *g, const char *others)
{
	char text[4 * PD_PATH_LEN + 1], pid[16], uid[16];
	const struct by_item *x = g->x;
	int k;

	if (by_key == BY_TARGET) {
		printf("  %7zu %7zu %8zu %8zu %-24s %s\n", g->total, g->alive, g->detaches,
		       g->updates, others ? "-" : x->type,
		       others ? others : printable(item_target(x), text, sizeof(text)));
		return;
	}
	if (by_key == BY_LOADER) {
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
	       others ? others : printable(by_key == BY_CGROUP ? item_cgroup(x) : item_exe(x),
					   text, sizeof(text)));
}

/*
 * report --by: the user's objects grouped by their creator's process,
 * executable or cgroup (with the link changes each made), or the links by
 * their target; the most objects first, MAX_LOADERS_LISTED rows, then one
 * line for the rest.
 */
static int by_table(const struct collection *c)
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
		return -1;
	}
	for (i = 0; i < c->nr; i++) {
		const struct obj *o = &c->objs[i];

		if (o->self) {
			self[o->kind]++;
			continue;
		}
		if (by_key == BY_TARGET && o->kind != PD_LINK)
			continue;
		v[n++] = (struct by_item){ .kind = o->kind, .pid = o->pid, .comm = o->comm,
					   .loader = o->loader, .type = o->type,
					   .target = o->target, .alive = alive(o),
					   .synthesised = o->synthesised && !o->loader,
					   .detaches = o->detaches, .updates = o->updates };
	}
	for (i = 0; by_key != BY_TARGET && i < c->nr_changes; i++)
		v[n++] = (struct by_item){ .kind = -1, .pid = c->changes[i].pid,
					   .comm = c->changes[i].comm,
					   .loader = c->changes[i].loader, .type = "" };
	qsort(v, n, sizeof(*v), by_cmp);
	for (i = 0; i < n; i = j, nr++) {
		g[nr].x = &v[i];
		for (j = i; j < n && !by_cmp(&v[i], &v[j]); j++) {
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
	qsort(g, nr, sizeof(*g), by_group_cmp);
	if (by_key == BY_TARGET) {
		printf("\nLinks by target:\n");
		printf("  %7s %7s %8s %8s %-24s %s\n", "LINKS", "ALIVE", "DETACHES", "UPDATES",
		       "TYPE", "TARGET");
	} else {
		printf("\nObjects by %s:\n", by_key == BY_LOADER ? "loader" :
		       by_key == BY_EXE ? "executable" : "cgroup");
		if (by_key == BY_LOADER)
			printf("  %8s %-18s %6s", "PID", "COMM", "UID");
		for (k = 0; k < PD_NR_KINDS; k++)
			if (recorded[k])
				printf(" %7s", (const char *[]){ "PROGS", "MAPS", "LINKS", "BTF" }[k]);
		printf(" %7s %s\n", "CHANGES", by_key == BY_CGROUP ? "CGROUP" : "EXE");
	}
	for (i = 0; i < nr && i < MAX_LOADERS_LISTED; i++)
		by_line(&g[i], NULL);
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
		by_line(&rest, others);
	}
	if (by_key != BY_TARGET)
		self_line("not counted", self);
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
static bool lived(const struct obj *o)
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

static int lifetimes(struct obj *objs, size_t n)
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
	const struct obj *x = *(const struct obj **)a, *y = *(const struct obj **)b;

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
static int map_lifetimes(struct obj *objs, size_t n)
{
	struct obj **v = calloc(n ? n : 1, sizeof(*v));
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
static int link_changes(const struct collection *c)
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

static const char *obj_name(const struct obj *o)
{
	return o->name[0] ? o->name : "-";
}

/*
 * The NAME column of the survivors: as wide as their longest name, and
 * narrower when a row would not fit the output, but never so narrow that
 * two names look alike.
 */
static int name_width(const struct obj *objs, size_t n)
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
static void survivors(struct obj *objs, size_t n)
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
	self_line("also alive", self);
	if (!nr)
		return;
	nw = name_width(objs, n);
	printf("  %-5s %8s %-*s %-24s %s\n", "KIND", "ID", nw, "NAME", "TYPE", "CREATED BY");
	for (i = 0; i < n && listed < MAX_ALIVE_LISTED; i++) {
		const struct obj *o = &objs[i];

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

/* --comm: only the objects their tasks created (the recorder's own stay apart). */
static void only_comms(struct collection *c, const struct report_profile_args *a)
{
	size_t i, j, n = 0;

	if (!a->nr_comms)
		return;
	for (i = 0; i < c->nr; i++) {
		for (j = 0; j < a->nr_comms; j++)
			if (c->objs[i].comm && !strcmp(c->objs[i].comm, a->comms[j]))
				break;
		if (j < a->nr_comms) {
			c->objs[n++] = c->objs[i];
		} else {
			free(c->objs[i].comm);
			free(c->objs[i].target);
		}
	}
	c->nr = n;
}

static void summary(const char *path, const struct timeline *tl, const struct collection *c)
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
	report_kallsyms_line(cap);
}

int cmd_report(int argc, char **argv)
{
	struct report_args args = {};
	const char *input;
	struct argp argp = {
		.options = report_options,
		.parser = report_parse,
		.doc = report_doc,
		.children = report_children,
		.args_doc = "[FILE]",
	};
	struct collection c = {};
	struct timeline tl;
	const struct pd_capture *cap;
	struct obj **v = NULL;
	char err[300];
	size_t i;
	int k, ret = BPFREC_EXIT_OK;

	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &args)) {
		free(args.profile.comm_list);
		return BPFREC_EXIT_USAGE;
	}
	if (cmd_help_shown()) {
		free(args.profile.comm_list);
		return BPFREC_EXIT_OK;
	}
	input = args.input;
	if (!args.lifecycle) {
		ret = report_profile(input, &args.profile);
		if (ret != REPORT_NO_PROFILE) {
			free(args.profile.comm_list);
			return ret;
		}
	}
	width = fit_output_width(args.profile.wide);
	ret = BPFREC_EXIT_OK;
	if (timeline_open(&tl, input, err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s: %s\n", input, err);
		return BPFREC_EXIT_ERROR;
	}
	if (collect(&tl, &c, err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s: %s\n", input, err);
		ret = BPFREC_EXIT_ERROR;
		goto out;
	}
	v = calloc(c.nr ? c.nr : 1, sizeof(*v));
	if (!v) {
		fprintf(stderr, "bpfrec report: out of memory\n");
		ret = BPFREC_EXIT_ERROR;
		goto out;
	}
	cap = pd_reader_capture(tl.reader);
	for (k = 0; k < PD_NR_KINDS; k++)
		recorded[k] = k == PD_PROG || c.recorded[k] ||
			      (cap && cap->flags & PD_CAP_BPF_OBJ_EVENT);
	only_comms(&c, &args.profile);
	for (i = 0; i < c.nr; i++)
		v[i] = &c.objs[i];
	summary(input, &tl, &c);
	if (args.profile.header_only)
		goto flush;
	by_key = args.by;
	if (by_key) {
		if (by_table(&c)) {
			fprintf(stderr, "bpfrec report: out of memory\n");
			ret = BPFREC_EXIT_ERROR;
			goto out;
		}
		goto flush;
	}
	by_type(v, c.nr);
	if (by_process(v, c.nr) || lifetimes(c.objs, c.nr) || map_lifetimes(c.objs, c.nr) ||
	    link_changes(&c)) {
		fprintf(stderr, "bpfrec report: out of memory\n");
		ret = BPFREC_EXIT_ERROR;
		goto out;
	}
	survivors(c.objs, c.nr);
flush:
	if (pd_reader_repaired(tl.reader))
		fprintf(stderr, "bpfrec report: %s: %llu oversized side-band records repaired (a stock kernel bug with several listeners)\n",
			input, (unsigned long long)pd_reader_repaired(tl.reader));
	if (pd_reader_warning(tl.reader))
		fprintf(stderr, "bpfrec report: warning: %s: %s\n", input,
			pd_reader_warning(tl.reader));
	if (fflush(stdout)) {
		perror("bpfrec report: stdout");
		ret = BPFREC_EXIT_ERROR;
	}
out:
	free(args.profile.comm_list);
	free(v);
	collection_free(&c);
	timeline_close(&tl);
	return ret;
}
