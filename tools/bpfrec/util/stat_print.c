// SPDX-License-Identifier: GPL-2.0
/* Output of `bpfrec stat`: see stat_print.h. */
#include <stdio.h>
#include <bpf/libbpf.h>
#include "util/json.h"
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
	fprintf(pr->f, "%8s %-14.14s %12llu %14llu %10.2f %7.2f %-22s %s%s%s\n", id,
		prog_type(p->type), (unsigned long long)r->runs, (unsigned long long)r->run_ns,
		r->runs ? (double)r->run_ns / r->runs : 0.0,
		wall_ns ? 100.0 * r->run_ns / wall_ns : 0.0, loader, p->name,
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
		fprintf(pr->f, "%s%8s %-14s %12s %14s %10s %7s %-22s %s\n",
			pr->interval ? "#           time " : "", "id", "type", "runs", "run_ns",
			"ns/run", "cpu%", "loader", "name");
	pr->header_done = pr->interval;
	for (i = 0; i < nr; i++)
		progs_line(pr, ts, wall_ns, &rows[i]);
	if (!pr->interval)
		fputc('\n', pr->f);
	fflush(pr->f);
}
