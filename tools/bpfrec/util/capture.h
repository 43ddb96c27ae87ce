/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel capture (bpf_skel/capture.bpf.c): loaded and attached by
 * the recorder, it sends each object's facts through a BPF ring buffer.
 */
#ifndef BPFREC_CAPTURE_H
#define BPFREC_CAPTURE_H

#include <stddef.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

struct capture {
	struct capture_bpf *skel;
	struct ring_buffer *rb;
};

int capture_start(struct capture *c, size_t buf_bytes, ring_buffer_sample_fn fn, void *ctx);
int capture_epoll_fd(const struct capture *c);
int capture_drain(struct capture *c);
__u64 capture_drops(const struct capture *c);
/* The loaded object, to tell the capture's own programs. */
struct bpf_object *capture_object(const struct capture *c);
void capture_stop(struct capture *c);

struct facts;
/* Mark the capture's own programs, maps, links and BTF in @f as PD_F_SELF. */
void capture_mark_self(const struct capture *c, struct facts *f);

#endif /* BPFREC_CAPTURE_H */
