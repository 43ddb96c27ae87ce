// SPDX-License-Identifier: GPL-2.0
/*
 * The order of a recording.  The capture is attached before the events
 * are enabled (loading it takes most of the start-up), so an object can
 * be created in between: it has captured facts and no record.  Synthesis
 * therefore asks "was a record seen?", not "are there facts?", and the
 * rings are drained before it looks: an object then appears at least
 * once, twice at worst (created between that drain and the listing).
 */
#define _GNU_SOURCE	/* gettid */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/capture.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/mono_clock.h"
#include "util/recording.h"
#include "util/sink.h"
#include "util/synthesize.h"

/* How often the objects are listed to find those gone (util/gone_scan.h). */
#define SCAN_INTERVAL_NS	1000000000ULL

int recording_drain(struct recording *rec)
{
	struct sink *k = rec->sink;
	struct pd_writer_stats st;
	__u64 before;
	int err;

	/* every record counts, the sink's and those of the events that write their own */
	pd_writer_stats(k->w, &st);
	before = st.records;

	/* facts first: a record then finds its object's facts already merged */
	if (rec->cap)
		capture_drain(rec->cap);
	err = evlist_drain(rec->evlist, sink_record, k, rec->scratch);
	if (!err)
		err = sink_ask(k);
	/* releases no record reports, looked for once a second */
	if (!err && k->write_records && mono_ns() - k->scan.last >= SCAN_INTERVAL_NS)
		err = sink_scan(k);
	/* name the tasks of these records while they still exist */
	if (!err)
		err = names_flush(&k->names, k->w);
	/* a round (and its flush) only when there was something, and nothing is held late */
	pd_writer_stats(k->w, &st);
	if (err || sink_holds_late(k)) {
		rec->round_behind |= st.records != before;
	} else if (st.records != before) {
		err = pd_write_finished_round(k->w);
		rec->round_behind = rec->live;
	} else if (rec->round_behind) {
		/*
		 * A reader of a stream (perf) sorts out a round's records only
		 * at the end of the next round, which may come much later: an
		 * empty round lets it show them now.
		 */
		err = pd_write_finished_round(k->w);
		rec->round_behind = false;
	}
	return err;
}

int recording_lost(struct recording *rec, __u64 time)
{
	struct evlist *el = rec->evlist;
	struct sink *k = rec->sink;
	struct ring *r;
	__u64 lost, before = k->lost_records;
	int e, i, err = 0;

	for (e = 0; !err && e < el->nr_ev; e++) {
		for (i = 0; !err && i < el->ev[e]->nr; i++) {
			r = &el->ev[e]->rings[i];
			lost = evlist_lost(el->ev[e], i);
			/* an inherited instance's children told of theirs: more seen than counted */
			if (lost <= r->lost_seen)
				continue;
			lost -= r->lost_seen;
			/* as the kernel writes it, in the name of the ring's event, by the recorder */
			err = pd_write_lost(k->w, r->id, lost, &(struct pd_sample){
				.pid = getpid(), .tid = gettid(), .time = time, .cpu = r->cpu,
				.id = r->id });
			r->lost_seen += lost;
			k->lost_records += lost;
		}
	}
	if (!err && k->lost_records != before && !sink_holds_late(k))
		err = pd_write_finished_round(k->w);
	return err;
}

int recording_start(struct recording *rec, __u64 time, bool obj_events)
{
	struct synth_ctx s = {
		.w = rec->sink->w,
		.facts = rec->sink->facts,
		.obj_events = obj_events,
		.sink = rec->sink,
	};
	int err;

	/*
	 * Without the series' records, maps, links and BTF get theirs from
	 * the capture, and those that exist now synthesised ones, watched
	 * until they go.
	 */
	/* legacy attachments get records from the capture on every kernel */
	if (rec->cap)
		rec->sink->event_id = rec->evlist->ev[0]->ids[0];
	if (rec->cap && !obj_events) {
		rec->sink->write_records = true;
		rec->sink->scan.last = time;
		s.obj_events = true;
		s.scan = &rec->sink->scan;
	}
	err = evlist_enable(rec->evlist, true);
	if (err)
		return errmsg_set(err, "enabling events: %s", strerror(-err));
	err = recording_drain(rec);
	if (err)
		return errmsg_set(err, "writing the first records: %s", strerror(-err));
	s.sample.time = time;
	/* in the name of the side-band event, the first of the list */
	s.sample.id = rec->evlist->ev[0]->ids[0];
	/* who created what exists now is not known: no tenant's (record --cgroup, --exe) */
	if (rec->sink->tenant)
		return 0;
	err = synth_existing(&s);
	/* listing ids needs CAP_SYS_ADMIN; recording needs only CAP_PERFMON and CAP_BPF */
	if (err == -EPERM) {
		pr_warning("without CAP_SYS_ADMIN, the BPF objects that existed before the recording are not listed\n");
		return 0;
	}
	if (err)
		errmsg_set(err, "listing existing BPF objects: %s", strerror(-err));
	return err;
}
