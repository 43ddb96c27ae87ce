/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared BPF-managed counters (`bpfrec stat --bpf-counters`), perf's
 * "bperf" design: one leader per distinct perf_event_attr on the machine
 * (bpf_skel/stat_leader.bpf.c, on sched_switch) owns the one perf event
 * per CPU and writes per-CPU diffs and running totals; a session of some
 * processes, threads or cgroups loads a follower
 * (bpf_skel/stat_follower.bpf.c, fexit on the leader) that filters and
 * accumulates, one of the whole machine or of some CPUs reads the totals
 * (no follower: nothing per context switch, no trampoline; a leader of an
 * older bpfrec without totals gets a follower).  The leaders are found
 * through a registry, a hash map
 * pinned in bpffs (attr -> link id, diff map id), changed under flock()
 * on its directory.
 */
#ifndef BPFREC_STAT_BPERF_H
#define BPFREC_STAT_BPERF_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include "util/stat_count.h"
#include "util/stat_events.h"
#include "bpf_skel/stat_bperf.h"

#define BPERF_DEFAULT_DIR	"/sys/fs/bpf/bpfrec_stat"

struct bperf_counter {
	const struct stat_event *ev;
	struct stat_leader_bpf *leader;		/* when this session loaded it */
	int *event_fds;				/* when this session owns them */
	int link_fd, prog_fd, events_fd;
	int owner_fd;				/* pidfd of the events' owner, if not us */
	struct stat_follower_bpf *follower;
	int total_fd;				/* the leader's totals, -1: a follower */
	bool reused;				/* another session's leader */
	struct bpf_perf_event_value total[BPERF_MAX_CGROUPS];
	struct bpf_perf_event_value shown[BPERF_MAX_CGROUPS];
	struct bpf_perf_event_value base[BPERF_MAX_CGROUPS];	/* at start */
};

struct stat_bperf {
	const char *dir;
	unsigned long lock_timeout_ms;		/* 0: the default, 300 s */
	int dir_fd;				/* flock()ed while changing */
	int reg_fd;
	bool reg_ok;				/* reg_fd is a registry bpfrec made */
	int nr_cpus;				/* possible */
	enum bperf_filter filter;
	__u64 keys[BPERF_MAX_FILTERS];		/* CPUs, tgids, tids or cgroup ids */
	int nr_keys;
	const char *names[BPERF_MAX_CGROUPS];	/* cgroups, as given */
	struct bperf_counter c[STAT_MAX_EVENTS];
	int nr;
	struct bpf_perf_event_value *percpu;
};

/* A CPU, tgid or tid to count (-C, -p, -t, the workload). */
int stat_bperf_add_key(struct stat_bperf *b, __u64 key);
/*
 * A cgroup to count (-G), by its path under /sys/fs/cgroup; one line on
 * stderr when it is no cgroup.
 */
int stat_bperf_add_cgroup(struct stat_bperf *b, const char *name);

/*
 * Find or load the leader of each event, load this session's followers.
 * The filter and its keys are set by the caller.  One line on stderr on
 * failure: no bpffs and no way to mount it, an unwritable registry, a
 * kernel that refuses trampolines.
 */
int stat_bperf_open(struct stat_bperf *b, const struct stat_events *es);
/*
 * The perf events of a leader belong to the session that opened them, and
 * close with it.  A pidfd of that session (-1 when it is this one, or
 * unknown), for counter @i: readable once it exited.
 */
int stat_bperf_owner_fd(const struct stat_bperf *b, int i);
/*
 * The owner of counter @i's perf events exited: take them over at once,
 * so that the counts go on, or watch the session that took them.
 */
int stat_bperf_owner_gone(struct stat_bperf *b, int i);
/* Make every leader read its CPU now (BPF_PROG_TEST_RUN), then sum. */
int stat_bperf_read(struct stat_bperf *b);
/* Counts since the last call (@total: since start) into @c; how many. */
int stat_bperf_counts(struct stat_bperf *b, bool total, struct stat_count *c);
void stat_bperf_close(struct stat_bperf *b);

#endif /* BPFREC_STAT_BPERF_H */
