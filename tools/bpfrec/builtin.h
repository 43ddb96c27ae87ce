/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of bpfrec; each parses its own arguments with argp. */
#ifndef BPFREC_BUILTIN_H
#define BPFREC_BUILTIN_H

#include <argp.h>

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

int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);

#endif /* BPFREC_BUILTIN_H */
