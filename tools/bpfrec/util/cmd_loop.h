/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run loop of a command that runs until it is told to stop (record,
 * stat, top, serve): the signals that stop it arrive on a signalfd, so
 * that the command finishes its work (a file, a last reading) from the
 * loop; one epoll waits on that signalfd, an end timer (--duration), an
 * interval timer (-I, top's refresh) and the command's own fds (rings,
 * buffers, a terminal), each with a tag that says which woke the loop.
 */
#ifndef BPFREC_CMD_LOOP_H
#define BPFREC_CMD_LOOP_H

#include <stdbool.h>
#include <signal.h>

/* Signals besides SIGINT and SIGTERM that the loop takes (cmd_loop_init()). */
#define CMD_LOOP_SIGCHLD	(1U << 0)	/* a workload's exit */
#define CMD_LOOP_SIGHUP		(1U << 1)	/* a hangup stops too (under nohup it stays ignored) */

/* What the command does when its sources are ready; any may be NULL. */
struct cmd_loop_ops {
	/* a signal of the mask arrived, one per wakeup; NULL: any signal stops the loop */
	int (*signal)(void *ctx, int signo);
	/* the interval timer fired */
	int (*interval)(void *ctx);
	/* the command's fd number @n (cmd_loop_add_fd()) is ready */
	int (*fd)(void *ctx, unsigned int n);
	/* after every wakeup, its sources handled, or a timeout: a drain, a refresh */
	int (*wake)(void *ctx);
};

struct cmd_loop {
	int epfd, sigfd;
	int end_fd;		/* the end timer: the loop stops when it fires */
	int interval_fd;	/* the interval timer */
	int timeout_ms;		/* the longest wait without a wakeup; -1: none */
	bool stop;		/* set by the end timer or by the command: the loop returns */
	bool wait_failed;	/* cmd_loop_run()'s error is epoll_wait()'s, not a callback's */
	const struct cmd_loop_ops *ops;
	void *ctx;
};

/* A loop not set up yet: cmd_loop_close() closes nothing. */
#define CMD_LOOP_INIT { .epfd = -1, .sigfd = -1, .end_fd = -1, .interval_fd = -1 }

/*
 * Blocks SIGINT, SIGTERM and those of @flags, to be read from the
 * signalfd, and creates the epoll, the signalfd and both timers.
 * SIGINT and SIGTERM get their default action back first: a shell
 * starts background jobs with SIGINT ignored, and an ignored signal is
 * discarded before any signalfd sees it.  Returns 0 or a negative errno.
 */
int cmd_loop_init(struct cmd_loop *l, unsigned int flags, const struct cmd_loop_ops *ops,
		  void *ctx);
/* Waits on @fd too: when it is ready, ops->fd(ctx, @n). */
int cmd_loop_add_fd(struct cmd_loop *l, int fd, unsigned int n);
/*
 * Arms the end timer (@end_sec seconds from now) and the interval timer
 * (every @interval_ms); 0 leaves either off.
 */
int cmd_loop_arm(struct cmd_loop *l, unsigned long end_sec, unsigned long interval_ms);
/*
 * Waits and dispatches until l->stop, or a callback's error (returned).
 * An error of epoll_wait() is returned as a negative errno, with
 * l->wait_failed set: the callbacks say their own errors.
 */
int cmd_loop_run(struct cmd_loop *l);
/* Closes the fds; the signals stay blocked (a workload being reaped still sends SIGCHLD). */
void cmd_loop_close(struct cmd_loop *l);

#endif /* BPFREC_CMD_LOOP_H */
