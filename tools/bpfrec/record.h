/* SPDX-License-Identifier: GPL-2.0 */
/* The parts of `bpfrec record`, one file each. */
#ifndef BPFREC_RECORD_H
#define BPFREC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "perf_data.h"

/* record_ring.c: the per-CPU side-band perf events and their rings. */
struct ring {
	int fd;
	int cpu;
	void *base;		/* control page, then len bytes of data */
	size_t len;
	__u64 id;		/* PERF_EVENT_IOC_ID */
};

struct rings {
	struct ring *r;
	int n;
	struct perf_event_attr attr;
	bool obj_events;	/* kernel accepted bpf_obj_event */
};

typedef int (*ring_fn)(void *ctx, int cpu, const struct perf_event_header *hdr);

/* Prints one line on failure; returns a negative errno. */
int rings_open(struct rings *rs, unsigned int mmap_pages);
int rings_enable(struct rings *rs, bool on);
int ring_drain(struct ring *r, ring_fn fn, void *ctx, void *scratch);
void rings_close(struct rings *rs);

/* record_capture.c: capture.bpf.c and its ring buffer. */
struct capture {
	struct capture_bpf *skel;
	struct ring_buffer *rb;
};

int capture_start(struct capture *c, size_t buf_bytes, ring_buffer_sample_fn fn, void *ctx);
int capture_epoll_fd(const struct capture *c);
int capture_drain(struct capture *c);
__u64 capture_drops(const struct capture *c);
void capture_stop(struct capture *c);

struct facts;
/* Mark the capture's own programs, maps, links and BTF in @f as PD_F_SELF. */
void capture_mark_self(const struct capture *c, struct facts *f);

/* record_cmd.c: the workload after "--". */
struct workload {
	pid_t pid;
	int go_fd;
	int status;		/* exit status, 128 + signal when killed */
};

int workload_prepare(struct workload *w, char **argv);
int workload_start(struct workload *w);
int workload_reap(struct workload *w, bool block);
void workload_abort(struct workload *w);

/*
 * record_facts.c: what the recorder learnt about each object, merged from
 * in-kernel capture, the BPF syscalls and synthesis, by kind and id.
 */
struct facts;

struct facts *facts_new(void);
/* The entry for @id, created zeroed (with the id set) when new. */
struct pd_prog *facts_prog(struct facts *f, __u32 id, bool *created);
struct pd_map *facts_map(struct facts *f, __u32 id, bool *created);
struct pd_link *facts_link(struct facts *f, __u32 id, bool *created);
struct pd_btf *facts_btf(struct facts *f, __u32 id, bool *created);
/* Resolve BTF @id with its raw data unless known already. */
void facts_want_btf(struct facts *f, __u32 id);

enum fact_kind { FACT_PROG, FACT_MAP, FACT_LINK, FACT_BTF };

/*
 * Mark the known object @id the recorder's own (PD_F_SELF), created by
 * @origin; an id without facts stays unknown.
 */
void facts_mark_self(struct facts *f, enum fact_kind kind, __u32 id,
		     const struct pd_origin *origin);
struct facts_stats {
	size_t objects, unresolved;		/* of every kind */
	size_t progs, progs_unresolved;
};

/* Mark what no source resolved PD_F_UNRESOLVED; count. */
void facts_finish(struct facts *f, struct facts_stats *st);
/* Hand everything to the writer. */
int facts_store(struct facts *f, struct pd_writer *w);
void facts_free(struct facts *f);

/* resolve.c: facts by id through the BPF syscalls, while the object exists. */
int resolve_prog(__u32 id, struct pd_prog *p);
int resolve_map(__u32 id, struct pd_map *m);
int resolve_link(__u32 id, struct pd_link *l);
int resolve_btf(__u32 id, struct pd_btf *b, bool with_data);

/*
 * record_comm.c: COMM records of our own for the tasks the kernel sent
 * none for, named from /proc after each drain.
 */
struct task_names {
	__u32 *tids;		/* open addressing, 0 = empty */
	int *state;		/* per slot: named, unnamed, or index in pending */
	size_t cap, used;
	struct pd_sample *pending;	/* earliest record of each unnamed task */
	size_t nr_pending, cap_pending;
};

/* The kernel named @tid in a COMM record. */
int names_comm(struct task_names *n, __u32 tid);
/* A record of task @s->tid at @s->time. */
int names_seen(struct task_names *n, const struct pd_sample *s);
/* Name the tasks seen since the last flush, where /proc can. */
int names_flush(struct task_names *n, struct pd_writer *w);
void names_free(struct task_names *n);

/* record_sink.c: perf records to the writer, captured facts to the table. */
struct sink {
	struct pd_writer *w;
	struct facts *facts;
	struct capture *cap;	/* NULL without in-kernel capture */
	__u64 records;
	__u64 lost_records;	/* sum of PERF_RECORD_LOST */
	/* announced objects whose facts had not come yet */
	struct pd_bpf_event *pending;
	size_t nr_pending, cap_pending;
	/*
	 * Captured programs to complete by syscall after this drain's
	 * records, and the programs those records unloaded.
	 */
	__u32 *ask, *gone;
	size_t nr_ask, cap_ask, nr_gone, cap_gone;
	struct task_names names;
};

int sink_record(void *ctx, int cpu, const struct perf_event_header *hdr);
int sink_capture(void *ctx, void *data, size_t size);
/* Once a drain's records are in: the syscalls for what the capture lacked. */
int sink_ask(struct sink *k);
void sink_finish(struct sink *k);

/* synth.c: objects that exist when the recording starts. */
struct synth_ctx {
	struct pd_writer *w;
	struct facts *facts;
	bool obj_events;	/* write map/link/BTF records too */
	struct pd_sample sample;
};

int synth_existing(struct synth_ctx *s);

#endif /* BPFREC_RECORD_H */
