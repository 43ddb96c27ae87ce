// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec report: what a recording saw, summarised - BPF objects by kind
 * and type, by creating process, their lifetimes, those still alive when
 * the recording ended, and what was lost.
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/fit.h"
#include "util/lifecycle.h"
#include "util/lifecycle_print.h"
#include "util/perf_data/oversized.h"
#include "util/timeline.h"

/* report --by's keys, by enum lc_by. */
static const char *const by_names[] = {
	[LC_BY_LOADER] = "loader", [LC_BY_EXE] = "exe", [LC_BY_CGROUP] = "cgroup",
	[LC_BY_TARGET] = "target",
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
	"A stat file of 'bpfrec stat -b ID --hist -o FILE' gets its run-time\n"
	"histograms: per program its runs, p50/p90/p99/max and the log2 bars as\n"
	"bpftrace draws them; --json gives a line per program with its buckets.\n"
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
	"  bpfrec report -i hist.data --json   # of stat -b 42 --hist -o hist.data\n"
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
	enum lc_by by;			/* --by */
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
		for (by = LC_BY_LOADER; by <= LC_BY_TARGET && strcmp(arg, by_names[by]); by++)
			;
		if (by > LC_BY_TARGET)
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
	struct lifecycle c = {};
	struct timeline tl;
	char err[300];
	int ret = BPFREC_EXIT_OK;

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
		ret = report_hist(input, &args.profile);
		if (ret != REPORT_NO_HIST) {
			free(args.profile.comm_list);
			return ret;
		}
		ret = report_profile(input, &args.profile);
		if (ret != REPORT_NO_PROFILE) {
			free(args.profile.comm_list);
			return ret;
		}
	}
	ret = BPFREC_EXIT_OK;
	if (timeline_open(&tl, input, err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s: %s\n", input, err);
		return BPFREC_EXIT_ERROR;
	}
	if (lifecycle_collect(&tl, &c, err, sizeof(err))) {
		fprintf(stderr, "bpfrec report: %s: %s\n", input, err);
		ret = BPFREC_EXIT_ERROR;
		goto out;
	}
	lifecycle_only_comms(&c, args.profile.comms, args.profile.nr_comms);
	lifecycle_print_header(input, &tl, &c);
	report_kallsyms_line(pd_reader_capture(tl.reader));
	if (args.profile.header_only)
		goto flush;
	if ((args.by ? lifecycle_print_by(&c, args.by) :
	     lifecycle_print_tables(&c, fit_output_width(args.profile.wide)))) {
		fprintf(stderr, "bpfrec report: out of memory\n");
		ret = BPFREC_EXIT_ERROR;
		goto out;
	}
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
	lifecycle_free(&c);
	timeline_close(&tl);
	return ret;
}
