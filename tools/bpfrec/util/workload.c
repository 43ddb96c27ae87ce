// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of `bpfrec record -- CMD [ARGS]`: forked before recording
 * starts, held on a pipe until the events are enabled so that nothing it
 * does is missed, then exec'd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "util/debug.h"
#include "util/workload.h"

int workload_prepare(struct workload *w, char **argv)
{
	int go[2], ex[2], err;
	char c;

	w->exec_fd = -1;
	if (pipe2(go, O_CLOEXEC)) {
		err = -errno;
		return errmsg_set(err, "pipe: %s", strerror(-err));
	}
	/* the exec's errno, or EOF when the exec closed it: run or not */
	if (pipe2(ex, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return errmsg_set(err, "pipe: %s", strerror(-err));
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return errmsg_set(err, "fork: %s", strerror(-err));
	}
	if (w->pid == 0) {
		sigset_t none;

		/* the recorder blocks these for its signalfd; the workload must not */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(ex[0]);
		/* EOF without a byte: the recorder gave up before starting */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		err = errno;
		/* the child's own line: the recorder learns only the errno */
		pr_warning("cannot run %s: %s\n", argv[0], strerror(err));
		if (write(ex[1], &err, sizeof(err)) != sizeof(err))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->exec_fd = ex[0];
	return 0;
}

int workload_exec_error(struct workload *w)
{
	int err = 0;
	ssize_t n;

	if (w->exec_fd < 0)
		return 0;
	do
		n = read(w->exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(w->exec_fd);
	w->exec_fd = -1;
	w->exec_failed = n == sizeof(err);
	return w->exec_failed ? -(err ? err : ENOEXEC) : 0;
}

int workload_start(struct workload *w)
{
	int err = write(w->go_fd, "g", 1) == 1 ? 0 : -errno;

	close(w->go_fd);
	w->go_fd = -1;
	return err;
}

/* Collect the exit status; the shell's convention for signals (128 + sig). */
int workload_reap(struct workload *w, bool block)
{
	int status;
	pid_t pid = waitpid(w->pid, &status, block ? 0 : WNOHANG);

	if (pid <= 0)
		return -1;
	w->pid = 0;
	if (WIFSIGNALED(status))
		w->status = 128 + WTERMSIG(status);
	else
		w->status = WEXITSTATUS(status);
	return 0;
}

/*
 * The recorder was asked to stop: the workload is asked the way perf asks
 * it, and the recording goes on until it has ended, so that what it does
 * while ending is recorded too.  One that ignores SIGTERM is killed at
 * the next request.
 */
void workload_stop(struct workload *w)
{
	if (w->pid > 0)
		kill(w->pid, w->stops++ ? SIGKILL : SIGTERM);
}

/* The recording ended first (signal, error): don't leave the workload behind. */
void workload_abort(struct workload *w)
{
	if (w->go_fd >= 0) {
		close(w->go_fd);
		w->go_fd = -1;
	}
	if (w->exec_fd >= 0) {
		close(w->exec_fd);
		w->exec_fd = -1;
	}
	if (w->pid > 0) {
		kill(w->pid, SIGTERM);
		workload_reap(w, true);
	}
}
