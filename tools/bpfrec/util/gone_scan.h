/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Releases of maps, links and BTF that no record reports: on a kernel
 * without the series' records, the capture sees objects come (bpf()
 * exit) but not go (the last reference may be dropped anywhere).  The
 * objects the recording has a record of are listed by id now and then,
 * and at the end; one found gone gets its release record, marked
 * PD_BPF_EVENT_FLAG_GONE, at the time of the listing, with the time it
 * was last seen in its tag: it went in between.
 */
#ifndef BPFREC_GONE_SCAN_H
#define BPFREC_GONE_SCAN_H

#include <linux/types.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

struct gone_scan {
	struct hashmap alive[PD_NR_KINDS];	/* id -> last seen (perf clock) */
	size_t nr_alive[PD_NR_KINDS];
	__u32 *ids;				/* a listing, sorted */
	size_t nr_ids, cap_ids;
	__u64 last;				/* when the last listing was */
	__u64 found;				/* release records written */
	bool denied;				/* no listing allowed: said once */
};

/* Object @id of @kind has a creation record at @time: to be watched. */
int gone_track(struct gone_scan *g, enum pd_kind kind, __u32 id, __u64 time);
/* Its release has a record: no need to look for it. */
void gone_forget(struct gone_scan *g, enum pd_kind kind, __u32 id);
/*
 * List the ids and write the release of every watched object that is
 * gone, as of now, in the name of event id @event_id.  Returns 0 or a
 * negative errno of the writer.
 */
int gone_scan(struct gone_scan *g, struct pd_writer *w, __u64 event_id);
void gone_free(struct gone_scan *g);

#endif /* BPFREC_GONE_SCAN_H */
