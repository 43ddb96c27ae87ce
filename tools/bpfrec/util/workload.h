/* SPDX-License-Identifier: GPL-2.0 */
/* The command a recording runs: `bpfrec record|stat -- CMD [ARGS]`. */
#ifndef BPFREC_WORKLOAD_H
#define BPFREC_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;
	int exec_fd;		/* the exec's errno comes through it */
	bool exec_failed;	/* the command could not be run */
	int status;		/* exit status, 128 + signal when killed */
	int stops;		/* stop requests so far */
};

/* Fork @argv, held before its exec. */
int workload_prepare(struct workload *w, char **argv);
int workload_start(struct workload *w);
/*
 * After workload_start(): wait for the exec, 0 once it ran, or its
 * negative errno (the child has said why on stderr and exits 127).
 */
int workload_exec_error(struct workload *w);
int workload_reap(struct workload *w, bool block);
/* Ask the running workload to end: SIGTERM, SIGKILL from the second time. */
void workload_stop(struct workload *w);
void workload_abort(struct workload *w);

#endif /* BPFREC_WORKLOAD_H */
