// SPDX-License-Identifier: GPL-2.0
/*
 * Capture the facts about a BPF object in the context of the task creating
 * it, right after the kernel assigned its id.  Resolving by id from user
 * space afterwards loses every object that is gone before the recorder gets
 * to it (perf resolves 0.55 % of a storm of short-lived programs); here the
 * object cannot go away under us.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"

/* perf_event_bpf_event() is also called on unload: only loads matter here. */
#define PERF_BPF_EVENT_PROG_LOAD 1

/* Our own id lookups open maps and links by id: don't report those. */
const volatile __u32 self_tgid;

/* Records the ring buffer had no room for: reported as lost. */
__u64 drops;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* resized by user space */
} events SEC(".maps");

static void *reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&events, size, 0);

	if (!e)
		__sync_fetch_and_add(&drops, 1);
	return e;
}

static __always_inline void fill_hdr(struct cap_hdr *h, __u32 kind, __u32 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	h->kind = kind;
	h->id = id;
	h->time = bpf_ktime_get_ns();
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->uid = (__u32)bpf_get_current_uid_gid();
	h->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

static __always_inline bool from_self(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == self_tgid;
}

/*
 * The name of BTF type @type_id of a program's (user, unsplit) BTF, the
 * way btf_type_by_id() and btf_name_by_offset() find it.
 */
static int btf_type_name(struct btf *btf, __u32 type_id, char *dst, __u32 len)
{
	__u32 start_id = BPF_CORE_READ(btf, start_id);
	__u32 start_str = BPF_CORE_READ(btf, start_str_off);
	struct btf_type **types = BPF_CORE_READ(btf, types);
	const char *strings = BPF_CORE_READ(btf, strings);
	struct btf_type *t;
	__u32 name_off;

	if (type_id < start_id || type_id - start_id >= BPF_CORE_READ(btf, nr_types))
		return -1;
	if (bpf_probe_read_kernel(&t, sizeof(t), &types[type_id - start_id]))
		return -1;
	name_off = BPF_CORE_READ(t, name_off);
	if (name_off < start_str)
		return -1;
	return bpf_probe_read_kernel_str(dst, len, strings + name_off - start_str) > 0 ? 0 : -1;
}

static __always_inline void prog_func_names(struct cap_prog *e, struct bpf_prog_aux *aux)
{
	struct bpf_func_info *fi = BPF_CORE_READ(aux, func_info);
	struct btf *btf = BPF_CORE_READ(aux, btf);
	__u32 i, type_id;

	if (!fi || !btf)
		return;
	for (i = 0; i < CAP_MAX_FUNCS && i < e->nr_func_info; i++) {
		if (bpf_probe_read_kernel(&type_id, sizeof(type_id), &fi[i].type_id))
			break;
		if (btf_type_name(btf, type_id, e->func_names[i], CAP_FUNC_NAME_LEN))
			break;
		e->nr_func_names = i + 1;
	}
}

static __always_inline void prog_map_ids(struct cap_prog *e, struct bpf_prog_aux *aux)
{
	struct bpf_map **maps = BPF_CORE_READ(aux, used_maps);
	struct bpf_map *map;
	__u32 i;

	for (i = 0; i < CAP_MAX_MAP_IDS && i < e->nr_map_ids; i++) {
		if (bpf_probe_read_kernel(&map, sizeof(map), &maps[i]))
			break;
		e->map_ids[i] = BPF_CORE_READ(map, id);
	}
}

SEC("fentry/perf_event_bpf_event")
int BPF_PROG(prog_load, struct bpf_prog *prog, int type, __u16 flags)
{
	struct bpf_prog_aux *aux;
	struct cap_prog *e;
	__u32 func_cnt;

	if (type != PERF_BPF_EVENT_PROG_LOAD)
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));

	aux = BPF_CORE_READ(prog, aux);
	fill_hdr(&e->hdr, CAP_PROG_LOAD, BPF_CORE_READ(aux, id));
	e->type = BPF_CORE_READ(prog, type);
	e->expected_attach_type = BPF_CORE_READ(prog, expected_attach_type);
	BPF_CORE_READ_INTO(&e->tag, prog, tag);
	BPF_CORE_READ_STR_INTO(&e->name, aux, name);
	e->load_time = BPF_CORE_READ(aux, load_time);
	e->owner_uid = BPF_CORE_READ(aux, user, uid.val);
	e->jited_len = BPF_CORE_READ(prog, jited_len);
	e->xlated_len = BPF_CORE_READ(prog, len) * sizeof(struct bpf_insn);
	e->btf_id = BPF_CORE_READ(aux, btf, id);
	e->attach_btf_id = BPF_CORE_READ(aux, attach_btf_id);
	/* As bpf_prog_get_info_by_fd() counts them. */
	func_cnt = BPF_CORE_READ(aux, func_cnt);
	e->nr_jited_ksyms = e->jited_len ? (func_cnt ? func_cnt : 1) : 0;
	e->nr_func_info = BPF_CORE_READ(aux, func_info_cnt);
	e->nr_line_info = BPF_CORE_READ(aux, nr_linfo);
	e->nr_map_ids = BPF_CORE_READ(aux, used_map_cnt);
	prog_map_ids(e, aux);
	prog_func_names(e, aux);

	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * map_create() installs the first fd right after assigning the id; later
 * calls (get-fd-by-id, pinned-object get) repeat a known id: user space
 * keeps the first.
 */
SEC("fentry/bpf_map_new_fd")
int BPF_PROG(map_create, struct bpf_map *map, int flags)
{
	struct cap_map *e;

	if (from_self())
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));

	fill_hdr(&e->hdr, CAP_MAP_CREATE, BPF_CORE_READ(map, id));
	e->type = BPF_CORE_READ(map, map_type);
	e->key_size = BPF_CORE_READ(map, key_size);
	e->value_size = BPF_CORE_READ(map, value_size);
	e->max_entries = BPF_CORE_READ(map, max_entries);
	e->flags = BPF_CORE_READ(map, map_flags);
	e->btf_id = BPF_CORE_READ(map, btf, id);
	e->btf_key_type_id = BPF_CORE_READ(map, btf_key_type_id);
	e->btf_value_type_id = BPF_CORE_READ(map, btf_value_type_id);
	BPF_CORE_READ_STR_INTO(&e->name, map, name);

	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The link gets its id in here: the primer already holds it. */
SEC("fentry/bpf_link_settle")
int BPF_PROG(link_attach, struct bpf_link_primer *primer)
{
	struct bpf_prog *prog;
	struct bpf_link *link;
	struct cap_link *e;
	const char *func;

	if (from_self())
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));

	link = BPF_CORE_READ(primer, link);
	prog = BPF_CORE_READ(link, prog);
	fill_hdr(&e->hdr, CAP_LINK_ATTACH, BPF_CORE_READ(primer, id));
	e->type = BPF_CORE_READ(link, type);
	e->prog_id = BPF_CORE_READ(prog, aux, id);
	e->attach_type = BPF_CORE_READ(prog, expected_attach_type);
	e->attach_btf_id = BPF_CORE_READ(prog, aux, attach_btf_id);
	func = BPF_CORE_READ(prog, aux, attach_func_name);
	if (func)
		bpf_probe_read_kernel_str(e->attach_func, sizeof(e->attach_func), func);

	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("fexit/btf_alloc_id")
int BPF_PROG(btf_load, struct btf *btf, int ret)
{
	struct cap_btf *e;

	if (ret)
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));

	fill_hdr(&e->hdr, CAP_BTF_LOAD, BPF_CORE_READ(btf, id));
	e->size = BPF_CORE_READ(btf, data_size);
	e->kernel = BPF_CORE_READ(btf, kernel_btf);
	BPF_CORE_READ_STR_INTO(&e->name, btf, name);

	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
