// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec: a lossless recorder of the life of BPF objects, writing
 * perf.data.  This file only dispatches to the subcommands.
 */
#include <stdio.h>
#include <string.h>
#include "builtin.h"

#define BPFREC_VERSION "0.1"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "record", cmd_record, "Record BPF object events into a perf.data file" },
	{ "script", cmd_script, "Print the recorded events, one line (or JSON object) each" },
	{ "report", cmd_report, "Summarise objects by type and loader, lifetimes, survivors" },
	{ "stat", cmd_stat, "Count with BPF: program profiles, shared counters, every program's cost" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: bpfrec [--help | --version] COMMAND [ARGS]\n\nCommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(out, "\nExamples:\n"
		"  bpfrec record -e bpf-events -- ./loader   # record while ./loader runs\n"
		"  bpfrec script -i bpfrec.data --json       # JSON lines\n"
		"  bpfrec report                             # summary of bpfrec.data\n"
		"  bpfrec stat --all-progs -I 1000           # what every BPF program costs\n"
		"\nSee 'bpfrec COMMAND --help' for the options of each.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return BPFREC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return BPFREC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("bpfrec " BPFREC_VERSION "\n");
		return BPFREC_EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "bpfrec: unknown command '%s' (see bpfrec --help)\n", argv[1]);
	return BPFREC_EXIT_USAGE;
}
