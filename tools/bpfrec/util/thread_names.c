// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the tasks records come from.  The kernel sends a COMM record
 * when a task execs or renames itself during the recording; a task that
 * does neither - any kernel thread, such as the kworker that frees a map
 * - stays nameless.  After each drain, such a task is named from /proc in
 * a COMM record of our own, but only if /proc shows the very task of the
 * record: one that was running before the record.  Otherwise it stays
 * nameless; nothing is guessed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/array.h"
#include "util/thread_names.h"

/* The state of a task in n->tasks; from PENDING on, an index into pending[]. */
enum { UNNAMED, NAMED, PENDING };

int names_comm(struct task_names *n, __u32 tid)
{
	__u64 *st = hashmap_add(&n->tasks, tid, NULL);

	if (!st)
		return -ENOMEM;
	/* a comm from after the record: what it was before is unknown */
	if (*st >= PENDING)
		n->pending[*st - PENDING].tid = 0;
	*st = NAMED;
	return 0;
}

int names_seen(struct task_names *n, const struct pd_sample *s)
{
	__u64 *st;

	/* tid 0 is each CPU's idle task, which /proc does not list */
	if (!s->tid)
		return 0;
	st = hashmap_add(&n->tasks, s->tid, NULL);
	if (!st)
		return -ENOMEM;
	if (*st == NAMED)
		return 0;
	if (*st >= PENDING) {
		/* rings drain one CPU after another: not in time order */
		if (s->time < n->pending[*st - PENDING].time)
			n->pending[*st - PENDING] = *s;
		return 0;
	}
	if (array_room(&n->pending, &n->cap_pending, n->nr_pending, sizeof(*n->pending)))
		return -ENOMEM;
	*st = PENDING + n->nr_pending;
	n->pending[n->nr_pending++] = *s;
	return 0;
}

#define PF_WQ_WORKER	0x20		/* include/linux/sched.h */
#define COMM_MAX	15		/* TASK_COMM_LEN - 1 */

/*
 * /proc follows a workqueue worker's comm with '+' or '-' and what it ran
 * last - at the time /proc is read, not at the record's.  The comm has at
 * most COMM_MAX characters, so the mark is within the first COMM_MAX + 1:
 * cut there when only one '+' or '-' is.  Otherwise keep all of it.
 */
static void strip_worker_desc(char *name)
{
	char *mark = NULL;
	int i;

	if (strlen(name) <= COMM_MAX)
		return;
	for (i = 1; i <= COMM_MAX; i++) {
		if (name[i] != '+' && name[i] != '-')
			continue;
		if (mark)
			return;
		mark = &name[i];
	}
	if (mark)
		*mark = 0;
}

/*
 * The comm of task @tid if it started before @before (CLOCK_MONOTONIC ns).
 * One read of /proc/<tid>/stat gives the name and the start of the same
 * task; its name is /proc/<tid>/comm's, the full one of kernel threads.
 * The start, in clock ticks of CLOCK_BOOTTIME, is never earlier than on
 * CLOCK_MONOTONIC: a task whose tick ends before @before started before.
 */
static int proc_comm(__u32 tid, __u64 before, char *comm, size_t len)
{
	unsigned long long start, tick = 1000000000ULL / sysconf(_SC_CLK_TCK);
	char path[32], buf[1024], *name, *end;
	unsigned int flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	/* "pid (comm) state ...": the comm may hold spaces and ')' */
	name = strchr(buf, '(');
	end = strrchr(buf, ')');
	if (!name || !end || end < name)
		return -EIO;
	/* fields 3 to 22: state ppid pgrp session tty tpgid flags ... starttime */
	if (sscanf(end + 1, " %*c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &flags, &start) != 2)
		return -EIO;
	if ((start + 1) * tick > before)
		return -ESRCH;
	*end = 0;
	snprintf(comm, len, "%s", name + 1);
	if (flags & PF_WQ_WORKER)
		strip_worker_desc(comm);
	return 0;
}

int names_flush(struct task_names *n, struct pd_writer *w)
{
	char comm[256];
	size_t i;
	int err = 0;

	for (i = 0; i < n->nr_pending; i++) {
		struct pd_sample s = n->pending[i];
		__u64 *st;

		if (!s.tid)
			continue;
		/* names_seen() added every task it made pending */
		st = hashmap_find(&n->tasks, s.tid);
		*st = UNNAMED;
		if (err || proc_comm(s.tid, s.time, comm, sizeof(comm)))
			continue;
		/* in time order right before the record it names, for every reader */
		s.time--;
		err = pd_write_comm(w, s.pid, s.tid, comm, false, &s);
		if (!err)
			*st = NAMED;
	}
	n->nr_pending = 0;
	return err;
}

void names_free(struct task_names *n)
{
	hashmap_free(&n->tasks);
	free(n->pending);
	memset(n, 0, sizeof(*n));
}
