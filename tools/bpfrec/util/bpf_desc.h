/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts of a map, link or BTF object and the description its
 * BPF_EVENT record carries (kernels with series v2), one from the other:
 * the recorder takes the facts of a described object from its record,
 * and describes in the records it writes the objects that existed before
 * the recording, so that every record of a file looks alike.
 */
#ifndef BPFREC_BPF_DESC_H
#define BPFREC_BPF_DESC_H

#include "util/bpf_obj.h"
#include "util/perf_data/perf_data.h"

/* Set what described record @e says of its object, and PD_F_DESCRIBED. */
void map_from_desc(struct pd_map *m, const struct pd_bpf_event *e);
void link_from_desc(struct pd_link *l, const struct pd_bpf_event *e);
void btf_from_desc(struct pd_btf *b, const struct pd_bpf_event *e);

/*
 * What a link of @link_type is attached to, in words ("cgroup 4221",
 * "ifindex 3"), from a record's target or BPF_OBJ_GET_INFO_BY_FD's; false,
 * and "", when @t names nothing (another link type, or a target gone).
 */
bool link_target_name(__u32 link_type, const union perf_bpf_event_link_target *t,
		      char *buf, size_t len);

/* The record of @type announcing the object, with its description. */
void map_to_desc(const struct pd_map *m, __u16 type, struct pd_bpf_event *e);
void link_to_desc(const struct pd_link *l, __u16 type, struct pd_bpf_event *e);
void btf_to_desc(const struct pd_btf *b, __u16 type, struct pd_bpf_event *e);

#endif /* BPFREC_BPF_DESC_H */
