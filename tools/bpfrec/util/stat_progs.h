/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost of every BPF program on the machine (`bpfrec stat --all-progs`):
 * run counts and run time from BPF_ENABLE_STATS, held through its fd only
 * while bpfrec runs, looked at by id at each interval; programs freed
 * between two looks are reported by stat_progs.bpf.c with their final
 * counts, and the in-kernel capture names who loaded the new ones.
 */
#ifndef BPFREC_STAT_PROGS_H
#define BPFREC_STAT_PROGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/bpf_obj.h"
#include "util/capture.h"
#include "util/hashmap.h"

#define SP_NAME_LEN	128	/* full BTF function names */

enum sp_state {
	SP_LIVE,
	SP_FREED,	/* its final counts came: shown once more, then dropped */
	SP_GONE,	/* shown freed */
};

struct sp_prog {
	__u32 id;			/* 0: freed before any look and not captured */
	__u32 type;
	__u8 tag[BPF_TAG_SIZE];
	__u64 load_time;
	char name[SP_NAME_LEN];
	struct pd_origin loader;	/* all zero when unknown */
	bool self;			/* bpfrec's own */
	bool hist_ok;			/* stat -b --hist can time it: BTF, not tracing */
	bool born;			/* loaded since the last interval */
	bool listed;			/* in the kernel's list at the last look */
	enum sp_state state;
	__u64 cnt, ns;			/* latest totals the kernel reported */
	__u64 shown_cnt, shown_ns;	/* totals at the last interval */
	__u64 base_cnt, base_ns;	/* totals when bpfrec first saw it */
};

/*
 * A change in a program's life, as it is learnt: its load (with the
 * loader, from the capture), a link attached to it, its free (final
 * counts included).  Detaches are not seen: no hook of a stock kernel
 * reports them.
 */
enum sp_event_kind { SP_EV_LOAD, SP_EV_ATTACH, SP_EV_FREE };

struct sp_event {
	enum sp_event_kind kind;
	const struct sp_prog *p;	/* NULL for an attach to a program not known */
	__u32 prog_id;
	__u32 link_id, link_type;	/* SP_EV_ATTACH */
	const char *target;		/* SP_EV_ATTACH: function or tracepoint, or "" */
	const struct pd_origin *who;	/* who did it; the loader for a free */
};

typedef void (*sp_event_fn)(void *ctx, const struct sp_event *e);

struct stat_progs_opts {
	/* the run time stats stay off: lifecycle only, the counts read 0 */
	bool lifecycle_only;
	sp_event_fn on_event;		/* also capture links, for their attaches */
	void *ctx;
};

struct stat_progs {
	int stats_fd;			/* BPF_ENABLE_STATS: stats on while open */
	struct stat_progs_bpf *skel;
	struct ring_buffer *rb;
	struct capture cap;
	bool have_cap;
	struct sp_prog *p;
	size_t nr, cap_p;
	struct hashmap by_key;		/* load_time ^ tag -> index + 1 */
	__u64 lost;			/* freed programs the ring had no room for */
	sp_event_fn on_event;
	void *event_ctx;
	__u64 start_boottime;		/* load_time is boot time too */
	__u32 self_pid;
};

/* Turns stats on and loads the hooks; one line on stderr on failure. */
int stat_progs_open(struct stat_progs *s);
/* The same, with the choices of @o. */
int stat_progs_open_opts(struct stat_progs *s, const struct stat_progs_opts *o);
/*
 * Forget the programs @drop says to (freed ones a daemon has counted
 * elsewhere): what a long session holds stays bounded.
 */
int stat_progs_prune(struct stat_progs *s, bool (*drop)(const struct sp_prog *p, void *ctx),
		     void *ctx);
/*
 * Learn what changed: new programs, freed ones, current totals.  @last:
 * wait (a second at most) for the final counts of the programs already
 * out of the kernel's list, whose freeing waits for an RCU grace period.
 */
int stat_progs_read(struct stat_progs *s, bool last);
/* Take in the loads and frees pending, without a look at the list. */
int stat_progs_drain(struct stat_progs *s);
/* What to wait on (epoll) for loads and frees: the capture's, the hook's. */
int stat_progs_epoll_fds(const struct stat_progs *s, int fds[2]);

/* One program's cost over an interval (or the whole session). */
struct sp_row {
	const struct sp_prog *p;
	__u64 runs;
	__u64 run_ns;
};

enum sp_sort { SP_SORT_TIME, SP_SORT_RUNS, SP_SORT_AVG, SP_SORT_ID, SP_SORT_NAME };

/* "time", "runs", "avg", "id", "name": the keys of --sort. */
const char *sp_sort_name(enum sp_sort sort);
int sp_parse_sort(const char *arg, enum sp_sort *sort);

/*
 * What a row is sorted by: its runs and run time (over an interval),
 * then, between equals, @all_runs and @all_ns (since the start), of
 * which avg is the quotient.
 */
struct sp_sort_counts {
	__u64 runs, ns;
	__u64 all_runs, all_ns;
};

/*
 * The order of two rows by @sort for qsort(): the busiest first, names
 * in order, and the lower id between equals.
 */
int sp_cmp(enum sp_sort sort, const struct sp_prog *pa, const struct sp_sort_counts *a,
	   const struct sp_prog *pb, const struct sp_sort_counts *b);

/*
 * The rows since the last interval (@total: since start), sorted;
 * programs that did not run are left out unless @idle (libbpf's feature
 * probes, loaded and freed by every loader, would fill the output).
 * *rows is the caller's to free.
 */
int stat_progs_rows(struct stat_progs *s, bool total, bool idle, enum sp_sort sort,
		    struct sp_row **rows, size_t *nr);
/* After the rows of an interval were shown: the next one starts there. */
void stat_progs_next_interval(struct stat_progs *s);
void stat_progs_close(struct stat_progs *s);

#endif /* BPFREC_STAT_PROGS_H */
