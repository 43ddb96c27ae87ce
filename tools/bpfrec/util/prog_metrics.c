// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics of `bpfrec serve`: see prog_metrics.h.  Label values come
 * from the kernel (names of programs, comms of loaders): every byte that
 * is not printable ASCII is written as '?', quotes and backslashes are
 * escaped, so that no name can break a line or the format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/prog_metrics.h"

const char *prog_type_name(__u32 type, char *buf, size_t len)
{
	const char *s = libbpf_bpf_prog_type_str(type);

	if (s)
		return s;
	snprintf(buf, len, "type %u", type);
	return buf;
}

/* FNV-1a over the labels, each with its NUL. */
static __u64 labels_hash(const char *a, const char *b, const char *c)
{
	const char *v[3] = { a, b, c };
	__u64 h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < 3; i++) {
		const char *p = v[i];

		do {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ULL;
		} while (*p++);
	}
	return h;
}

static bool same(const struct pm_series *s, const char *name, const char *type,
		 const char *loader)
{
	return !strcmp(s->name, name) && !strcmp(s->type, type) && !strcmp(s->loader, loader);
}

/*
 * The series of these labels, added when new; past the bound (or a hash
 * collision, which the labels then share with "_other"), the _other one.
 */
static struct pm_series *series(struct prog_metrics *m, struct pm_table *t, const char *name,
				const char *type, const char *loader, bool *other)
{
	bool is_other = !strcmp(name, PM_OTHER) && !*type && !*loader, dummy;
	__u64 *v, h = labels_hash(name, type, loader);
	struct pm_series *s;

	*other = false;
	v = hashmap_find(&t->index, h);
	if (v && same(&t->s[*v - 1], name, type, loader))
		return &t->s[*v - 1];
	/* the last room is _other's */
	if (!is_other && (v || t->nr + 1 >= m->max_names)) {
		*other = true;
		return series(m, t, PM_OTHER, "", "", &dummy);
	}
	if (v)
		return NULL;	/* _other's hash taken: never seen */
	if (array_room(&t->s, &t->cap, t->nr, sizeof(*t->s)))
		return NULL;
	v = hashmap_add(&t->index, h, NULL);
	if (!v)
		return NULL;
	*v = ++t->nr;
	s = &t->s[t->nr - 1];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->type, sizeof(s->type), "%s", type);
	snprintf(s->loader, sizeof(s->loader), "%s", loader);
	return s;
}

void prog_metrics_init(struct prog_metrics *m, size_t max_names, bool lifecycle_only)
{
	memset(m, 0, sizeof(*m));
	/* one more than asked: the room of "_other" */
	m->max_names = max_names + 1;
	m->lifecycle_only = lifecycle_only;
}

static const char *const event_names[] = {
	[SP_EV_LOAD] = "load", [SP_EV_ATTACH] = "attach", [SP_EV_FREE] = "free",
};

int prog_metrics_event(struct prog_metrics *m, const struct sp_event *e)
{
	char buf[32];
	const char *type;
	struct pm_series *s;
	bool other;

	if (e->kind == SP_EV_ATTACH)
		type = libbpf_bpf_link_type_str(e->link_type) ?: "unknown";
	else
		type = e->p ? prog_type_name(e->p->type, buf, sizeof(buf)) : "unknown";
	s = series(m, &m->life, event_names[e->kind], type, e->who ? e->who->comm : "", &other);
	if (!s)
		return -ENOMEM;
	s->count++;
	m->overflow += other;
	return 0;
}

/* A label value: printable ASCII, escaped as the format asks. */
static void label(FILE *f, const char *key, const char *val, bool first)
{
	const unsigned char *p = (const unsigned char *)val;

	fprintf(f, "%s%s=\"", first ? "" : ",", key);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p > 0x7e)
			fputc('?', f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The HELP and TYPE lines of a family; OpenMetrics names a counter without _total. */
static void family(FILE *f, bool om, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);

	if (om && !strcmp(type, "counter") && n > 6 && !strcmp(name + n - 6, "_total"))
		n -= 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
}

static void tag_str(const __u8 *tag, char *buf)
{
	int i;

	for (i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(buf + 2 * i, "%02x", tag[i]);
}

static void prog_labels(FILE *f, const struct sp_prog *p)
{
	char id[16], type[32], tag[2 * BPF_TAG_SIZE + 1];

	snprintf(id, sizeof(id), "%u", p->id);
	tag_str(p->tag, tag);
	label(f, "id", id, true);
	label(f, "name", p->name, false);
	label(f, "type", prog_type_name(p->type, type, sizeof(type)), false);
	label(f, "tag", tag, false);
	label(f, "loader", p->loader.comm, false);
}

static void name_labels(FILE *f, const struct pm_series *s, const char *first)
{
	label(f, first, s->name, true);
	label(f, "type", s->type, false);
	label(f, "loader", s->loader, false);
}

static __u64 runs_of(const struct sp_prog *p)
{
	return p->cnt > p->base_cnt ? p->cnt - p->base_cnt : 0;
}

static __u64 ns_of(const struct sp_prog *p)
{
	return p->ns > p->base_ns ? p->ns - p->base_ns : 0;
}

static struct pm_series *name_series(struct prog_metrics *m, const struct sp_prog *p, bool *other)
{
	char buf[32];

	return series(m, &m->names, p->name, prog_type_name(p->type, buf, sizeof(buf)),
		      p->loader.comm, other);
}

static void write_per_id(struct stat_progs *s, FILE *f, bool om)
{
	size_t i;

	family(f, om, "bpfrec_prog_id_runs_total", "counter",
	       "Runs of each BPF program alive at the scrape (or freed since the last), since bpfrec started.");
	for (i = 0; i < s->nr; i++) {
		if (!s->p[i].id || s->p[i].state == SP_GONE)
			continue;
		fputs("bpfrec_prog_id_runs_total{", f);
		prog_labels(f, &s->p[i]);
		fprintf(f, "} %llu\n", (unsigned long long)runs_of(&s->p[i]));
	}
	family(f, om, "bpfrec_prog_id_run_seconds_total", "counter",
	       "Run time of each BPF program alive at the scrape (or freed since the last).");
	for (i = 0; i < s->nr; i++) {
		if (!s->p[i].id || s->p[i].state == SP_GONE)
			continue;
		fputs("bpfrec_prog_id_run_seconds_total{", f);
		prog_labels(f, &s->p[i]);
		fprintf(f, "} %.9f\n", ns_of(&s->p[i]) / 1e9);
	}
}

static int write_per_name(struct prog_metrics *m, struct stat_progs *s, FILE *f, bool om)
{
	__u64 *runs, *ns;
	size_t i, nr;
	bool other;

	/* every program's series exists before the sums are taken */
	for (i = 0; i < s->nr; i++)
		if (!name_series(m, &s->p[i], &other))
			return -ENOMEM;
	nr = m->names.nr;
	runs = calloc(nr + 1, sizeof(*runs));
	ns = calloc(nr + 1, sizeof(*ns));
	if (!runs || !ns) {
		free(runs);
		free(ns);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		runs[i] = m->names.s[i].runs;
		ns[i] = m->names.s[i].ns;
	}
	for (i = 0; i < s->nr; i++) {
		struct pm_series *n = name_series(m, &s->p[i], &other);
		size_t k = n - m->names.s;

		runs[k] += runs_of(&s->p[i]);
		ns[k] += ns_of(&s->p[i]);
	}
	family(f, om, "bpfrec_prog_runs_total", "counter",
	       "Runs of the BPF programs of a name, type and loader since bpfrec started, freed ones included.");
	for (i = 0; i < nr; i++) {
		fputs("bpfrec_prog_runs_total{", f);
		name_labels(f, &m->names.s[i], "name");
		fprintf(f, "} %llu\n", (unsigned long long)runs[i]);
	}
	family(f, om, "bpfrec_prog_run_seconds_total", "counter",
	       "Run time of the BPF programs of a name, type and loader, freed ones included.");
	for (i = 0; i < nr; i++) {
		fputs("bpfrec_prog_run_seconds_total{", f);
		name_labels(f, &m->names.s[i], "name");
		fprintf(f, "} %.9f\n", ns[i] / 1e9);
	}
	free(runs);
	free(ns);
	return 0;
}

static void write_self(const struct prog_metrics *m, const struct stat_progs *s,
		       const struct pm_self *self, FILE *f, bool om)
{
	size_t i;

	family(f, om, "bpfrec_lost_records_total", "counter",
	       "Records the kernel had no room for: freed programs (their final counts) and captured loads.");
	fprintf(f, "bpfrec_lost_records_total{source=\"freed\"} %llu\n",
		(unsigned long long)self->lost_freed);
	fprintf(f, "bpfrec_lost_records_total{source=\"capture\"} %llu\n",
		(unsigned long long)self->lost_capture);
	fprintf(f, "bpfrec_lost_records_total{source=\"event_log\"} %llu\n",
		(unsigned long long)self->events_dropped);
	family(f, om, "bpfrec_series_overflow_total", "counter",
	       "Programs and events counted under name \"_other\": more names than --max-names.");
	fprintf(f, "bpfrec_series_overflow_total %llu\n", (unsigned long long)m->overflow);
	family(f, om, "bpfrec_run_time_stats", "gauge",
	       "1 when bpfrec keeps the kernel's BPF run time stats on (two clock reads per program run).");
	fprintf(f, "bpfrec_run_time_stats %d\n", !m->lifecycle_only);
	family(f, om, "bpfrec_self_cpu_seconds_total", "counter", "CPU time of bpfrec itself.");
	fprintf(f, "bpfrec_self_cpu_seconds_total %.6f\n", self->cpu_s);
	family(f, om, "bpfrec_self_scrape_cpu_seconds_total", "counter",
	       "CPU time bpfrec spent in scrapes before this one.");
	fprintf(f, "bpfrec_self_scrape_cpu_seconds_total %.6f\n", self->scrape_cpu_s);
	family(f, om, "bpfrec_self_scrapes_total", "counter", "Scrapes served before this one.");
	fprintf(f, "bpfrec_self_scrapes_total %llu\n", (unsigned long long)self->scrapes);
	family(f, om, "bpfrec_self_programs", "gauge", "Programs bpfrec holds: alive, or freed and not yet shown.");
	fprintf(f, "bpfrec_self_programs %zu\n", s->nr);
	family(f, om, "bpfrec_self_bpf_run_seconds_total", "counter",
	       "Run time of bpfrec's own BPF programs (the capture and the freed hook).");
	{
		__u64 ns = 0;

		for (i = 0; i < s->nr; i++)
			if (s->p[i].self)
				ns += ns_of(&s->p[i]);
		fprintf(f, "bpfrec_self_bpf_run_seconds_total %.9f\n", ns / 1e9);
	}
}

int prog_metrics_write(struct prog_metrics *m, struct stat_progs *s, const struct pm_self *self,
		       bool om, FILE *f)
{
	size_t i;
	int err;

	if (!m->lifecycle_only) {
		write_per_id(s, f, om);
		err = write_per_name(m, s, f, om);
		if (err)
			return err;
	}
	family(f, om, "bpfrec_lifecycle_events_total", "counter",
	       "BPF program loads, link attaches and program frees by kind, type and loader.");
	for (i = 0; i < m->life.nr; i++) {
		fputs("bpfrec_lifecycle_events_total{", f);
		name_labels(f, &m->life.s[i], "kind");
		fprintf(f, "} %llu\n", (unsigned long long)m->life.s[i].count);
	}
	write_self(m, s, self, f, om);
	if (om)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

static bool gone(const struct sp_prog *p, void *ctx)
{
	(void)ctx;
	return p->state == SP_GONE;
}

int prog_metrics_fold(struct prog_metrics *m, struct stat_progs *s)
{
	size_t i;
	bool other;

	stat_progs_next_interval(s);
	for (i = 0; i < s->nr; i++) {
		struct pm_series *n;

		if (s->p[i].state != SP_GONE)
			continue;
		n = name_series(m, &s->p[i], &other);
		if (!n)
			return -ENOMEM;
		n->runs += runs_of(&s->p[i]);
		n->ns += ns_of(&s->p[i]);
		m->overflow += other;
	}
	return stat_progs_prune(s, gone, NULL);
}

static void table_free(struct pm_table *t)
{
	free(t->s);
	hashmap_free(&t->index);
}

void prog_metrics_free(struct prog_metrics *m)
{
	table_free(&m->names);
	table_free(&m->life);
	memset(m, 0, sizeof(*m));
}
