// SPDX-License-Identifier: GPL-2.0
/*
 * The profile half of bpfrec report: its options (an argp child of the
 * command) and the order of the work - read the samples (util/profile.c),
 * then print the table, the off-CPU stacks, folded stacks, JSON, or draw
 * the flame graph (util/profile_print.c, util/flamegraph.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "builtin.h"
#include "util/out_file.h"
#include "util/fit.h"
#include "util/flamegraph.h"
#include "util/pprof.h"
#include "util/profile_print.h"

enum {
	OPT_OFF_CPU = 0x200,
	OPT_FOLDED,
	OPT_SVG,
	OPT_JSON,
	OPT_KALLSYMS,
	OPT_WALL,
	OPT_STDIO,
	OPT_NO_CHILDREN,
	OPT_HEADER_ONLY,
	OPT_COMM,
	OPT_WIDE,
	OPT_PPROF,
};

static const struct argp_option profile_options[] = {
	{ "sort", 's', "KEYS", 0,
	  "profile table by these keys, heaviest first: comm, dso, sym, bpf, comma-separated (default: comm,dso,sym)", 0 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0,
	  "off-CPU time (event " PROFILE_OFFCPU_EVENT ") per stack, with totals, instead of CPU samples", 0 },
	{ "wall", OPT_WALL, NULL, 0,
	  "wall-clock time: CPU samples (cpu-clock, by period) and off-CPU intervals in one profile, each stack ending in [on CPU] or [off CPU: STATE]", 0 },
	{ "folded", OPT_FOLDED, NULL, 0,
	  "folded stacks, one line each: comm;root;...;leaf COUNT (samples, or ns with --off-cpu)", 0 },
	{ "svg", OPT_SVG, "FILE", 0, "write an interactive flame graph to FILE", 0 },
	{ "json", OPT_JSON, NULL, 0, "the table rows (or stacks) as JSON lines", 0 },
	{ NULL, 'g', NULL, 0,
	  "each stack whole with its share, the heaviest first (perf report -g), instead of the table", 0 },
	{ "comm", OPT_COMM, "COMM[,COMM...]", 0,
	  "only the samples (or objects) of tasks of these names", 0 },
	{ "header-only", OPT_HEADER_ONLY, NULL, 0, "only the header lines of the report", 0 },
	{ "wide", OPT_WIDE, NULL, 0,
	  "names whole, however long (else columns fit the terminal, or 160 into a pipe, and a "
	  "name cut in the middle shows '" FIT_MARK "')", 0 },
	{ "stdio", OPT_STDIO, NULL, 0, "text on stdout: the only interface, taken for perf's sake", 0 },
	{ "show-nr-samples", 'n', NULL, 0, "the Samples column: always shown, taken for perf's sake", 0 },
	{ "no-children", OPT_NO_CHILDREN, NULL, 0,
	  "self overhead only: what the table always shows, taken for perf's sake", 0 },
	{ "pprof", OPT_PPROF, "FILE", 0,
	  "write the profile (CPU, or off-CPU with --off-cpu) as gzipped pprof profile.proto to FILE, for go tool pprof", 0 },
	{ "kallsyms", OPT_KALLSYMS, "FILE", 0,
	  "kernel symbols of the recording machine, for files that kept none (perf's): a copy of its /proc/kallsyms (default: this machine's, if the file was recorded here)", 0 },
	{ 0 }
};

static error_t profile_parse(int key, char *arg, struct argp_state *state)
{
	struct report_profile_args *a = state->input;

	switch (key) {
	case 's':
		a->sort = arg;
		break;
	case OPT_OFF_CPU:
		a->off_cpu = true;
		break;
	case OPT_FOLDED:
		a->folded = true;
		break;
	case OPT_WALL:
		a->wall = true;
		break;
	case OPT_SVG:
		a->svg = arg;
		break;
	case OPT_PPROF:
		a->pprof = arg;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_KALLSYMS:
		a->kallsyms = arg;
		break;
	case 'g':
		a->stacks = true;
		break;
	case OPT_HEADER_ONLY:
		a->header_only = true;
		break;
	case OPT_WIDE:
		a->wide = true;
		break;
	case OPT_STDIO:
	case 'n':
	case OPT_NO_CHILDREN:
		break;
	case OPT_COMM: {
		char *tok, *save = NULL;

		free(a->comm_list);
		a->comm_list = strdup(arg);
		a->nr_comms = 0;
		if (!a->comm_list)
			return ENOMEM;
		for (tok = strtok_r(a->comm_list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (a->nr_comms == sizeof(a->comms) / sizeof(a->comms[0]))
				return cmd_usage_error(state, "--comm: at most %zu names",
						       sizeof(a->comms) / sizeof(a->comms[0]));
			a->comms[a->nr_comms++] = tok;
		}
		if (!a->nr_comms)
			return cmd_usage_error(state, "%s", "--comm wants task names");
		break;
	}
	case ARGP_KEY_END: {
		struct profile_view v;
		char err[128];

		if (a->folded && a->json)
			return cmd_usage_error(state, "%s", "--folded and --json are two outputs: choose one");
		if (a->pprof && a->wall)
			return cmd_usage_error(state, "%s", "--pprof writes CPU or off-CPU profiles, not --wall");
		if (a->wall && a->off_cpu)
			return cmd_usage_error(state, "%s", "--wall shows off-CPU time already: drop --off-cpu");
		if (a->stacks && a->sort)
			return cmd_usage_error(state, "%s", "-g shows stacks, --sort a table: choose one");
		if (a->sort && profile_parse_sort(&v, a->sort, err, sizeof(err)))
			return cmd_usage_error(state, "%s", err);
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp report_profile_argp = {
	.options = profile_options,
	.parser = profile_parse,
};

bool report_profile_asked(const struct report_profile_args *a)
{
	return a->sort || a->off_cpu || a->wall || a->folded || a->svg || a->json || a->stacks ||
	       a->pprof;
}

/* --pprof FILE: written whole, then renamed over the name (util/out_file.h). */
static int write_pprof(const struct profile *p, const struct profile_view *v, const char *path)
{
	struct out_file out = { .fd = -1 };
	const char *why = NULL;
	int e;

	e = out_file_open(&out, path, &why);
	if (!e)
		e = pprof_write(p, v, out.fd);
	if (!e)
		e = out_file_commit(&out, false);
	out_file_abort(&out);
	if (e)
		fprintf(stderr, "bpfrec report: cannot write %s: %s\n", path, why ? why : strerror(-e));
	return e;
}

/* Whether an event of the file takes samples: else it has no profile. */
static bool samples_possible(const char *path)
{
	const struct pd_file_info *in;
	struct pd_reader *r;
	char err[300];
	bool yes = false;
	size_t i;

	r = pd_reader_open(path, err, sizeof(err));
	if (!r)
		return true;	/* the profile reading says why */
	in = pd_reader_info(r);
	for (i = 0; i < in->nr_events; i++) {
		const struct perf_event_attr *at = &in->events[i].attr;

		if (at->type == PERF_TYPE_SOFTWARE && at->config == PERF_COUNT_SW_DUMMY)
			continue;
		if (at->sample_period || (in->events[i].name &&
		    !strcmp(in->events[i].name, PROFILE_OFFCPU_EVENT)))
			yes = true;
	}
	pd_reader_close(r);
	return yes;
}

/*
 * What bpfrec's file says of itself: a sampled recording keeps the
 * recording machine's kallsyms, addresses and all.  perf's files (no
 * capture feature) keep none and say nothing.
 */
void report_kallsyms_line(const struct pd_capture *cap)
{
	if (!cap)
		return;
	if (cap->flags & PD_CAP_KALLSYMS)
		printf("# kallsyms: kept in the file, with their addresses (to name the kernel frames of samples)\n");
	else
		printf("# kallsyms: not kept in the file\n");
}

/* Who else sampled, and where the names come from: the header lines. */
static void header(const char *path, const struct profile *p, const struct profile_view *v)
{
	size_t i;
	bool others = false;

	printf("# bpfrec report of %s\n", path);
	printf("# event: %s, %llu samples", profile_event_name(p, v->event),
	       (unsigned long long)p->event_samples[v->event]);
	for (i = 0; i < p->info->nr_events; i++) {
		if ((int)i == v->event || !p->event_samples[i])
			continue;
		printf("%s %s (%llu samples)", others ? "," : "; not shown:",
		       profile_event_name(p, i), (unsigned long long)p->event_samples[i]);
		others = true;
	}
	printf("\n# %s\n", p->ksyms_note);
	report_kallsyms_line(pd_reader_capture(p->reader));
	if (p->lost_samples)
		printf("# lost: %llu records\n", (unsigned long long)p->lost_samples);
}

/* What the reading could not do, on stderr when stdout is machine-read. */
static void notes(const char *path, const struct profile *p, bool to_stderr)
{
	if (to_stderr && !p->have_ksyms)
		fprintf(stderr, "bpfrec report: %s: %s\n", path, p->ksyms_note);
	if (p->users.dsos.nr_changed)
		fprintf(stderr, "bpfrec report: %s: %zu files changed since the recording (other build-id): their addresses are not named\n",
			path, p->users.dsos.nr_changed);
	if (p->unwind.failed)
		fprintf(stderr, "bpfrec report: %s: %llu of %llu samples with a copy of their user stack could not be unwound (a file missing, changed, or without CFI): their frame pointers are shown\n",
			path, (unsigned long long)p->unwind.failed,
			(unsigned long long)(p->unwind.failed + p->unwind.unwound));
	if (pd_reader_warning(p->reader))
		fprintf(stderr, "bpfrec report: warning: %s: %s\n", path,
			pd_reader_warning(p->reader));
}

static int flamegraph(const char *path, const struct profile *p, const struct profile_view *v,
		      FILE *svg, const char *svg_path)
{
	struct folded *lines;
	char title[512];
	size_t nr;
	int err;

	if (profile_folded(p, v, &lines, &nr))
		return -ENOMEM;
	if (v->wall)
		snprintf(title, sizeof(title), "Wall-clock time of %s (%llu %s samples, %llu off-CPU intervals): red on CPU, blue off CPU",
			 path, (unsigned long long)p->event_samples[v->event],
			 profile_event_name(p, v->event),
			 (unsigned long long)p->event_samples[v->off_event]);
	else
		snprintf(title, sizeof(title), "%s of %s (%llu samples)",
			 v->off_cpu ? "Off-CPU time" : profile_event_name(p, v->event), path,
			 (unsigned long long)p->event_samples[v->event]);
	err = flamegraph_write(svg, lines, nr, title, v->off_cpu || v->wall ? "ns" : "samples");
	profile_folded_free(lines, nr);
	if (fclose(svg) && !err)
		err = -EIO;
	if (err == -EIO)
		fprintf(stderr, "bpfrec report: %s: write error\n", svg_path);
	return err;
}

/*
 * The event shown: off-CPU time, or the first other one with samples.
 * -1 with a message when there is none.
 */
static int pick_event(const char *path, const struct profile *p, bool off_cpu)
{
	int ev = off_cpu ? profile_event(p, PROFILE_OFFCPU_EVENT) : profile_cpu_event(p);

	if (off_cpu && ev < 0)
		fprintf(stderr, "bpfrec report: %s: no " PROFILE_OFFCPU_EVENT " event (record with --off-cpu)\n",
			path);
	else if (ev < 0 || !p->event_samples[ev])
		fprintf(stderr, "bpfrec report: %s: no %s samples\n", path,
			off_cpu ? PROFILE_OFFCPU_EVENT : "CPU");
	else
		return ev;
	return -1;
}

/*
 * --wall: the CPU samples must count time (cpu-clock, task-clock: their
 * periods are ns) and the off-CPU intervals be there.  0, or -1 with a
 * message.
 */
static int pick_wall(const char *path, const struct profile *p, struct profile_view *v)
{
	const struct perf_event_attr *at;

	v->event = profile_cpu_event(p);
	v->off_event = profile_event(p, PROFILE_OFFCPU_EVENT);
	if (v->event < 0 || v->off_event < 0) {
		fprintf(stderr, "bpfrec report: %s: --wall needs CPU samples and off-CPU intervals of the same threads (record -e cpu-clock --off-cpu)\n",
			path);
		return -1;
	}
	at = &p->info->events[v->event].attr;
	if (at->type != PERF_TYPE_SOFTWARE ||
	    (at->config != PERF_COUNT_SW_CPU_CLOCK && at->config != PERF_COUNT_SW_TASK_CLOCK)) {
		fprintf(stderr, "bpfrec report: %s: --wall adds CPU time from cpu-clock or task-clock samples, not %s\n",
			path, profile_event_name(p, v->event));
		return -1;
	}
	return 0;
}

int report_profile(const char *path, const struct report_profile_args *a)
{
	struct profile_view v = { .off_cpu = a->off_cpu, .json = a->json, .wall = a->wall,
				  .width = fit_output_width(a->wide), .comms = a->comms,
				  .nr_comms = a->nr_comms };
	struct out_file out = { .fd = -1 };
	struct profile p;
	FILE *svg = NULL;
	const char *why;
	char err[300];
	int ret = BPFREC_EXIT_ERROR, e;

	if (!report_profile_asked(a) && !samples_possible(path))
		return REPORT_NO_PROFILE;
	if (profile_parse_sort(&v, a->sort ? a->sort : "comm,dso,sym", err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s\n", err);
		return BPFREC_EXIT_USAGE;
	}
	/*
	 * An unwritable path is said before the file is read; the graph is
	 * renamed over the name once it is whole (- is standard output).
	 */
	if (a->svg) {
		e = out_file_open(&out, a->svg, &why);
		if (!e && !(svg = fdopen(dup(out.fd), "w")))
			e = -errno;
		if (e) {
			fprintf(stderr, "bpfrec report: cannot write %s: %s\n", a->svg,
				why ? why : strerror(-e));
			out_file_abort(&out);
			return BPFREC_EXIT_ERROR;
		}
	}
	if (profile_read(&p, path, a->kallsyms, err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s: %s\n", path, err);
		goto out;
	}
	if (!report_profile_asked(a) && profile_cpu_event(&p) < 0) {
		ret = REPORT_NO_PROFILE;
		goto out;
	}
	if (a->wall ? pick_wall(path, &p, &v) : (v.event = pick_event(path, &p, a->off_cpu)) < 0)
		goto out;
	notes(path, &p, a->folded || a->json || a->svg || a->pprof);
	if (svg) {
		e = flamegraph(path, &p, &v, svg, a->svg);
		svg = NULL;
		if (e) {
			if (e == -ENOMEM)
				fprintf(stderr, "bpfrec report: out of memory\n");
			goto out;
		}
	}
	if (a->pprof && write_pprof(&p, &v, a->pprof))
		goto out;
	if (a->folded) {
		if (profile_print_folded(&p, &v, stdout))
			goto nomem;
	} else if (a->pprof && !a->svg && !a->json && !a->sort) {
		fprintf(strcmp(a->pprof, "-") ? stdout : stderr,
			"bpfrec report: pprof profile of %llu %s samples written to %s\n",
			(unsigned long long)p.event_samples[v.event], profile_event_name(&p, v.event),
			a->pprof);
	} else if (a->svg && !a->json && !a->sort) {
		/* standard output has the graph: the note goes to stderr */
		fprintf(strcmp(a->svg, "-") ? stdout : stderr,"bpfrec report: flame graph of %llu %s samples written to %s\n",
		       (unsigned long long)p.event_samples[v.event],
		       profile_event_name(&p, v.event), a->svg);
	} else if (a->header_only) {
		header(path, &p, &v);
	} else {
		if (!a->json)
			header(path, &p, &v);
		if (((a->off_cpu || a->wall || a->stacks) && !a->sort ? profile_print_stacks(&p, &v, stdout) :
		     profile_print_table(&p, &v, stdout)))
			goto nomem;
	}
	if (fflush(stdout)) {
		perror("bpfrec report: stdout");
		goto out;
	}
	ret = BPFREC_EXIT_OK;
	goto out;
nomem:
	fprintf(stderr, "bpfrec report: out of memory\n");
out:
	if (svg)
		fclose(svg);
	if (ret == BPFREC_EXIT_OK && a->svg && (e = out_file_commit(&out, false))) {
		fprintf(stderr, "bpfrec report: cannot write %s: %s\n", a->svg, strerror(-e));
		ret = BPFREC_EXIT_ERROR;
	}
	out_file_abort(&out);
	profile_free(&p);
	return ret;
}
