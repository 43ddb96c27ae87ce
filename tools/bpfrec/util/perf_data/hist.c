// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time histograms of `bpfrec stat -b --hist -o FILE`: a record per
 * target in the data of a stat file, read back by `bpfrec report`.
 *
 * perf has no record for a histogram, and perf 6.1 fails on a record type
 * it does not know: the record takes perf's deprecated HEADER_EVENT_TYPE
 * (65), which every perf tool skips, as the facts do, told apart from
 * them by its magic.  Its body, all fields host endian:
 *
 *   u32 magic ("BPFH"), u32 nr, u32 id, u32 zero, u64 max_ns,
 *   char name[PD_HIST_NAME_LEN] (NUL-terminated),
 *   nr times { u32 bucket, u32 zero, u64 runs }
 *
 * the buckets with runs only, in increasing order, each below
 * PD_HIST_BUCKETS.  A reader trusts none of it: every field is checked.
 */
#include <errno.h>
#include <string.h>
#include "util/perf_data/format.h"

#define PD_HIST_MAGIC		0x48465042	/* "BPFH" */

struct pd_disk_hist {
	struct perf_event_header header;	/* type PD_RECORD_FACTS */
	__u32 magic;
	__u32 nr;
	__u32 id;
	__u32 zero;
	__u64 max_ns;
	char name[PD_HIST_NAME_LEN];
};

struct pd_disk_bucket {
	__u32 bucket;
	__u32 zero;
	__u64 runs;
};

_Static_assert(sizeof(struct pd_disk_hist) == 160, "histogram record layout");
_Static_assert(sizeof(struct pd_disk_hist) + PD_HIST_BUCKETS * sizeof(struct pd_disk_bucket) <
	       65536, "a histogram fits one record");

int pd_write_hist(struct pd_writer *w, const struct pd_hist *h)
{
	struct pd_disk_hist d = { .header = { .type = PD_RECORD_FACTS },
				  .magic = PD_HIST_MAGIC, .id = h->id, .max_ns = h->max_ns };
	struct pd_buf b = { 0 };
	__u32 i;
	int err;

	for (i = 0; i < PD_HIST_BUCKETS; i++)
		d.nr += !!h->buckets[i];
	d.header.size = sizeof(d) + d.nr * sizeof(struct pd_disk_bucket);
	/* cut to fit, always NUL-terminated */
	memcpy(d.name, h->name, strnlen(h->name, sizeof(d.name) - 1));
	pd_buf_put(&b, &d, sizeof(d));
	for (i = 0; i < PD_HIST_BUCKETS; i++) {
		struct pd_disk_bucket e = { .bucket = i, .runs = h->buckets[i] };

		if (e.runs)
			pd_buf_put(&b, &e, sizeof(e));
	}
	err = b.err ? b.err : pd_write_raw(w, (const struct perf_event_header *)b.p);
	pd_buf_free(&b);
	return err;
}

int pd_hist_decode(const struct perf_event_header *rec, struct pd_hist *h, const char **why)
{
	struct pd_disk_hist d;
	struct pd_disk_bucket e;
	const __u8 *p = (const __u8 *)rec;
	__u64 runs = 0;
	__u32 i;
	int last = -1;

	*why = NULL;
	if (rec->type != PD_RECORD_FACTS || rec->size < sizeof(rec->type) * 2 + sizeof(d.magic))
		return 0;
	memcpy(&d.magic, p + offsetof(struct pd_disk_hist, magic), sizeof(d.magic));
	if (d.magic != PD_HIST_MAGIC)
		return 0;
	*why = "histogram record shorter than its fixed part";
	if (rec->size < sizeof(d))
		return -EINVAL;
	memcpy(&d, p, sizeof(d));
	*why = "histogram record's size is not that of its buckets";
	if (d.nr > PD_HIST_BUCKETS || rec->size != sizeof(d) + d.nr * sizeof(e))
		return -EINVAL;
	*why = "histogram record's name is not terminated";
	if (!memchr(d.name, 0, sizeof(d.name)))
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->id = d.id;
	h->max_ns = d.max_ns;
	memcpy(h->name, d.name, sizeof(h->name));
	for (i = 0; i < d.nr; i++) {
		memcpy(&e, p + sizeof(d) + i * sizeof(e), sizeof(e));
		*why = "histogram bucket out of range or out of order";
		if (e.bucket >= PD_HIST_BUCKETS || (int)e.bucket <= last || !e.runs)
			return -EINVAL;
		*why = "histogram's runs overflow";
		if (runs + e.runs < runs)
			return -EINVAL;
		runs += e.runs;
		last = e.bucket;
		h->buckets[e.bucket] = e.runs;
	}
	*why = NULL;
	return 1;
}
