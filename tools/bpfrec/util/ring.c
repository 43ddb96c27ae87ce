// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a perf mmap ring buffer: the kernel writes at data_head, we
 * read from data_tail up to it and then move data_tail, which gives the
 * space back.  The acquire load of data_head pairs with the kernel's
 * write barrier, so the records before it are complete when read.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "util/ring.h"

int ring_drain(struct ring *r, ring_fn fn, void *ctx, void *scratch)
{
	struct perf_event_mmap_page *meta = r->base;
	char *data = (char *)r->base + getpagesize();
	__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = meta->data_tail;
	size_t mask = r->len - 1;
	int err = 0;

	while (tail < head) {
		struct perf_event_header *hdr = (void *)(data + (tail & mask));
		size_t off = tail & mask;
		size_t size = hdr->size;

		if (size < sizeof(*hdr)) {
			/* cannot happen unless the ring is corrupt: resync by dropping it */
			tail = head;
			err = -EIO;
			break;
		}
		if (off + size > r->len) {
			size_t first = r->len - off;

			memcpy(scratch, data + off, first);
			memcpy((char *)scratch + first, data, size - first);
			hdr = scratch;
		}
		if (hdr->type == PERF_RECORD_LOST && size >= sizeof(*hdr) + 2 * sizeof(__u64)) {
			__u64 lost;

			memcpy(&lost, (const char *)(hdr + 1) + sizeof(__u64), sizeof(lost));
			r->lost_seen += lost;
		}
		err = fn(ctx, r, hdr);
		tail += size;
		if (err)
			break;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}
