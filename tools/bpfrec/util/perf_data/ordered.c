// SPDX-License-Identifier: GPL-2.0
/*
 * Records of a perf.data in time order, with memory bounded by a round.
 *
 * A recorder drains one ring buffer after another and ends each drain of
 * them all with FINISHED_ROUND (perf's ordered-events scheme).  When a
 * round ends, every record older than the newest one of the round before
 * has been read: anything from before the drain started was in some ring,
 * and the drain emptied them all.  Those records are delivered, sorted by
 * time (file order breaks ties); the others wait for the next round's end.
 * At the end of the file everything left is delivered.
 *
 * Records are copied out of the file while they wait and decoded again
 * when delivered, so the reader never needs more than the records of two
 * rounds in memory.  A record without a time sorts as time 0; one older
 * than what was already delivered comes next, and is counted as late.
 *
 * A file need not have rounds (a crafted one, or one whose records all
 * came in one drain), and compressed records make a small file expand:
 * what waits is bounded in bytes (PD_ORDERED_BUDGET), as perf bounds its
 * ordered events.  Past it, the older half of what waits is delivered
 * at once, and records older than those come late (counted).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/perf_data/format.h"

/* Bytes of records waiting at most, their bookkeeping included. */
#define PD_ORDERED_BUDGET	(64ULL << 20)
/* What a waiting record costs besides its bytes: its entry, malloc's. */
#define QUEUED_OVERHEAD		64

struct queued {
	__u64 time;
	__u64 seq;			/* file order */
	__u64 offset;
	struct perf_event_header *raw;	/* malloc'ed copy */
};

struct pd_ordered {
	struct pd_reader *r;
	struct queued *q;		/* [0, nr_ready) sorted and ready, then waiting */
	size_t nr, cap, nr_ready, next;
	__u64 seq;
	__u64 limit;			/* newest time of the rounds before this one */
	__u64 newest;			/* newest time read so far */
	__u64 delivered;		/* time of the last record delivered */
	bool eof;
	__u64 bytes;			/* of the records waiting */
	__u64 budget;
	struct perf_event_header *current;	/* bytes of the record handed out */
	struct pd_ordered_stats stats;
};

struct pd_ordered *pd_ordered_new(struct pd_reader *r)
{
	struct pd_ordered *o = calloc(1, sizeof(*o));

	if (o) {
		o->r = r;
		o->budget = PD_ORDERED_BUDGET;
	}
	return o;
}

void pd_ordered_set_budget(struct pd_ordered *o, __u64 bytes)
{
	o->budget = bytes;
}

static int queue(struct pd_ordered *o, const struct pd_record *rec)
{
	__u64 time = rec->has_sample ? rec->sample.time : 0;
	struct queued *e;

	if (array_room(&o->q, &o->cap, o->nr, sizeof(*o->q)))
		return -ENOMEM;
	e = &o->q[o->nr];
	e->raw = malloc(rec->size);
	if (!e->raw)
		return -ENOMEM;
	memcpy(e->raw, rec->raw, rec->size);
	e->time = time;
	e->seq = o->seq++;
	e->offset = rec->offset;
	o->nr++;
	o->bytes += rec->size + QUEUED_OVERHEAD;
	if (time > o->newest)
		o->newest = time;
	/* what was delivered before stays in q[] until the next flush, freed */
	if (o->nr - o->next > o->stats.max_queued)
		o->stats.max_queued = o->nr - o->next;
	return 0;
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Make the records up to @limit ready, in time order. */
static void flush(struct pd_ordered *o, __u64 limit)
{
	size_t n;

	/*
	 * What was delivered is gone: waiting records move to the front.
	 * A round may end before any record came (no queue yet).
	 */
	if (o->next) {
		memmove(o->q, o->q + o->next, (o->nr - o->next) * sizeof(*o->q));
		o->nr -= o->next;
		o->next = 0;
	}
	if (o->nr)
		qsort(o->q, o->nr, sizeof(*o->q), cmp_queued);
	for (n = 0; n < o->nr && o->q[n].time <= limit; n++)
		;
	o->nr_ready = n;
	o->stats.rounds++;
}

/*
 * Over budget: the older half of what waits is made ready now, and the
 * rounds' limit moves past it (what comes older is late).
 */
static void flush_half(struct pd_ordered *o)
{
	flush(o, 0);
	o->nr_ready = o->nr / 2 ? o->nr / 2 : o->nr;
	if (o->nr_ready && o->q[o->nr_ready - 1].time > o->limit)
		o->limit = o->q[o->nr_ready - 1].time;
	o->stats.forced++;
}

/* Read on until some records are ready or the file ends. */
static int fill(struct pd_ordered *o)
{
	struct pd_record rec;
	int ret;

	while (o->next == o->nr_ready) {
		if (o->eof) {
			if (o->next == o->nr)
				return 0;
			flush(o, ~0ULL);
			continue;
		}
		ret = pd_reader_next(o->r, &rec);
		if (ret < 0)
			return ret;
		if (!ret) {
			o->eof = true;
			continue;
		}
		if (rec.type == PD_RECORD_FINISHED_ROUND) {
			flush(o, o->limit);
			o->limit = o->newest;
			continue;
		}
		ret = queue(o, &rec);
		if (ret)
			return ret;
		if (o->bytes > o->budget)
			flush_half(o);
	}
	return 1;
}

int pd_ordered_next(struct pd_ordered *o, struct pd_record *rec)
{
	struct queued *e;
	int ret;

	free(o->current);
	o->current = NULL;
	ret = fill(o);
	if (ret <= 0)
		return ret;
	e = &o->q[o->next++];
	o->current = e->raw;
	o->bytes -= e->raw->size + QUEUED_OVERHEAD;
	if (e->time < o->delivered)
		o->stats.late++;
	else
		o->delivered = e->time;
	return pd_reader_decode(o->r, e->raw, e->offset, rec);
}

void pd_ordered_stats(const struct pd_ordered *o, struct pd_ordered_stats *st)
{
	*st = o->stats;
}

void pd_ordered_free(struct pd_ordered *o)
{
	size_t i;

	if (!o)
		return;
	for (i = o->next; i < o->nr; i++)
		free(o->q[i].raw);
	free(o->current);
	free(o->q);
	free(o);
}
