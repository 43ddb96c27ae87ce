// SPDX-License-Identifier: GPL-2.0
/*
 * Capture of programs: the facts about a program in the context of the
 * task loading it, right after the kernel assigned its id.  Resolving by
 * id from user space afterwards loses every program that is gone before
 * the recorder gets to it (perf resolves 0.55 % of a storm of
 * short-lived programs); here the program cannot go away under us.
 *
 * Fields that not every kernel has are read only where
 * bpf_core_field_exists() says so: a kernel without them gets programs
 * with less detail, not no capture.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "capture.h"
#include "capture.bpf.h"

/* perf_event_bpf_event() is also called on unload: only loads matter here. */
#define PERF_BPF_EVENT_PROG_LOAD 1

/*
 * The name of BTF type @type_id of a program's (user, unsplit) BTF, the
 * way btf_type_by_id() and btf_name_by_offset() find it.
 */
static int btf_type_name(struct btf *btf, __u32 type_id, char *dst, __u32 len)
{
	__u32 start_id = 0, start_str = 0;
	struct btf_type **types = BPF_CORE_READ(btf, types);
	const char *strings = BPF_CORE_READ(btf, strings);
	struct btf_type *t;
	__u32 name_off;

	/* split BTF (5.11): a program's own BTF starts at 0 either way */
	if (bpf_core_field_exists(btf->start_id)) {
		start_id = BPF_CORE_READ(btf, start_id);
		start_str = BPF_CORE_READ(btf, start_str_off);
	}
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
		if (bpf_probe_read_kernel(&e->func_info[i], sizeof(e->func_info[i]), &fi[i]))
			break;
		type_id = e->func_info[i][1];
		if (btf_type_name(btf, type_id, e->func_names[i], CAP_FUNC_NAME_LEN))
			break;
		e->nr_func_names = i + 1;
	}
}

/* The JIT images the way bpf_prog_get_info_by_fd() lists them. */
static __always_inline void prog_ksyms(struct cap_prog *e, struct bpf_prog *prog,
				       __u32 func_cnt)
{
	struct bpf_prog **funcs = BPF_CORE_READ(prog, aux, func);
	struct bpf_prog *sub;
	__u32 i;

	if (!e->jited_len)
		return;
	if (!func_cnt) {
		e->ksym_addrs[0] = (__u64)BPF_CORE_READ(prog, bpf_func);
		e->ksym_lens[0] = e->jited_len;
		__builtin_memcpy(e->sub_tags[0], e->tag, sizeof(e->tag));
		e->nr_ksyms = 1;
		return;
	}
	for (i = 0; i < CAP_MAX_FUNCS && i < func_cnt; i++) {
		if (bpf_probe_read_kernel(&sub, sizeof(sub), &funcs[i]))
			break;
		e->ksym_addrs[i] = (__u64)BPF_CORE_READ(sub, bpf_func);
		e->ksym_lens[i] = BPF_CORE_READ(sub, jited_len);
		BPF_CORE_READ_INTO(&e->sub_tags[i], sub, tag);
		e->nr_ksyms = i + 1;
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

/*
 * Where the program's maps are, for user space to turn the addresses in
 * its instructions back into map ids as the kernel does when it dumps
 * them: only when it uses maps.
 */
static __always_inline void emit_prog_maps(struct bpf_prog_aux *aux, __u32 id, __u32 nr)
{
	struct bpf_map **maps = BPF_CORE_READ(aux, used_maps);
	struct cap_prog_maps *e;
	struct bpf_array *array;
	struct bpf_map *map;
	__u32 i;

	if (!nr)
		return;
	e = reserve(sizeof(*e));
	if (!e)
		return;
	e->kind = CAP_PROG_MAPS;
	e->id = id;
	e->nr = 0;
	e->reserved = 0;
	for (i = 0; i < CAP_MAX_MAP_IDS && i < nr; i++) {
		if (bpf_probe_read_kernel(&map, sizeof(map), &maps[i]))
			break;
		e->addrs[i] = (__u64)map;
		e->values[i] = 0;
		e->value_sizes[i] = 0;
		/* array_map_direct_value_meta(): an array of one entry */
		if (BPF_CORE_READ(map, map_type) == BPF_MAP_TYPE_ARRAY &&
		    BPF_CORE_READ(map, max_entries) == 1) {
			array = (void *)map;
			e->values[i] = (__u64)map + bpf_core_field_offset(struct bpf_array, value);
			e->value_sizes[i] = BPF_CORE_READ(array, elem_size);
		}
		e->nr = i + 1;
	}
	submit(e);
}

struct insns_ctx {
	const __u8 *insns;
	__u64 total;
	__u32 id;
};

/* Piece @i of the instructions: a bpf_loop() callback, verified once rather than per piece. */
static long insns_piece(__u32 i, void *data)
{
	struct insns_ctx *c = data;
	struct cap_prog_insns *e;
	__u64 off = (__u64)i * CAP_INSNS_CHUNK, len;

	if (off >= c->total)
		return 1;
	len = c->total - off;
	/* min(len, chunk) in a form the verifier follows, whatever clang makes of it */
	asm volatile("if %[len] <= %[max] goto +1; %[len] = %[max]"
		     : [len] "+r"(len) : [max] "i"(CAP_INSNS_CHUNK));
	e = reserve(sizeof(*e));
	if (!e)
		return 1;
	e->kind = CAP_PROG_INSNS;
	e->id = c->id;
	e->off = off;
	e->total = c->total;
	e->reserved = 0;
	e->len = bpf_probe_read_kernel(e->data, len, c->insns + off) ? 0 : len;
	submit(e);
	return 0;
}

/* The xlated instructions, in pieces; none when there are too many. */
static __always_inline void emit_insns(struct bpf_prog *prog, __u32 id)
{
	struct insns_ctx c = {
		.insns = (const void *)prog + bpf_core_field_offset(struct bpf_prog, insnsi),
		.total = BPF_CORE_READ(prog, len) * sizeof(struct bpf_insn),
		.id = id,
	};

	if (!c.total || c.total > CAP_INSNS_MAX_CHUNKS * CAP_INSNS_CHUNK)
		return;
	bpf_loop(CAP_INSNS_MAX_CHUNKS, insns_piece, &c, 0);
}

static __always_inline void emit_prog(struct bpf_prog *prog)
{
	struct bpf_prog_aux *aux;
	__u32 func_cnt, id, nr_maps;
	struct cap_prog *e;

	say_task();
	e = reserve(sizeof(*e));
	if (!e)
		return;
	/* too big to clear whole: the arrays are only read up to their counts */
	__builtin_memset(e, 0, offsetof(struct cap_prog, map_ids));

	aux = BPF_CORE_READ(prog, aux);
	fill_hdr(&e->hdr, CAP_PROG_LOAD, BPF_CORE_READ(aux, id));
	e->type = BPF_CORE_READ(prog, type);
	BPF_CORE_READ_INTO(&e->tag, prog, tag);
	BPF_CORE_READ_STR_INTO(&e->name, aux, name);
	e->load_time = BPF_CORE_READ(aux, load_time);
	if (bpf_core_field_exists(aux->user))
		e->owner_uid = BPF_CORE_READ(aux, user, uid.val);
	else
		e->owner_uid = e->hdr.uid;
	e->jited_len = BPF_CORE_READ(prog, jited_len);
	e->xlated_len = BPF_CORE_READ(prog, len) * sizeof(struct bpf_insn);
	e->btf_id = BPF_CORE_READ(aux, btf, id);
	/* As bpf_prog_get_info_by_fd() counts them. */
	func_cnt = BPF_CORE_READ(aux, func_cnt);
	e->nr_jited_ksyms = e->jited_len ? (func_cnt ? func_cnt : 1) : 0;
	if (bpf_core_field_exists(aux->func_info_cnt)) {
		e->nr_func_info = BPF_CORE_READ(aux, func_info_cnt);
		prog_func_names(e, aux);
	}
	if (bpf_core_field_exists(aux->nr_linfo))
		e->nr_line_info = BPF_CORE_READ(aux, nr_linfo);
	e->nr_map_ids = BPF_CORE_READ(aux, used_map_cnt);
	prog_map_ids(e, aux);
	prog_ksyms(e, prog, func_cnt);
	id = e->hdr.id;
	nr_maps = e->nr_map_ids;

	submit(e);
	emit_prog_maps(aux, id, nr_maps);
	emit_insns(prog, id);
}

/* With trampolines: perf_event_bpf_event() runs right after the id is allocated. */
SEC("fentry/perf_event_bpf_event")
int BPF_PROG(prog_fentry, struct bpf_prog *prog, int type, __u16 flags)
{
	if (type == PERF_BPF_EVENT_PROG_LOAD)
		emit_prog(prog);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int prog_enter(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(ctx, 1ULL << BPF_PROG_LOAD);
}

/*
 * The program of the returned fd is this call's if it was loaded after
 * the call began and has the type asked for (attr word 0, prog_type).
 */
SEC("tracepoint/syscalls/sys_exit_bpf")
int prog_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct bpf_prog *prog;
	struct cap_call call;

	if (!call_exit(ctx, &call, 1ULL << BPF_PROG_LOAD))
		return 0;
	prog = fd_object(ctx->ret, "bpf-prog", 8);
	if (prog && BPF_CORE_READ(prog, type) == call.attr[0] &&
	    BPF_CORE_READ(prog, aux, load_time) >= call.start)
		emit_prog(prog);
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
