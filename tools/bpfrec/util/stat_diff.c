// SPDX-License-Identifier: GPL-2.0
/*
 * `bpfrec diff`: see stat_diff.h.  A counts file holds, per program, the
 * counters "NAME[ID]:runs" and "NAME[ID]:run_ns" with cumulative values
 * (builtin-stat.c writes them): the last value of each is the program's
 * total.  A profile is read by util/profile.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/hashmap.h"
#include "util/printable.h"
#include "util/profile.h"
#include "util/stat_diff.h"
#include "util/perf_data/perf_data.h"

static struct sd_entry *entry(struct sd_file *f, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (strlen(f->e[i].name) == len && !memcmp(f->e[i].name, name, len))
			return &f->e[i];
	if (array_room(&f->e, &f->cap, f->nr, sizeof(*f->e)))
		return NULL;
	memset(&f->e[f->nr], 0, sizeof(*f->e));
	f->e[f->nr].name = strndup(name, len);
	if (!f->e[f->nr].name)
		return NULL;
	return &f->e[f->nr++];
}

/* "NAME[ID]:runs" -> NAME, ID and which counter; false for another name. */
static bool counter_name(const char *s, size_t *name_len, bool *runs, __u32 *id)
{
	const char *colon = strrchr(s, ':'), *br;

	if (!colon || colon == s || colon[-1] != ']')
		return false;
	br = colon - 1;
	while (br > s && *br != '[')
		br--;
	if (*br != '[')
		return false;
	if (!strcmp(colon, ":runs"))
		*runs = true;
	else if (!strcmp(colon, ":run_ns"))
		*runs = false;
	else
		return false;
	*name_len = br - s;
	*id = strtoul(br + 1, NULL, 10);
	return true;
}

/* The program's name, or its loader's comm (when the file has it), contains @filter. */
static bool wanted(struct pd_reader *r, const char *name, size_t len, __u32 id,
		   const char *filter)
{
	const struct pd_prog *p;
	char buf[256];

	if (!filter)
		return true;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	if (strstr(buf, filter))
		return true;
	p = pd_reader_prog(r, id);
	return p && strstr(p->origin.comm, filter);
}

struct counter {
	__u64 val;
	bool seen;
};

static int read_counts(struct pd_reader *r, struct sd_file *f, const char *filter, char *err,
		       size_t errlen)
{
	const struct pd_file_info *info = pd_reader_info(r);
	struct counter *c = calloc(info->nr_events ? info->nr_events : 1, sizeof(*c));
	struct hashmap by_id = {};
	struct pd_record rec;
	size_t i, k;
	int ret;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < info->nr_events; i++) {
		for (k = 0; k < info->events[i].nr_ids; k++) {
			__u64 *v = hashmap_add(&by_id, info->events[i].ids[k], NULL);

			if (!v) {
				ret = -ENOMEM;
				goto out;
			}
			*v = i + 1;
		}
	}
	while ((ret = pd_reader_next(r, &rec)) > 0) {
		const __u8 *body = (const __u8 *)rec.raw + sizeof(*rec.raw);
		size_t len = rec.raw->size - sizeof(*rec.raw);
		__u64 id, val, *v;

		if (rec.type == PD_RECORD_STAT_ROUND && len >= 16) {
			memcpy(&f->wall_ns, body + 8, 8);
			continue;
		}
		if (rec.type != PD_RECORD_STAT || len < 24)
			continue;
		memcpy(&id, body, 8);
		memcpy(&val, body + 16, 8);
		v = hashmap_find(&by_id, id);
		if (v) {
			c[*v - 1].val = val;	/* cumulative: the last one is the total */
			c[*v - 1].seen = true;
		}
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", pd_reader_error(r));
		goto out;
	}
	for (i = 0; i < info->nr_events; i++) {
		const char *name = info->events[i].name;
		struct sd_entry *e;
		size_t name_len;
		bool runs;
		__u32 id;

		if (!c[i].seen || !name || !counter_name(name, &name_len, &runs, &id) ||
		    !wanted(r, name, name_len, id, filter))
			continue;
		e = entry(f, name, name_len);
		if (!e) {
			ret = -ENOMEM;
			goto out;
		}
		if (runs)
			e->runs += c[i].val;
		else
			e->run_ns += c[i].val;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	hashmap_free(&by_id);
	free(c);
	return ret;
}

/* Per leaf symbol, its share of the CPU event's (or off-CPU time's) period. */
static int read_profile(const char *path, struct sd_file *f, const char *filter, char *err,
			size_t errlen)
{
	struct profile p = {};
	__u64 total = 0, *w8;
	size_t i, n = 0;
	bool off_cpu = false;
	int ev, ret = -1;

	if (profile_read(&p, path, NULL, err, errlen))
		return -1;
	ev = profile_cpu_event(&p);
	if (ev < 0) {
		ev = profile_event(&p, PROFILE_OFFCPU_EVENT);
		off_cpu = true;
	}
	if (ev < 0) {
		snprintf(err, errlen, "no samples and no stat --all-progs counts");
		goto out;
	}
	/* as report weighs them: samples, or time off CPU */
	w8 = off_cpu ? p.period : p.samples;
	n = p.stacks.nr;
	for (i = 0; i < n; i++) {
		size_t nr;
		const __u32 *w = profile_stack(&p, i, &nr);

		if (nr > STACK_FRAMES && w[STACK_EVENT] == (__u32)ev)
			total += w8[i];
	}
	for (i = 0; i < n && total; i++) {
		size_t nr;
		const __u32 *w = profile_stack(&p, i, &nr);
		const struct frame *fr;
		const char *sym;
		struct sd_entry *e;

		if (nr <= STACK_FRAMES || w[STACK_EVENT] != (__u32)ev)
			continue;
		fr = profile_frame(&p, w[nr - 1]);
		sym = profile_str(&p, fr->sym);
		if (filter && !strstr(sym, filter) &&
		    !strstr(profile_str(&p, w[STACK_COMM]), filter))
			continue;
		e = entry(f, sym, strlen(sym));
		if (!e) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		e->share += 100.0 * w8[i] / total;
	}
	f->profile = true;
	ret = 0;
out:
	profile_free(&p);
	return ret;
}

int sd_read(const char *path, struct sd_file *f, const char *filter, char *err, size_t errlen)
{
	struct pd_reader *r;
	bool counts = false;
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	r = pd_reader_open(path, err, errlen);
	if (!r)
		return -1;
	/* a counts file's events are its counters */
	for (i = 0; i < pd_reader_info(r)->nr_events && !counts; i++) {
		const char *name = pd_reader_info(r)->events[i].name;
		size_t len;
		bool runs;
		__u32 id;

		counts = name && counter_name(name, &len, &runs, &id);
	}
	if (counts) {
		ret = read_counts(r, f, filter, err, errlen);
		pd_reader_close(r);
		return ret ? -1 : 0;
	}
	pd_reader_close(r);
	return read_profile(path, f, filter, err, errlen);
}

void sd_free(struct sd_file *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->e[i].name);
	free(f->e);
	memset(f, 0, sizeof(*f));
}

static const struct sd_entry *find(const struct sd_file *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (!strcmp(f->e[i].name, name))
			return &f->e[i];
	return NULL;
}

static double ns_per_run(const struct sd_entry *e)
{
	return e && e->runs ? (double)e->run_ns / e->runs : 0;
}

/* Counts: % change of ns/run; profiles: change of the share, in points. */
static double change(const struct sd_file *a, const struct sd_entry *x, const struct sd_entry *y)
{
	if (a->profile)
		return (y ? y->share : 0) - (x ? x->share : 0);
	if (!x || !y || !x->runs || !y->runs || !x->run_ns)
		return NAN;
	return 100.0 * (ns_per_run(y) - ns_per_run(x)) / ns_per_run(x);
}

static int cmp_rows(const void *p, const void *q)
{
	const struct sd_row *a = p, *b = q;
	bool na = isnan(a->change), nb = isnan(b->change);

	if (na != nb)
		return na - nb;
	if (!na && a->change != b->change)
		return a->change < b->change ? 1 : -1;
	return strcmp(a->name, b->name);
}

int sd_compare(const struct sd_file *a, const struct sd_file *b, struct sd_row **rows,
	       size_t *nr)
{
	struct sd_row *r = calloc(a->nr + b->nr + 1, sizeof(*r));
	size_t i, n = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < a->nr; i++) {
		r[n].name = a->e[i].name;
		r[n].a = &a->e[i];
		r[n].b = find(b, a->e[i].name);
		r[n].change = change(a, r[n].a, r[n].b);
		n++;
	}
	for (i = 0; i < b->nr; i++) {
		if (find(a, b->e[i].name))
			continue;
		r[n].name = b->e[i].name;
		r[n].b = &b->e[i];
		r[n].change = change(a, NULL, r[n].b);
		n++;
	}
	qsort(r, n, sizeof(*r), cmp_rows);
	*rows = r;
	*nr = n;
	return 0;
}

static void cpu(char *buf, size_t len, const struct sd_file *f, const struct sd_entry *e)
{
	if (!e)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", f->wall_ns ? 100.0 * e->run_ns / f->wall_ns : 0.0);
}

void sd_print(FILE *f, const struct sd_file *a, const struct sd_file *b,
	      const struct sd_row *rows, size_t nr)
{
	char name[256], ra[24], rb[24], na[24], nb[24], ca[24], cb[24], ch[24];
	size_t i;

	if (a->profile) {
		fprintf(f, "%-48s %8s %8s %9s\n", "SYMBOL", "SHARE A", "SHARE B", "CHANGE");
		for (i = 0; i < nr; i++)
			fprintf(f, "%-48s %7.2f%% %7.2f%% %+8.2fpp\n",
				printable(rows[i].name, name, sizeof(name)),
				rows[i].a ? rows[i].a->share : 0, rows[i].b ? rows[i].b->share : 0,
				rows[i].change);
		return;
	}
	fprintf(f, "%-32s %10s %10s %9s %9s %8s %8s %8s\n", "PROGRAM", "RUNS A", "RUNS B",
		"NS/RUN A", "NS/RUN B", "CHANGE", "CPU% A", "CPU% B");
	for (i = 0; i < nr; i++) {
		const struct sd_row *r = &rows[i];

		snprintf(ra, sizeof(ra), r->a ? "%llu" : "-", r->a ? (unsigned long long)r->a->runs : 0);
		snprintf(rb, sizeof(rb), r->b ? "%llu" : "-", r->b ? (unsigned long long)r->b->runs : 0);
		snprintf(na, sizeof(na), r->a ? "%.1f" : "-", ns_per_run(r->a));
		snprintf(nb, sizeof(nb), r->b ? "%.1f" : "-", ns_per_run(r->b));
		if (isnan(r->change))
			snprintf(ch, sizeof(ch), "%s", !r->a ? "new" : !r->b ? "gone" : "-");
		else
			snprintf(ch, sizeof(ch), "%+.1f%%", r->change);
		cpu(ca, sizeof(ca), a, r->a);
		cpu(cb, sizeof(cb), b, r->b);
		fprintf(f, "%-32s %10s %10s %9s %9s %8s %8s %8s\n",
			printable(r->name, name, sizeof(name)), ra, rb, na, nb, ch, ca, cb);
	}
}
