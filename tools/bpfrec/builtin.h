/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of bpfrec; each parses its own arguments with argp. */
#ifndef BPFREC_BUILTIN_H
#define BPFREC_BUILTIN_H

#include <argp.h>
#include <stdbool.h>

/* Exit codes of every subcommand. */
#define BPFREC_EXIT_OK		0
#define BPFREC_EXIT_ERROR	1
#define BPFREC_EXIT_USAGE	2

/* What record writes, and script and report read, by default. */
#define BPFREC_DEFAULT_FILE	"bpfrec.data"

/*
 * The input option of the commands that read a perf.data, and the
 * refusal of any other argument: an argp child whose input is the
 * const char * that -i sets; left NULL, it is set to the default file.
 */
extern const struct argp input_argp;

/*
 * The conventions of every command (cmd_args.c): parse with ARGP_NO_ERRS
 * and ARGP_NO_HELP, with cmd_help_argp as a child (-h/--help, --usage;
 * cmd_help_shown() then says to exit 0), and report bad usage with
 * cmd_usage_error() (one line, "bpfrec CMD: ...", exit 2), getopt's
 * refusals (ARGP_KEY_ERROR) with cmd_bad_option().  A usage error that
 * util/ found and built (errmsg_set(): an event's name, a --set) is
 * printed by cmd_usage_built(), its one line: cmd_bad_option() then
 * prints no second.
 */
extern const struct argp cmd_help_argp;
/* The children of a command with no other: cmd_help_argp alone. */
extern const struct argp_child cmd_help_children[];
bool cmd_help_shown(void);
error_t cmd_usage_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
error_t cmd_bad_option(struct argp_state *state);
/* The keys a command's parser leaves: ARGP_KEY_ERROR's one line, the rest unknown. */
error_t cmd_other_key(int key, struct argp_state *state);
error_t cmd_usage_built(void);

/*
 * The profile of bpfrec report (report_profile.c): its options, an argp
 * child whose input is a struct report_profile_args, and the report.
 */
struct report_profile_args {
	const char *sort;		/* --sort KEYS */
	const char *svg;		/* --svg FILE */
	const char *pprof;		/* --pprof FILE */
	const char *kallsyms;		/* --kallsyms FILE */
	bool off_cpu, wall, folded, json;
	bool stacks;			/* -g: each stack, not the table */
	bool header_only;		/* --header-only */
	bool wide;			/* --wide: names never cut */
	char *comm_list;		/* --comm COMM[,COMM...], split in place */
	const char *comms[16];
	size_t nr_comms;
};

extern const struct argp report_profile_argp;
bool report_profile_asked(const struct report_profile_args *a);
/* What report_profile() returns for a file without samples, nothing asked. */
#define REPORT_NO_PROFILE	(-1)
/* An exit code, or REPORT_NO_PROFILE: the lifecycle summary is the report. */
int report_profile(const char *path, const struct report_profile_args *a);
/* What report_hist() returns for a file without histograms. */
#define REPORT_NO_HIST		(-1)
/*
 * The run-time histograms of a stat file (report_hist.c), unless a
 * profile's output is asked: an exit code, or REPORT_NO_HIST.
 */
int report_hist(const char *path, const struct report_profile_args *a);
struct pd_capture;
/* The header line that says whether the file keeps kallsyms (PD_CAP_KALLSYMS). */
void report_kallsyms_line(const struct pd_capture *cap);

int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif /* BPFREC_BUILTIN_H */
