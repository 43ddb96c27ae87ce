// SPDX-License-Identifier: GPL-2.0
/*
 * The run loop of record, stat, top and serve (util/cmd_loop.h): signals
 * on a signalfd, two timers and the command's fds on one epoll.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <linux/types.h>
#include "util/cmd_loop.h"

/* epoll tags: the loop's own sources, then the command's fds from TAG_FD on */
enum { TAG_SIGNAL, TAG_END, TAG_INTERVAL, TAG_FD };

#define MAX_EVENTS	16

static int ep_add(int epfd, int fd, __u64 tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int cmd_loop_init(struct cmd_loop *l, unsigned int flags, const struct cmd_loop_ops *ops,
		  void *ctx)
{
	sigset_t mask;
	int err;

	*l = (struct cmd_loop)CMD_LOOP_INIT;
	l->timeout_ms = -1;
	l->ops = ops;
	l->ctx = ctx;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	/* not reset: under nohup it stays ignored, as asked */
	if (flags & CMD_LOOP_SIGHUP)
		sigaddset(&mask, SIGHUP);
	if (flags & CMD_LOOP_SIGCHLD)
		sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	l->sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (l->sigfd < 0)
		return -errno;
	l->end_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (l->end_fd < 0)
		return -errno;
	l->interval_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (l->interval_fd < 0)
		return -errno;
	err = ep_add(l->epfd, l->sigfd, TAG_SIGNAL);
	if (!err)
		err = ep_add(l->epfd, l->end_fd, TAG_END);
	if (!err)
		err = ep_add(l->epfd, l->interval_fd, TAG_INTERVAL);
	return err;
}

int cmd_loop_add_fd(struct cmd_loop *l, int fd, unsigned int n)
{
	return ep_add(l->epfd, fd, TAG_FD + (__u64)n);
}

int cmd_loop_arm(struct cmd_loop *l, unsigned long end_sec, unsigned long interval_ms)
{
	struct itimerspec end = { .it_value.tv_sec = end_sec };
	struct itimerspec iv = {
		.it_value.tv_sec = interval_ms / 1000,
		.it_value.tv_nsec = interval_ms % 1000 * 1000000,
	};

	iv.it_interval = iv.it_value;
	if (end_sec && timerfd_settime(l->end_fd, 0, &end, NULL))
		return -errno;
	if (interval_ms && timerfd_settime(l->interval_fd, 0, &iv, NULL))
		return -errno;
	return 0;
}

/* One ready source: what woke the loop, and the command's answer. */
static int dispatch(struct cmd_loop *l, __u64 tag)
{
	const struct cmd_loop_ops *ops = l->ops;
	struct signalfd_siginfo si;
	__u64 ticks;

	switch (tag) {
	case TAG_SIGNAL:
		/* epoll is level-triggered: one signal per wakeup is enough */
		if (read(l->sigfd, &si, sizeof(si)) != sizeof(si))
			return 0;
		if (ops->signal)
			return ops->signal(l->ctx, si.ssi_signo);
		l->stop = true;
		return 0;
	case TAG_END:
		l->stop = true;
		return 0;
	case TAG_INTERVAL:
		if (read(l->interval_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
			return 0;
		return ops->interval ? ops->interval(l->ctx) : 0;
	default:
		return ops->fd ? ops->fd(l->ctx, tag - TAG_FD) : 0;
	}
}

int cmd_loop_run(struct cmd_loop *l)
{
	struct epoll_event evs[MAX_EVENTS];
	int n, i, err;

	while (!l->stop) {
		n = epoll_wait(l->epfd, evs, MAX_EVENTS, l->timeout_ms);
		if (n < 0 && errno != EINTR) {
			l->wait_failed = true;
			return -errno;
		}
		for (i = 0; i < n; i++) {
			err = dispatch(l, evs[i].data.u64);
			if (err)
				return err;
		}
		err = l->ops->wake ? l->ops->wake(l->ctx) : 0;
		if (err)
			return err;
	}
	return 0;
}

void cmd_loop_close(struct cmd_loop *l)
{
	int *fds[] = { &l->epfd, &l->sigfd, &l->end_fd, &l->interval_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
