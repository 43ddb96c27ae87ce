/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel capture (bpf_skel/capture_<kind>.bpf.c): programs per kind
 * of object (programs, maps, links, BTF), loaded and attached by the
 * recorder, sending each object's facts through one BPF ring buffer.
 * Each kind hooks the kernel by one of two paths: BPF trampolines where
 * the kernel assigns the id (fentry), or the bpf() syscall's own
 * tracepoints (syscall).
 */
#ifndef BPFREC_CAPTURE_H
#define BPFREC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

enum capture_path {
	CAPTURE_AUTO,		/* fentry where the kernel allows it, else syscall */
	CAPTURE_FENTRY,
	CAPTURE_SYSCALL,
	CAPTURE_OFF,
};

/* Kinds, as bits of capture_opts.kinds: enum cap_kind - 1. */
#define CAPTURE_PROGS	(1U << 0)
#define CAPTURE_ALL	((1U << 4) - 1)

struct capture_opts {
	size_t buf_bytes;	/* the ring buffer, a power of two of pages */
	enum capture_path path;
	unsigned int kinds;	/* CAPTURE_* bits */
	bool measure_cost;	/* time a syscall before and after the syscall path */
};

struct capture_kind {
	bool on;			/* loaded and attached */
	struct bpf_link *links[2];	/* fentry, or sys_enter_bpf and sys_exit_bpf */
	enum capture_path path;		/* as tried last: fentry or syscall */
	int err;			/* why it is off, when asked for */
	__u64 missed;			/* records the capture had no facts for */
};

struct capture_bpf;

struct capture {
	struct capture_kind kind[4];	/* by enum cap_kind - 1 */
	/* the copies loaded: one for every kind, or one per kind after a failure */
	struct capture_bpf *skel[4];
	int nr_skel;
	int events_fd, state_fd, calls_fd, tasks_fd;	/* shared by the copies */
	int btf_fd;			/* the vmlinux BTF while loading */
	struct ring_buffer *rb;
	bool mounted_tracefs;		/* the syscall path needed it: said */
	bool warned;
	bool refused;			/* the kernel refuses trampolines */
	/*
	 * With measure_cost and a kind on the syscall path: ns of one
	 * getppid() before and after its tracepoints were enabled (else 0).
	 */
	double syscall_ns_before, syscall_ns_after;
};

/*
 * Load and attach the kinds of @o by its path.  A kind that fails is left
 * out (its err set); an error is returned only when none is captured:
 * -EPERM when the kernel refuses the path asked for (trampolines, BPF).
 */
int capture_start(struct capture *c, const struct capture_opts *o,
		  ring_buffer_sample_fn fn, void *ctx);
/* What is captured, and how: "programs, maps (fentry); links, BTF (syscall)". */
void capture_describe(const struct capture *c, char *buf, size_t len);
const char *capture_path_name(enum capture_path path);
/* One line per kind of @asked that is not captured, with the reason. */
void capture_say_missing(const struct capture *c, unsigned int asked);
/* One line after a failed capture_start(): @prefix and the first kind's reason. */
void capture_say_failed(const struct capture *c, const char *prefix);
int capture_epoll_fd(const struct capture *c);
int capture_drain(struct capture *c);
__u64 capture_drops(const struct capture *c);
/* The loaded objects one by one, from 0, to tell the capture's own programs; NULL after. */
struct bpf_object *capture_object(const struct capture *c, int i);
void capture_stop(struct capture *c);

struct facts;
/* Mark the capture's own programs, maps, links and BTF in @f as PD_F_SELF. */
void capture_mark_self(const struct capture *c, struct facts *f);
/* The same for the loaded (and attached) skeleton @sk of any of the recorder's BPF programs. */
void skel_mark_self(const struct bpf_object_skeleton *sk, struct facts *f);

struct pd_bpf_event;
/*
 * The self-check: @e's object is still without captured facts a drain
 * after its record.  Counted when its kind is captured and the capture's
 * path sees such objects; the first one is said at once.
 */
void capture_missed(struct capture *c, const struct pd_bpf_event *e);
/*
 * Whether task @tid is in a bpf() call whose facts the syscall path has
 * not sent yet: they come at the call's exit.  False without such a call,
 * or without the map of calls (the fentry path alone, or no capture).
 */
bool capture_in_call(const struct capture *c, __u32 tid);
/* At the end: one line with the counts of capture_missed(), if any. */
void capture_report_missed(const struct capture *c);

#endif /* BPFREC_CAPTURE_H */
