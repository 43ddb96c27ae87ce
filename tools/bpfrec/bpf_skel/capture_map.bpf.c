// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of maps: the facts about a map in the context of the task
 * creating it, once the kernel assigned its id.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

static __always_inline void emit_map(struct bpf_map *map)
{
	struct cap_map *e;

	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));

	fill_hdr(&e->hdr, CAP_MAP_CREATE, BPF_CORE_READ(map, id));
	e->type = BPF_CORE_READ(map, map_type);
	e->key_size = BPF_CORE_READ(map, key_size);
	e->value_size = BPF_CORE_READ(map, value_size);
	e->max_entries = BPF_CORE_READ(map, max_entries);
	e->flags = BPF_CORE_READ(map, map_flags);
	e->btf_key_type_id = BPF_CORE_READ(map, btf_key_type_id);
	e->btf_value_type_id = BPF_CORE_READ(map, btf_value_type_id);
	if (bpf_core_field_exists(map->btf))
		e->btf_id = BPF_CORE_READ(map, btf, id);
	BPF_CORE_READ_STR_INTO(&e->name, map, name);

	submit(e);
}

/*
 * With trampolines: map_create() installs the first fd right after
 * assigning the id.  Later calls (get-fd-by-id, pinned-object get, the
 * recorder's own lookups) repeat a known id: user space keeps the first.
 */
SEC("fentry/bpf_map_new_fd")
int BPF_PROG(map_fentry, struct bpf_map *map, int flags)
{
	emit_map(map);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int map_enter(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(ctx, 1ULL << BPF_MAP_CREATE);
}

/* This call's map has the type and key size asked for (attr words 0, 1). */
SEC("tracepoint/syscalls/sys_exit_bpf")
int map_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct bpf_map *map;
	struct cap_call call;

	if (!call_exit(ctx, &call, 1ULL << BPF_MAP_CREATE))
		return 0;
	map = fd_object(ctx->ret, "bpf-map", 7);
	if (map && BPF_CORE_READ(map, map_type) == call.attr[0] &&
	    BPF_CORE_READ(map, key_size) == call.attr[1])
		emit_map(map);
	call_end();
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
