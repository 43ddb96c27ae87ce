// SPDX-License-Identifier: GPL-2.0
/* Output of `bpfrec stat`: see stat_print.h. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "util/json.h"
#include "util/stat_events.h"
#include "util/stat_print.h"

static const char *prog_type(__u32 type)
{
	const char *s = libbpf_bpf_prog_type_str(type);

	return s ? s : "unknown";
}

static const char *state_of(const struct sp_prog *p)
{
	if (p->state != SP_LIVE)
		return p->born ? "new,freed" : "freed";
	return p->born ? "new" : "live";
}

static void progs_json(const struct stat_print *pr, double ts, __u64 wall_ns,
		       const struct sp_row *r)
{
	const struct sp_prog *p = r->p;
	char buf[64];
	struct json j;

	json_begin(&j, pr->f);
	snprintf(buf, sizeof(buf), "%.9f", ts);
	json_raw(&j, "time", buf);
	json_u64(&j, "id", p->id);
	json_str(&j, "type", prog_type(p->type));
	json_str(&j, "name", p->name);
	json_u64(&j, "runs", r->runs);
	json_u64(&j, "run_ns", r->run_ns);
	snprintf(buf, sizeof(buf), "%.2f", r->runs ? (double)r->run_ns / r->runs : 0.0);
	json_raw(&j, "ns_per_run", buf);
	snprintf(buf, sizeof(buf), "%.4f", wall_ns ? 100.0 * r->run_ns / wall_ns : 0.0);
	json_raw(&j, "cpu_pct", buf);
	if (p->loader.pid) {
		json_u64(&j, "loader_pid", p->loader.pid);
		json_str(&j, "loader_comm", p->loader.comm);
	}
	json_str(&j, "state", state_of(p));
	json_bool(&j, "self", p->self);
	/* whether stat -b ID --hist could time its runs */
	json_bool(&j, "hist", p->hist_ok);
	json_end(&j);
}

static void progs_line(const struct stat_print *pr, double ts, __u64 wall_ns,
		       const struct sp_row *r)
{
	const struct sp_prog *p = r->p;
	char loader[40] = "-", id[16] = "-";

	if (p->loader.pid)
		snprintf(loader, sizeof(loader), "%u/%.16s", p->loader.pid, p->loader.comm);
	if (p->id)
		snprintf(id, sizeof(id), "%u", p->id);
	if (pr->interval)
		fprintf(pr->f, "%16.9f ", ts);
	fprintf(pr->f, "%8s %-14.14s %12llu %14llu %10.2f %7.2f %-22s ", id,
		prog_type(p->type), (unsigned long long)r->runs, (unsigned long long)r->run_ns,
		r->runs ? (double)r->run_ns / r->runs : 0.0,
		wall_ns ? 100.0 * r->run_ns / wall_ns : 0.0, loader);
	if (pr->hist)
		fprintf(pr->f, "%-4s ", p->hist_ok ? "yes" : "no");
	fprintf(pr->f, "%s%s%s\n", p->name,
		p->self ? " [bpfrec]" : "",
		p->state != SP_LIVE ? " [freed]" : p->born ? " [new]" : "");
}

void stat_print_progs(struct stat_print *pr, double ts, __u64 wall_ns,
		      const struct sp_row *rows, size_t nr)
{
	size_t i;

	if (pr->json) {
		for (i = 0; i < nr; i++)
			progs_json(pr, ts, wall_ns, &rows[i]);
		fflush(pr->f);
		return;
	}
	if (!pr->interval)
		fprintf(pr->f, "\n Cost of BPF programs, %s, over %.3f seconds (CPU %% of one CPU):\n\n",
			pr->target, wall_ns / 1e9);
	if (!pr->header_done)
		fprintf(pr->f, "%s%8s %-14s %12s %14s %10s %7s %-22s %s%s\n",
			pr->interval ? "#           time " : "", "id", "type", "runs", "run_ns",
			"ns/run", "cpu%", "loader", pr->hist ? "hist " : "", "name");
	pr->header_done = pr->interval;
	for (i = 0; i < nr; i++)
		progs_line(pr, ts, wall_ns, &rows[i]);
	if (!pr->interval)
		fputc('\n', pr->f);
	fflush(pr->f);
}

/* The derived metric of @c, perf's way: "ns/run", "CPUs utilized", IPC. */
static const char *metric(const struct stat_count *c, const struct stat_count *all, int nr,
			  __u64 wall_ns, double *val)
{
	double v = stat_count_scaled(c);
	int i;

	if (c->has_runs) {
		*val = c->runs ? v / c->runs : 0;
		return c->ev->is_time ? "ns/run" : "/run";
	}
	if (c->ev->is_time && wall_ns) {
		*val = v / wall_ns;
		return "CPUs utilized";
	}
	if (c->ev->attr.type == PERF_TYPE_HARDWARE &&
	    c->ev->attr.config == PERF_COUNT_HW_INSTRUCTIONS) {
		for (i = 0; i < nr; i++) {
			const struct stat_count *o = &all[i];

			if (o->who == c->who && o->ev->attr.type == PERF_TYPE_HARDWARE &&
			    o->ev->attr.config == PERF_COUNT_HW_CPU_CYCLES && stat_count_scaled(o)) {
				*val = v / stat_count_scaled(o);
				return "insn per cycle";
			}
		}
	}
	return NULL;
}

static void count_json(const struct stat_print *pr, double ts, const struct stat_count *c,
		       const char *m, double mval)
{
	char buf[64];
	struct json j;

	json_begin(&j, pr->f);
	snprintf(buf, sizeof(buf), "%.9f", ts);
	json_raw(&j, "time", buf);
	if (c->who)
		json_str(&j, "who", c->who);
	json_str(&j, "event", c->ev->name);
	json_u64(&j, "value", stat_count_scaled(c));
	json_str(&j, "unit", c->ev->is_time ? "ns" : "");
	json_u64(&j, "counter", c->v.counter);
	json_u64(&j, "enabled", c->v.enabled);
	json_u64(&j, "running", c->v.running);
	if (c->has_runs)
		json_u64(&j, "runs", c->runs);
	if (m) {
		snprintf(buf, sizeof(buf), "%.4f", mval);
		json_raw(&j, "metric", buf);
		json_str(&j, "metric_unit", m);
	}
	json_end(&j);
}

static void count_line(const struct stat_print *pr, double ts, const struct stat_count *c,
		       const char *m, double mval)
{
	char val[32], line[256];
	int n;

	if (!c->has_runs && !c->v.enabled)
		snprintf(val, sizeof(val), "<not counted>");
	else if (c->ev->is_time)
		snprintf(val, sizeof(val), "%.2f", stat_count_scaled(c) / 1e6);
	else
		snprintf(val, sizeof(val), "%llu", (unsigned long long)stat_count_scaled(c));
	n = snprintf(line, sizeof(line), "%18s %-4s %-24s", val, c->ev->is_time ? "msec" : "",
		     c->ev->name);
	if (m)
		n += snprintf(line + n, sizeof(line) - n, " # %10.2f %-14s", mval, m);
	if (c->v.running && c->v.running < c->v.enabled)
		n += snprintf(line + n, sizeof(line) - n, " (%.2f%%)",
			      100.0 * c->v.running / c->v.enabled);
	if (pr->interval && c->who)
		n += snprintf(line + n, sizeof(line) - n, " %s", c->who);
	if (pr->interval && c->has_runs)
		n += snprintf(line + n, sizeof(line) - n, " (%llu runs)",
			      (unsigned long long)c->runs);
	/* no trailing blanks when the padded columns end the line */
	while (n > 0 && line[n - 1] == ' ')
		n--;
	if (pr->interval)
		fprintf(pr->f, "%16.9f ", ts);
	fprintf(pr->f, "%.*s\n", n, line);
}

void stat_print_counts(struct stat_print *pr, double ts, __u64 wall_ns,
		       const struct stat_count *c, int nr)
{
	const char *m;
	double mval = 0;
	int i;

	for (i = 0; i < nr; i++) {
		m = metric(&c[i], c, nr, wall_ns, &mval);
		if (pr->json) {
			count_json(pr, ts, &c[i], m, mval);
			continue;
		}
		/* a block per subject at the end, perf stat's way */
		if (!pr->interval && (!i || c[i].who != c[i - 1].who)) {
			fprintf(pr->f, "\n Performance counter stats for %s", c[i].who ? c[i].who : pr->target);
			if (c[i].has_runs)
				fprintf(pr->f, ", %llu runs", (unsigned long long)c[i].runs);
			fprintf(pr->f, ":\n\n");
		}
		count_line(pr, ts, &c[i], m, mval);
	}
	if (!pr->json && !pr->interval)
		fprintf(pr->f, "\n %.9f seconds time elapsed\n\n", wall_ns / 1e9);
	fflush(pr->f);
}
