// SPDX-License-Identifier: GPL-2.0
/*
 * What every command's options have in common: -h/--help and --usage
 * (argp's own help, with "-?", is off: ARGP_NO_HELP), -v/-vv and -q
 * (util/debug.h), and errors of one
 * line, "bpfrec CMD: what is wrong (see bpfrec CMD --help)", where argp's
 * take two (ARGP_NO_ERRS).  CMD is argv[0] as the dispatcher passes it.
 */
#include <stdarg.h>
#include <stdio.h>
#include "builtin.h"
#include "util/debug.h"

enum { OPT_USAGE = 0x7f00 };

/* One command runs per process: what its parse said and showed. */
static bool said, shown;

error_t cmd_usage_error(struct argp_state *state, const char *fmt, ...)
{
	va_list ap;

	said = true;
	fprintf(stderr, "bpfrec %s: ", state->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see bpfrec %s --help)\n", state->name);
	return EINVAL;
}

error_t cmd_usage_built(void)
{
	said = true;
	errmsg_print();
	return EINVAL;
}

error_t cmd_bad_option(struct argp_state *state)
{
	/* getopt refused the argument before the one argp would read next */
	if (!said && state->next > 0 && state->next <= state->argc)
		return cmd_usage_error(state, "bad option '%s'", state->argv[state->next - 1]);
	return 0;
}

error_t cmd_other_key(int key, struct argp_state *state)
{
	return key == ARGP_KEY_ERROR ? cmd_bad_option(state) : ARGP_ERR_UNKNOWN;
}

bool cmd_help_shown(void)
{
	return shown;
}

static const struct argp_option help_options[] = {
	{ "help", 'h', NULL, 0, "Show this help", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Show a short usage message", -1 },
	{ "verbose", 'v', NULL, 0,
	  "Say more: libbpf's messages and the verifier's logs (-vv: libbpf's debug messages too)", -1 },
	{ "quiet", 'q', NULL, 0, "Say nothing but errors and warnings (no progress lines)", -1 },
	{ 0 }
};

static error_t help_parse(int key, char *arg, struct argp_state *state)
{
	char name[64];

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		/* a process may run several commands: its tests do */
		said = shown = false;
		verbose = 0;
		/* the lines util/ says name the command */
		debug_set_cmd_name(state->argv[0]);
		errmsg_clear();
		return 0;
	case 'v':
		verbose = verbose < 0 ? 1 : verbose + 1;
		return 0;
	case 'q':
		verbose = -1;
		return 0;
	}
	if (key != 'h' && key != OPT_USAGE)
		return ARGP_ERR_UNKNOWN;
	snprintf(name, sizeof(name), "bpfrec %s", state->name);
	/* argp_state_help() is silent under ARGP_NO_ERRS */
	argp_help(state->root_argp, stdout, key == 'h' ? ARGP_HELP_STD_HELP : ARGP_HELP_USAGE,
		  name);
	shown = true;
	/* stop here: nothing else is parsed or done */
	state->next = state->argc;
	return 0;
}

const struct argp cmd_help_argp = {
	.options = help_options,
	.parser = help_parse,
};

const struct argp_child cmd_help_children[] = {
	{ &cmd_help_argp, 0, NULL, 0 },
	{ 0 }
};
