// SPDX-License-Identifier: GPL-2.0
/*
 * -i FILE, the input of the commands that read a perf.data (script,
 * report), also named as their one argument, the default file when it
 * is not given, and the refusal of any other argument or option.
 */
#include <stdio.h>
#include <sys/stat.h>
#include "builtin.h"

static const struct argp_option input_options[] = {
	{ "input", 'i', "FILE", 0,
	  "perf.data to read, - for stdin (a pipe-mode stream, perf record -o -); default: "
	  "the newer of " BPFREC_DEFAULT_FILE " and perf.data", 0 },
	{ 0 }
};

/*
 * What bpfrec record wrote or what perf record did: the newer of the two
 * (said on stderr when both are there), so that the last recording is
 * read whichever tool made it.  Without either, the error names ours.
 */
static const char *default_input(const char *cmd)
{
	struct stat ours, perfs;
	bool have_ours = !stat(BPFREC_DEFAULT_FILE, &ours);
	bool have_perfs = !stat("perf.data", &perfs);
	bool perf_newer;

	if (!have_perfs)
		return BPFREC_DEFAULT_FILE;
	if (!have_ours)
		return "perf.data";
	perf_newer = perfs.st_mtim.tv_sec > ours.st_mtim.tv_sec ||
		     (perfs.st_mtim.tv_sec == ours.st_mtim.tv_sec &&
		      perfs.st_mtim.tv_nsec > ours.st_mtim.tv_nsec);
	fprintf(stderr, "bpfrec %s: reading %s, newer than %s (-i chooses)\n", cmd,
		perf_newer ? "perf.data" : BPFREC_DEFAULT_FILE,
		perf_newer ? BPFREC_DEFAULT_FILE : "perf.data");
	return perf_newer ? "perf.data" : BPFREC_DEFAULT_FILE;
}

static error_t input_parse(int key, char *arg, struct argp_state *state)
{
	const char **input = state->input;

	switch (key) {
	case 'i':
		*input = arg;
		break;
	case ARGP_KEY_ARG:
		/* the file may be named without -i, once */
		if (*input)
			return cmd_usage_error(state, "unexpected argument '%s' (the input is %s)",
					       arg, *input);
		*input = arg;
		break;
	case ARGP_KEY_ERROR:
		return cmd_bad_option(state);
	case ARGP_KEY_END:
		if (!*input)
			*input = default_input(state->name);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp input_argp = {
	.options = input_options,
	.parser = input_parse,
};
