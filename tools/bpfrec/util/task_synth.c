// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks and mappings from /proc, written as the records the kernel would
 * have sent had the recording started before them.  A task may exit while
 * it is read: what was read of it is kept, the rest is skipped.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util/array.h"
#include "util/task_synth.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The numeric entries of directory @path. */
static int list_ids(const char *path, pid_t **ids, int *nr)
{
	DIR *d = opendir(path);
	size_t cap = 0;
	struct dirent *de;

	*ids = NULL;
	*nr = 0;
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		if (array_room(ids, &cap, *nr, sizeof(**ids))) {
			closedir(d);
			free(*ids);
			return -ENOMEM;
		}
		(*ids)[(*nr)++] = atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

int task_threads(pid_t pid, pid_t **tids, int *nr)
{
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	err = list_ids(path, tids, nr);
	if (!err && !*nr) {
		free(*tids);
		return -ESRCH;
	}
	return err;
}

static int synth_comm(struct pd_writer *w, struct pd_sample *s, pid_t pid, pid_t tid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	s->pid = pid;
	s->tid = tid;
	return pd_write_comm(w, pid, tid, comm, false, s);
}

/* One line of /proc/PID/maps as MMAP2, if it maps code. */
static int synth_map_line(struct pd_writer *w, struct pd_sample *s, pid_t pid, char *line)
{
	unsigned long long start, end, pgoff, ino;
	char perms[8], name[4096] = "";
	unsigned int maj, min;
	struct pd_mmap2 m;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
		   &pgoff, &maj, &min, &ino, name) < 7)
		return 0;
	/* perf's choice without --data: code, from a file or the vdso */
	if (perms[2] != 'x' || (name[0] != '/' && name[0] != '['))
		return 0;
	m = (struct pd_mmap2){
		.pid = pid, .tid = pid, .start = start, .len = end - start, .pgoff = pgoff,
		.maj = maj, .min = min, .ino = ino,
		.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			PROT_EXEC,
		.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE,
		.filename = name,
	};
	s->pid = s->tid = pid;
	return pd_write_mmap2(w, &m, PERF_RECORD_MISC_USER, s);
}

static int synth_maps(struct pd_writer *w, struct pd_sample *s, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!err && getline(&line, &cap, f) > 0)
		err = synth_map_line(w, s, pid, line);
	free(line);
	fclose(f);
	return err;
}

static int synth_process(struct pd_writer *w, struct pd_sample *s, pid_t pid)
{
	pid_t *tids;
	int nr, i, err;

	/* gone since it was listed: nothing to say about it */
	if (task_threads(pid, &tids, &nr))
		return 0;
	for (i = 0, err = 0; i < nr && !err; i++)
		err = synth_comm(w, s, pid, tids[i]);
	free(tids);
	return err ? err : synth_maps(w, s, pid);
}

int synth_tasks(struct pd_writer *w, const struct pd_sample *s, const pid_t *pids, int nr)
{
	struct pd_sample t = *s;
	pid_t *all = NULL;
	int i, err = 0;

	if (!pids) {
		err = list_ids("/proc", &all, &nr);
		pids = all;
	}
	for (i = 0; i < nr && !err; i++)
		err = synth_process(w, &t, pids[i]);
	free(all);
	return err;
}

int synth_kernel_mmap(struct pd_writer *w, const struct pd_sample *s,
		      const struct kallsyms_copy *k)
{
	unsigned long long text, etext;
	struct pd_sample t = *s;
	struct pd_mmap m;

	/* addresses hidden (kptr_restrict): perf then has no kernel map either */
	if (!kallsyms_copy_addr(k, "_text", &text) || !kallsyms_copy_addr(k, "_etext", &etext) ||
	    etext <= text)
		return 0;
	m = (struct pd_mmap){
		.pid = -1, .tid = 0, .start = text, .len = etext - text, .pgoff = text,
		.filename = "[kernel.kallsyms]_text",
	};
	t.pid = -1;
	t.tid = 0;
	return pd_write_mmap(w, &m, PERF_RECORD_MISC_KERNEL, &t);
}
