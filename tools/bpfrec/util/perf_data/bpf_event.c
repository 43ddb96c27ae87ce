// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_BPF_EVENT: its types, what each says about its object, and
 * the description object records of series v2 carry after the tag.  The
 * description's size is what the record has between the tag and its
 * sample_id: a later kernel may append fields, which are skipped, and a
 * record may have none (an older kernel, a program record).
 */
#include <stddef.h>
#include <string.h>
#include "util/perf_data/perf_data.h"

const char *pd_bpf_event_name(__u16 type)
{
	static const char *const names[] = {
		[PERF_BPF_EVENT_PROG_LOAD]	= "PROG_LOAD",
		[PERF_BPF_EVENT_PROG_UNLOAD]	= "PROG_UNLOAD",
		[PERF_BPF_EVENT_MAP_CREATE]	= "MAP_CREATE",
		[PERF_BPF_EVENT_MAP_FREE]	= "MAP_FREE",
		[PERF_BPF_EVENT_LINK_ATTACH]	= "LINK_ATTACH",
		[PERF_BPF_EVENT_LINK_RELEASE]	= "LINK_RELEASE",
		[PERF_BPF_EVENT_BTF_LOAD]	= "BTF_LOAD",
		[PERF_BPF_EVENT_BTF_UNLOAD]	= "BTF_UNLOAD",
		[PERF_BPF_EVENT_LINK_DETACH]	= "LINK_DETACH",
		[PERF_BPF_EVENT_LINK_UPDATE]	= "LINK_UPDATE",
	};

	if (type >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[type];
}

bool pd_bpf_event_kind(__u16 type, enum pd_kind *kind, enum pd_bpf_change *change)
{
	if (type == PERF_BPF_EVENT_UNKNOWN || type > PD_BPF_EVENT_LAST)
		return false;
	if (type > PERF_BPF_EVENT_BTF_UNLOAD) {
		*kind = PD_LINK;
		*change = PD_BPF_CHANGE;
		return true;
	}
	/* 1..8: a creation then its release, kind by kind */
	*kind = (type - 1) / 2;
	*change = type % 2 ? PD_BPF_CREATE : PD_BPF_RELEASE;
	return true;
}

size_t pd_bpf_desc_size(__u16 type)
{
	enum pd_bpf_change change;
	enum pd_kind kind;

	if (!pd_bpf_event_kind(type, &kind, &change))
		return 0;
	switch (kind) {
	case PD_MAP:
		return sizeof(struct perf_bpf_event_map);
	case PD_LINK:
		return sizeof(struct perf_bpf_event_link);
	case PD_BTF:
		return sizeof(struct perf_bpf_event_btf);
	default:
		return 0;
	}
}

bool pd_bpf_event_decode(const void *body, size_t len, struct pd_bpf_event *e)
{
	enum pd_bpf_change change;
	const __u8 *b = body;
	enum pd_kind kind;
	size_t want;

	memset(e, 0, sizeof(*e));
	if (len < PD_BPF_EVENT_FIXED)
		return false;
	memcpy(&e->type, b, 2);
	memcpy(&e->flags, b + 2, 2);
	e->marks = e->flags & PD_BPF_EVENT_FLAGS_BPFREC;
	e->flags &= ~PD_BPF_EVENT_FLAGS_BPFREC;
	memcpy(&e->id, b + 4, 4);
	memcpy(e->tag, b + 8, BPF_TAG_SIZE);
	len -= PD_BPF_EVENT_FIXED;
	/* a record is at most 64 KiB: its description too */
	e->desc_len = len;
	want = pd_bpf_desc_size(e->type);
	/* a link's description before the target is whole without it */
	if (pd_bpf_event_kind(e->type, &kind, &change) && kind == PD_LINK && len < want)
		want = offsetof(struct perf_bpf_event_link, target);
	if (!want || len < want)
		return true;
	memcpy(&e->desc, b + PD_BPF_EVENT_FIXED, want);
	e->described = true;
	switch (e->type) {
	case PERF_BPF_EVENT_MAP_CREATE:
	case PERF_BPF_EVENT_MAP_FREE:
		e->desc.map.name[sizeof(e->desc.map.name) - 1] = '\0';
		break;
	case PERF_BPF_EVENT_BTF_LOAD:
	case PERF_BPF_EVENT_BTF_UNLOAD:
		e->desc.btf.name[sizeof(e->desc.btf.name) - 1] = '\0';
		break;
	}
	return true;
}

bool pd_bpf_link_has_target(const struct pd_bpf_event *e)
{
	return e->described && e->desc_len >= sizeof(struct perf_bpf_event_link);
}

const char *pd_bpf_btf_name(const struct pd_bpf_event *e)
{
	if (!e->described)
		return "";
	if ((e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL) &&
	    !(e->flags & PERF_BPF_EVENT_FLAG_BTF_MODULE))
		return "vmlinux";
	return e->desc.btf.name;
}
