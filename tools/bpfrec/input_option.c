// SPDX-License-Identifier: GPL-2.0
/*
 * -i FILE, the input of the commands that read a perf.data (script,
 * report), the default file when it is not given, and the refusal of
 * any other argument or option.
 */
#include <unistd.h>
#include "builtin.h"

static const struct argp_option input_options[] = {
	{ "input", 'i', "FILE", 0,
	  "perf.data to read, - for stdin (a pipe-mode stream, perf record -o -); default: "
	  BPFREC_DEFAULT_FILE ", or perf.data when there is no " BPFREC_DEFAULT_FILE, 0 },
	{ 0 }
};

static error_t input_parse(int key, char *arg, struct argp_state *state)
{
	const char **input = state->input;

	switch (key) {
	case 'i':
		*input = arg;
		break;
	case ARGP_KEY_ARG:
		return cmd_usage_error(state, "unexpected argument '%s'", arg);
	case ARGP_KEY_ERROR:
		return cmd_bad_option(state);
	case ARGP_KEY_END:
		/*
		 * What bpfrec record wrote, else what perf record did: either
		 * recorder's file is read without -i.  Without both, the
		 * error names ours.
		 */
		if (!*input)
			*input = access(BPFREC_DEFAULT_FILE, F_OK) && !access("perf.data", F_OK) ?
				 "perf.data" : BPFREC_DEFAULT_FILE;
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
