// SPDX-License-Identifier: GPL-2.0
/*
 * Oversized side-band records of stock kernels (6.1 up to at least
 * 6.18.44; the series' first patch fixes it).  perf_event_ksymbol_output()
 * and perf_event_bpf_output() add each listener's sample_id size to the
 * one record header they share and never restore it: with several
 * listeners on a CPU, a listener's header.size counts other listeners'
 * trailers too.  The body and the listener's own sample_id are written
 * first, the sample_id right after the body; the bytes up to header.size
 * are stale.  Read from the record's end, where the format puts it, the
 * sample_id is garbage (time, pid, cpu, the event's id).
 *
 * The true size follows from the body, fixed but for the KSYMBOL name
 * (NUL-terminated, padded to 8 bytes, as the kernel and perf write it),
 * and from the event's sample_id size.  Only program records are
 * repaired: a stock kernel writes no others, and the kernels of the
 * series, which do, have the fix, and describe their objects after the
 * fixed body, in a description whose size only the header tells.
 */
#include <string.h>
#include "util/perf_data/oversized.h"
#include "util/perf_data/perf_data.h"

#define BODY		16	/* both records: 16 fixed bytes after the header */

static bool prog_record(const struct perf_event_header *rec)
{
	__u16 type;

	memcpy(&type, rec + 1, sizeof(type));
	return type == PERF_BPF_EVENT_PROG_LOAD || type == PERF_BPF_EVENT_PROG_UNLOAD;
}

size_t pd_true_size(const struct perf_event_attr *attr, const struct perf_event_header *rec)
{
	size_t trailer = attr->sample_id_all ? pd_sample_id_size(attr) : 0;
	size_t fixed = sizeof(*rec) + BODY, name;

	if (rec->size < fixed + trailer)
		return rec->size;
	switch (rec->type) {
	case PERF_RECORD_BPF_EVENT:
		if (!prog_record(rec))
			return rec->size;
		return fixed + trailer;
	case PERF_RECORD_KSYMBOL:
		name = strnlen((const char *)rec + fixed, rec->size - fixed);
		/* no NUL before the end: not a record this repair understands */
		if (name == rec->size - fixed)
			return rec->size;
		name = (name + 1 + 7) & ~(size_t)7;
		return fixed + name + trailer <= rec->size ? fixed + name + trailer : rec->size;
	}
	return rec->size;
}

bool pd_repair(const struct perf_event_attr *attr, const struct perf_event_header *rec,
	       void *buf)
{
	size_t size = pd_true_size(attr, rec);
	struct perf_event_header *h = buf;

	if (size >= rec->size || size > PD_REPAIR_MAX)
		return false;
	memcpy(buf, rec, size);
	h->size = size;
	return true;
}
