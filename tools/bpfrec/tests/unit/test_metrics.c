// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics of bpfrec serve (util/prog_metrics.c) over a table of
 * programs built by hand: the per-program and per-name series, a freed
 * program's runs kept by its name after it is forgotten, the bound on
 * names (the rest under _other), label values escaped, OpenMetrics' shape,
 * and the lifecycle counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "util/prog_metrics.h"

/* Add a program to @s as the kernel would have reported it. */
static struct sp_prog *add(struct stat_progs *s, __u32 id, const char *name, const char *loader,
			   __u64 base, __u64 cnt)
{
	struct sp_prog *p;
	__u64 *v;

	s->p = realloc(s->p, (s->nr + 1) * sizeof(*s->p));
	p = &s->p[s->nr];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->type = 6;	/* xdp */
	p->load_time = 1000 + id;
	p->tag[0] = id;
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->loader.comm, sizeof(p->loader.comm), "%s", loader);
	p->loader.pid = 1;
	p->base_cnt = base;
	p->cnt = cnt;
	p->ns = 10 * (cnt - base);
	v = hashmap_add(&s->by_key, p->load_time ^ id, NULL);
	*v = ++s->nr;
	return p;
}

/* The metrics as text (@om: OpenMetrics), the caller's to free. */
static char *scrape(struct prog_metrics *m, struct stat_progs *s, bool om)
{
	struct pm_self self = { .scrapes = 3 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(!prog_metrics_write(m, s, &self, om, f), "prog_metrics_write");
	fclose(f);
	return buf;
}

static bool has(const char *text, const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "\n%s\n", line);
	return strstr(text, want) != NULL;
}

static void test_series(void)
{
	struct stat_progs s = {};
	struct prog_metrics m;
	struct sp_prog *p;
	char *t;

	prog_metrics_init(&m, 10, false);
	add(&s, 7, "xdp_pass", "loader", 100, 1100);
	add(&s, 8, "xdp_pass", "loader", 0, 500);
	add(&s, 9, "other", "loader", 0, 0);
	t = scrape(&m, &s, false);
	CHECK(has(t, "bpfrec_prog_id_runs_total{id=\"7\",name=\"xdp_pass\",type=\"xdp\",tag=\"0700000000000000\",loader=\"loader\"} 1000"),
	      "per program: runs since bpfrec started (1100 - 100)");
	CHECK(has(t, "bpfrec_prog_runs_total{name=\"xdp_pass\",type=\"xdp\",loader=\"loader\"} 1500"),
	      "per name: both programs of the name summed");
	CHECK(has(t, "bpfrec_prog_run_seconds_total{name=\"xdp_pass\",type=\"xdp\",loader=\"loader\"} 0.000015000"),
	      "per name: run time in seconds");
	CHECK(has(t, "# TYPE bpfrec_prog_runs_total counter"), "Prometheus text: TYPE of the _total name");
	free(t);

	/* program 8 is freed with 200 more runs: shown once more, then forgotten */
	p = &s.p[1];
	p->cnt = 700;
	p->state = SP_FREED;
	t = scrape(&m, &s, false);
	CHECK(has(t, "bpfrec_prog_id_runs_total{id=\"8\",name=\"xdp_pass\",type=\"xdp\",tag=\"0800000000000000\",loader=\"loader\"} 700"),
	      "a freed program's final counts, once");
	free(t);
	CHECK(!prog_metrics_fold(&m, &s), "fold");
	CHECK(s.nr == 2, "the freed program is forgotten (%zu held)", s.nr);
	t = scrape(&m, &s, false);
	CHECK(!strstr(t, "id=\"8\""), "no series of the freed program any more");
	CHECK(has(t, "bpfrec_prog_runs_total{name=\"xdp_pass\",type=\"xdp\",loader=\"loader\"} 1700"),
	      "its runs stay in its name's series (1000 + 700)");
	free(t);
	prog_metrics_free(&m);
	free(s.p);
	hashmap_free(&s.by_key);
}

static void test_bound_and_escapes(void)
{
	struct stat_progs s = {};
	struct prog_metrics m;
	char *t;

	prog_metrics_init(&m, 2, false);
	add(&s, 1, "a", "l", 0, 1);
	add(&s, 2, "b", "l", 0, 2);
	add(&s, 3, "c", "l", 0, 4);
	add(&s, 4, "d", "l", 0, 8);
	add(&s, 5, "q\"x\\y\nz\xff", "l", 0, 16);
	t = scrape(&m, &s, false);
	CHECK(has(t, "bpfrec_prog_runs_total{name=\"a\",type=\"xdp\",loader=\"l\"} 1") &&
	      has(t, "bpfrec_prog_runs_total{name=\"b\",type=\"xdp\",loader=\"l\"} 2"),
	      "the first two names have their series");
	CHECK(has(t, "bpfrec_prog_runs_total{name=\"_other\",type=\"\",loader=\"\"} 28"),
	      "the others summed under _other (4 + 8 + 16)");
	CHECK(has(t, "bpfrec_prog_id_runs_total{id=\"5\",name=\"q\\\"x\\\\y?z?\",type=\"xdp\",tag=\"0500000000000000\",loader=\"l\"} 16"),
	      "a label value escaped: quote, backslash, no raw newline or invalid byte");
	free(t);
	t = scrape(&m, &s, true);
	CHECK(has(t, "# TYPE bpfrec_prog_runs counter"), "OpenMetrics: the counter's family without _total");
	CHECK(strlen(t) > 6 && !strcmp(t + strlen(t) - 6, "# EOF\n"), "OpenMetrics: # EOF last");
	free(t);
	prog_metrics_free(&m);
	free(s.p);
	hashmap_free(&s.by_key);
}

static void test_lifecycle(void)
{
	struct stat_progs s = {};
	struct prog_metrics m;
	struct pd_origin who = { .pid = 5 };
	struct sp_event e = { .kind = SP_EV_LOAD, .who = &who };
	char *t;

	prog_metrics_init(&m, 10, true);
	add(&s, 1, "prog", "ldr", 0, 0);
	snprintf(who.comm, sizeof(who.comm), "ldr");
	e.p = &s.p[0];
	prog_metrics_event(&m, &e);
	prog_metrics_event(&m, &e);
	e.kind = SP_EV_FREE;
	prog_metrics_event(&m, &e);
	t = scrape(&m, &s, false);
	CHECK(has(t, "bpfrec_lifecycle_events_total{kind=\"load\",type=\"xdp\",loader=\"ldr\"} 2") &&
	      has(t, "bpfrec_lifecycle_events_total{kind=\"free\",type=\"xdp\",loader=\"ldr\"} 1"),
	      "loads and frees by kind, type and loader");
	CHECK(!strstr(t, "bpfrec_prog_runs_total") && has(t, "bpfrec_run_time_stats 0"),
	      "lifecycle only: no run counters, the stats said off");
	free(t);
	prog_metrics_free(&m);
	free(s.p);
	hashmap_free(&s.by_key);
}

int main(void)
{
	unit_setup();
	test_series();
	test_bound_and_escapes();
	test_lifecycle();
	return unit_done();
}
