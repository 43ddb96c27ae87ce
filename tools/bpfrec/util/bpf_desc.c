// SPDX-License-Identifier: GPL-2.0
/*
 * Facts from descriptions and descriptions from facts.  A description
 * names vmlinux's BTF "" (a module's BTF by its module), where
 * BPF_OBJ_GET_INFO_BY_FD says "vmlinux": the facts say it as the syscall
 * does, whichever source they came from.
 */
#include <stdio.h>
#include <string.h>
#include "util/bpf_desc.h"

void map_from_desc(struct pd_map *m, const struct pd_bpf_event *e)
{
	const struct perf_bpf_event_map *d = &e->desc.map;

	m->flags |= PD_F_DESCRIBED;
	m->type = d->map_type;
	m->key_size = d->key_size;
	m->value_size = d->value_size;
	m->max_entries = d->max_entries;
	m->map_flags = d->map_flags;
	m->btf_id = d->btf_id;
	memcpy(m->name, d->name, sizeof(m->name));
}

void link_from_desc(struct pd_link *l, const struct pd_bpf_event *e)
{
	l->flags |= PD_F_DESCRIBED;
	l->type = e->flags;
	l->prog_id = e->desc.link.prog_id;
	l->attach_type = e->desc.link.attach_type;
	if (pd_bpf_link_has_target(e))
		link_target_name(l->type, &e->desc.link.target, l->target, sizeof(l->target));
}

/*
 * Link types newer than the uapi headers bpfrec builds against (Debian 12's,
 * Linux 6.1), by their uapi numbers; and BPF_F_NETFILTER_IP_DEFRAG.
 */
enum {
	LINK_TYPE_NETFILTER	= 10,
	LINK_TYPE_TCX		= 11,
	LINK_TYPE_NETKIT	= 13,
	LINK_TYPE_SOCKMAP	= 14,
};
#define NETFILTER_IP_DEFRAG	(1U << 0)

bool link_target_name(__u32 link_type, const union perf_bpf_event_link_target *t,
		      char *buf, size_t len)
{
	buf[0] = 0;
	switch (link_type) {
	case BPF_LINK_TYPE_CGROUP:
		if (t->cgroup_id)
			snprintf(buf, len, "cgroup %llu", (unsigned long long)t->cgroup_id);
		break;
	case BPF_LINK_TYPE_NETNS:
		if (t->netns_ino)
			snprintf(buf, len, "netns %u", t->netns_ino);
		break;
	case BPF_LINK_TYPE_XDP:
	case LINK_TYPE_TCX:
	case LINK_TYPE_NETKIT:
		if (t->ifindex)
			snprintf(buf, len, "ifindex %u", t->ifindex);
		break;
	case BPF_LINK_TYPE_TRACING:
		if (t->tracing.btf_id)
			snprintf(buf, len, "btf_id %u obj %u", t->tracing.btf_id, t->tracing.obj_id);
		break;
	case BPF_LINK_TYPE_STRUCT_OPS:
	case LINK_TYPE_SOCKMAP:
		if (t->map_id)
			snprintf(buf, len, "map %u", t->map_id);
		break;
	case LINK_TYPE_NETFILTER:
		/* pf 0 is NFPROTO_UNSPEC, which a netfilter link cannot have */
		if (t->netfilter.pf)
			snprintf(buf, len, "netfilter pf %u hook %u priority %d%s",
				 t->netfilter.pf, t->netfilter.hooknum, t->netfilter.priority,
				 t->netfilter.flags & NETFILTER_IP_DEFRAG ? " defrag" : "");
		break;
	}
	return buf[0];
}

void btf_from_desc(struct pd_btf *b, const struct pd_bpf_event *e)
{
	b->flags |= PD_F_DESCRIBED;
	b->kernel = e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL;
	b->size = e->desc.btf.size;
	snprintf(b->name, sizeof(b->name), "%s", pd_bpf_btf_name(e));
}

static void desc_start(struct pd_bpf_event *e, __u16 type, __u16 flags, __u32 id)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->flags = flags;
	e->id = id;
	e->desc_len = pd_bpf_desc_size(type);
	e->described = true;
}

void map_to_desc(const struct pd_map *m, __u16 type, struct pd_bpf_event *e)
{
	struct perf_bpf_event_map *d = &e->desc.map;

	desc_start(e, type, m->type, m->id);
	d->map_type = m->type;
	d->key_size = m->key_size;
	d->value_size = m->value_size;
	d->max_entries = m->max_entries;
	d->map_flags = m->map_flags;
	d->btf_id = m->btf_id;
	memcpy(d->name, m->name, sizeof(d->name));
	d->name[sizeof(d->name) - 1] = '\0';
}

void link_to_desc(const struct pd_link *l, __u16 type, struct pd_bpf_event *e)
{
	desc_start(e, type, l->type, l->id);
	e->desc.link.prog_id = l->prog_id;
	e->desc.link.attach_type = l->attach_type;
}

void btf_to_desc(const struct pd_btf *b, __u16 type, struct pd_bpf_event *e)
{
	bool module = b->kernel && b->name[0] && strcmp(b->name, "vmlinux");
	__u16 flags = 0;

	if (b->kernel)
		flags |= PERF_BPF_EVENT_FLAG_BTF_KERNEL;
	if (module)
		flags |= PERF_BPF_EVENT_FLAG_BTF_MODULE;
	desc_start(e, type, flags, b->id);
	e->desc.btf.size = b->size;
	if (module)
		memcpy(e->desc.btf.name, b->name, sizeof(e->desc.btf.name));
	e->desc.btf.name[sizeof(e->desc.btf.name) - 1] = '\0';
}
