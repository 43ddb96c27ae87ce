// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec diff: two files of `bpfrec stat --all-progs -o` per program
 * (runs, ns/run, CPU %), or two profiles per symbol (share of the
 * samples), with util/stat_diff.c; --fail-on PCT makes a regression an
 * exit status, for CI.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/printable.h"
#include "util/stat_diff.h"

static const char doc[] =
"Compare two recordings: A (before) and B (after).\n"
"\n"
"Two files of `bpfrec stat --all-progs -o FILE`: per program name (programs\n"
"of one name are summed, since ids change from run to run) the runs, the\n"
"time per run and its change, and the CPU % (of one CPU) of each.  Two\n"
"profiles (`bpfrec record -e cpu-clock` or `--off-cpu`, or perf's): per\n"
"symbol, its share of the samples whose leaf it is, and the change in\n"
"points.\n"
"\n"
"--fail-on PCT exits 1 when a program's time per run grew by more than PCT %\n"
"(or, for profiles, a symbol's share by more than PCT points), and names\n"
"each on stderr.  Programs in one file only are listed, never a failure.\n"
"A recording of the whole machine holds other programs too, whose cost\n"
"varies with the load: --filter keeps the ones of the workload, by name\n"
"or by the loader's comm (of programs loaded while stat ran).\n"
"\n"
"EXAMPLES:\n"
"    bpfrec stat --all-progs -o before.data -- ./bench\n"
"    bpfrec stat --all-progs -o after.data -- ./bench\n"
"    bpfrec diff before.data after.data\n"
"    bpfrec diff --fail-on 5 --filter bench before.data after.data || echo regression\n";

enum { OPT_FAIL_ON = 0x100, OPT_FILTER };

static const struct argp_option options[] = {
	{ "fail-on", OPT_FAIL_ON, "PCT", 0, "Exit 1 on a regression of more than PCT %", 0 },
	{ "filter", OPT_FILTER, "TEXT", 0, "Only the programs whose name or loader contains TEXT", 0 },
	{},
};

struct diff_opts {
	const char *path[2];
	int nr_paths;
	double fail_on;			/* < 0: never */
	const char *filter;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_opts *o = state->input;
	char *end;

	switch (key) {
	case OPT_FAIL_ON:
		errno = 0;
		o->fail_on = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->fail_on >= 0 && o->fail_on <= 1e6))
			return cmd_usage_error(state, "--fail-on wants a percentage, not '%s'", arg);
		break;
	case OPT_FILTER:
		o->filter = arg;
		break;
	case ARGP_KEY_ARG:
		if (o->nr_paths == 2)
			return cmd_usage_error(state, "unexpected argument '%s': give two files", arg);
		o->path[o->nr_paths++] = arg;
		break;
	case ARGP_KEY_END:
		if (!cmd_help_shown() && o->nr_paths != 2)
			return cmd_usage_error(state, "%s", "give two files: A (before) and B (after)");
		break;
	default:
		return cmd_other_key(key, state);
	}
	return 0;
}

/* Each regression beyond --fail-on, on stderr; how many. */
static int regressions(const struct diff_opts *o, bool profile, const struct sd_row *rows,
		       size_t nr)
{
	char name[256];
	size_t i;
	int n = 0;

	for (i = 0; i < nr; i++) {
		if (isnan(rows[i].change) || rows[i].change <= o->fail_on)
			continue;
		fprintf(stderr, "bpfrec diff: %s: %s %+.1f%s, more than --fail-on %g\n",
			printable(rows[i].name, name, sizeof(name)),
			profile ? "share" : "ns/run", rows[i].change, profile ? " points" : " %",
			o->fail_on);
		n++;
	}
	return n;
}

int cmd_diff(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, "A B", doc, cmd_help_children, NULL, NULL };
	struct diff_opts o = { .fail_on = -1 };
	struct sd_file f[2] = {};
	struct sd_row *rows = NULL;
	size_t nr = 0;
	char err[512];
	int i, ret = BPFREC_EXIT_ERROR;

	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &o))
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	for (i = 0; i < 2; i++) {
		if (sd_read(o.path[i], &f[i], o.filter, err, sizeof(err))) {
			fprintf(stderr, "bpfrec diff: %s: %s\n", o.path[i], err);
			goto out;
		}
	}
	if (f[0].profile != f[1].profile) {
		fprintf(stderr, "bpfrec diff: %s is %s, %s is %s: compare like with like\n",
			o.path[0], f[0].profile ? "a profile" : "counts", o.path[1],
			f[1].profile ? "a profile" : "counts");
		goto out;
	}
	if (sd_compare(&f[0], &f[1], &rows, &nr)) {
		fprintf(stderr, "bpfrec diff: out of memory\n");
		goto out;
	}
	sd_print(stdout, &f[0], &f[1], rows, nr);
	ret = o.fail_on >= 0 && regressions(&o, f[0].profile, rows, nr) ? BPFREC_EXIT_ERROR :
									   BPFREC_EXIT_OK;
out:
	free(rows);
	sd_free(&f[0]);
	sd_free(&f[1]);
	return ret;
}
