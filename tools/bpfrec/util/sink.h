/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the record path delivers: perf records to the writer, captured
 * facts to the facts table, merged per object.
 */
#ifndef BPFREC_SINK_H
#define BPFREC_SINK_H

#include <stddef.h>
#include <linux/perf_event.h>
#include "util/perf_data/perf_data.h"
#include "util/gone_scan.h"
#include "util/hashmap.h"
#include "util/prog_insns.h"
#include "util/ring.h"
#include "util/thread_names.h"

struct facts;
struct capture;
struct linger;

/*
 * A BPF_EVENT record as it came (with its sample_id and any description
 * a later kernel may make longer), and its body.
 */
struct sink_held {
	struct pd_bpf_event e;
	__u32 tid;		/* the task that emitted it, 0 if unknown */
	/* the task was seen out of its bpf() call: the next drain decides */
	bool call_over;
	__u64 raw[64];
};

/* A loader of record --cgroup or --exe, written to the file once a kept record names it. */
struct sink_loader {
	struct pd_loader d;
	bool written;
};

/* A legacy attachment (BPF_PROG_ATTACH) not detached yet, and its id. */
struct sink_legacy {
	__u64 cgroup_id;
	__u32 attach_type;
	__u32 prog_id;
	__u32 id;
};

struct sink {
	struct pd_writer *w;
	struct facts *facts;
	struct capture *cap;	/* NULL without in-kernel capture */
	struct linger *linger;	/* the workload's objects; NULL without one */
	__u64 records;
	__u64 lost_records;	/* sum of PERF_RECORD_LOST */
	__u64 repaired;		/* oversized records written at their true size */
	/*
	 * Records of objects whose facts had not come yet, held until they
	 * come: the first nr_older since an earlier drain, then this drain's;
	 * of the older ones, nr_late were held past a drain already, because
	 * the syscall path sends their facts when their task leaves bpf().
	 */
	struct sink_held *pending;
	size_t nr_pending, cap_pending, nr_older, nr_late;
	/* maps whose MAP_CREATE named a creator no capture matched yet: id -> tid */
	struct hashmap creators;
	/*
	 * Captured programs to complete by syscall after this drain's
	 * records, and the programs those records unloaded.
	 */
	__u32 *ask, *gone;
	size_t nr_ask, cap_ask, nr_gone, cap_gone;
	struct task_names names;
	/*
	 * On kernels without the series' map, link and BTF records, the
	 * sink writes them from the capture (marked captured), in the name
	 * of event id event_id, and the releases the scan finds.
	 */
	bool write_records;
	__u64 event_id;
	struct gone_scan scan;
	/* the loader said last of each tid: tid -> index (pd_loader.index) */
	struct hashmap loaders;
	__u32 nr_loaders;
	struct prog_insns insns;
	/*
	 * record --cgroup, --exe: the tenant whose objects alone are written
	 * (NULL: everyone's), the loaders kept until one of its records
	 * names them (by index - 1), and the verdict on the JIT images of
	 * programs by address, for their KSYMBOL records.
	 */
	struct tenant *tenant;
	struct sink_loader *loader_defs;
	size_t cap_loader_defs;
	struct hashmap ksym_verdicts;
	/* the legacy attachments alive, to give a detach its attach's id */
	struct sink_legacy *legacy;
	size_t nr_legacy, cap_legacy;
	__u32 legacy_ids;	/* legacy attachments seen: PD_LEGACY_ID_BASE + n */
	/* record --perf-metadata: perf's BPF_METADATA records beside the facts */
	bool perf_meta;
	/*
	 * record --keep-insns: each program's instructions in the file, up
	 * to insns_budget bytes in all; those kept, and those not (over the
	 * budget, or never captured whole)
	 */
	bool keep_insns;
	__u64 insns_budget;
	__u64 insns_kept, insns_bytes, insns_over;
};

/* A record of @ring, decoded as its event lays it out (a ring_fn). */
int sink_record(void *ctx, const struct ring *ring, const struct perf_event_header *hdr);
int sink_capture(void *ctx, void *data, size_t size);
/*
 * A program the capture did not see load (it existed before): the hash
 * of its instructions by id, and with --keep-insns the instructions.
 */
int sink_prog_xlated(struct sink *k, struct pd_prog *p);
/* Once a drain's records are in: the syscalls for what the capture lacked. */
int sink_ask(struct sink *k);
/*
 * Whether a record is held past the drain that followed it.  It goes to
 * the file after records of later times, so no round may be finished
 * until it is written: a reader (perf) sorts each round's records by
 * time only up to the end of the round before.
 */
bool sink_holds_late(const struct sink *k);
/* After the last drain: the held records, resolved by id if need be. */
int sink_finish(struct sink *k);
/* Look for the watched objects gone (util/gone_scan.h): now and then, and at the end. */
int sink_scan(struct sink *k);
void sink_free(struct sink *k);

#endif /* BPFREC_SINK_H */
