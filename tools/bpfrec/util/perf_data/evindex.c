// SPDX-License-Identifier: GPL-2.0
/*
 * The id index of a recording's events: every per-CPU instance of an
 * event has its own id (PERF_EVENT_IOC_ID), and a record names its
 * instance in its sample or sample_id trailer.  The writer and the reader
 * both find a record's event through it, to know its layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/perf_data/format.h"

int pd_evindex_add(struct pd_evindex *x, const struct perf_event_attr *attr,
		   const __u64 *ids, size_t nr_ids)
{
	const struct perf_event_attr **attrs;
	size_t i;
	__u64 *val;

	attrs = realloc(x->attrs, (x->nr + 1) * sizeof(*attrs));
	if (!attrs)
		return -ENOMEM;
	x->attrs = attrs;
	if (!x->nr)
		x->all_identifier = x->all_id_all = x->one_type = true;
	x->all_identifier &= !!(attr->sample_type & PERF_SAMPLE_IDENTIFIER);
	x->all_id_all &= attr->sample_id_all;
	x->one_type &= !x->nr || attr->sample_type == attrs[0]->sample_type;
	for (i = 0; i < nr_ids; i++) {
		val = hashmap_add(&x->ids, ids[i], NULL);
		if (!val)
			return -ENOMEM;
		*val = x->nr;
	}
	attrs[x->nr++] = attr;
	return 0;
}

int pd_evindex_of_id(const struct pd_evindex *x, __u64 id)
{
	__u64 *ev;

	if (x->nr == 1)
		return 0;
	ev = hashmap_find(&x->ids, id);
	return ev ? (int)*ev : -1;
}

/* The id of @rec, where every event's layout puts it at the same place. */
static bool record_id(const struct pd_evindex *x, const struct perf_event_header *rec,
		      __u64 *id)
{
	const struct perf_event_attr *a0 = x->attrs[0];
	struct pd_sample s;
	const char *why;

	if (rec->type == PERF_RECORD_SAMPLE) {
		if (x->all_identifier) {
			if (rec->size < sizeof(*rec) + sizeof(*id))
				return false;
			memcpy(id, rec + 1, sizeof(*id));
			return true;
		}
		if (!x->one_type || !(a0->sample_type & PERF_SAMPLE_ID) ||
		    pd_sample_decode(a0, rec + 1, rec->size - sizeof(*rec), &s, &why))
			return false;
		*id = s.id;
		return true;
	}
	if (x->all_identifier) {
		if (rec->size < sizeof(*rec) + sizeof(*id))
			return false;
		memcpy(id, (const char *)rec + rec->size - sizeof(*id), sizeof(*id));
		return true;
	}
	if (!x->one_type || !(a0->sample_type & PERF_SAMPLE_ID) ||
	    pd_sample_id_decode(a0, rec, &s))
		return false;
	*id = s.id;
	return true;
}

int pd_evindex_of_record(const struct pd_evindex *x, const struct perf_event_header *rec)
{
	__u64 id;

	if (x->nr <= 1)
		return x->nr ? 0 : -1;
	/* perf's own records, and the kernel's without a trailer, carry no id */
	if (rec->type != PERF_RECORD_SAMPLE &&
	    (rec->type >= PD_RECORD_USER_TYPE_START || !x->all_id_all))
		return 0;
	if (!record_id(x, rec, &id))
		return -1;
	return pd_evindex_of_id(x, id);
}

void pd_evindex_free(struct pd_evindex *x)
{
	free(x->attrs);
	hashmap_free(&x->ids);
	x->attrs = NULL;
	x->nr = 0;
}
