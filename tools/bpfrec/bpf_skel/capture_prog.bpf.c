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

/* Type @type_id of a program's (unsplit) BTF, as btf_type_by_id() finds it. */
static __always_inline struct btf_type *btf_type_at(struct btf *btf, __u32 type_id)
{
	struct btf_type **types = BPF_CORE_READ(btf, types);
	__u32 start_id = 0;
	struct btf_type *t;

	if (bpf_core_field_exists(btf->start_id))
		start_id = BPF_CORE_READ(btf, start_id);
	if (type_id < start_id || type_id - start_id >= BPF_CORE_READ(btf, nr_types))
		return NULL;
	if (bpf_probe_read_kernel(&t, sizeof(t), &types[type_id - start_id]))
		return NULL;
	return t;
}

/* String @off of a program's (unsplit) BTF, as btf_name_by_offset() finds it. */
static __always_inline const char *btf_str_at(struct btf *btf, __u32 off)
{
	__u32 start_str = 0;

	if (bpf_core_field_exists(btf->start_str_off))
		start_str = BPF_CORE_READ(btf, start_str_off);
	if (off < start_str)
		return NULL;
	return BPF_CORE_READ(btf, strings) + off - start_str;
}

/* The name of BTF type @type_id of a program's BTF, read into @dst. */
static int btf_type_name(struct btf *btf, __u32 type_id, char *dst, __u32 len)
{
	struct btf_type *t = btf_type_at(btf, type_id);
	const char *s = t ? btf_str_at(btf, BPF_CORE_READ(t, name_off)) : NULL;

	return s && bpf_probe_read_kernel_str(dst, len, s) > 0 ? 0 : -1;
}

/*
 * The loops over a program's functions and maps are bpf_loop()
 * callbacks: the verifier checks a callback once, where it walks an
 * open-coded loop once per iteration (64 for the maps), which made the
 * syscall path's load cost most of the recorder's start-up.  Each has a
 * context on the caller's stack; kernel pointers are read from it into
 * locals first, since CO-RE relocates the kernel's types only.
 */
struct prog_loop {
	struct cap_prog *e;
	struct bpf_prog_aux *aux;
	struct bpf_prog *prog;
	struct cap_prog_maps *maps_e;
	__u32 nr;
};

/* Function @i's bpf_func_info and its name in the program's BTF. */
static long func_name_at(__u32 i, void *data)
{
	struct prog_loop *c = data;
	struct cap_prog *e = c->e;
	struct bpf_prog_aux *aux = c->aux;
	struct bpf_func_info *fi = BPF_CORE_READ(aux, func_info);
	struct btf *btf = BPF_CORE_READ(aux, btf);
	__u32 k = i & (CAP_MAX_FUNCS - 1);

	if (i >= c->nr || !fi || !btf)
		return 1;
	if (bpf_probe_read_kernel(&e->func_info[k], sizeof(e->func_info[k]), &fi[k]))
		return 1;
	if (btf_type_name(btf, e->func_info[k][1], e->func_names[k], CAP_FUNC_NAME_LEN))
		return 1;
	e->nr_func_names = k + 1;
	return 0;
}

static __always_inline void prog_func_names(struct cap_prog *e, struct bpf_prog_aux *aux)
{
	struct prog_loop c = { .e = e, .aux = aux, .nr = e->nr_func_info };

	bpf_loop(CAP_MAX_FUNCS, func_name_at, &c, 0);
}

/* Sub-program @i's JIT image. */
static long ksym_at(__u32 i, void *data)
{
	struct prog_loop *c = data;
	struct cap_prog *e = c->e;
	struct bpf_prog *prog = c->prog;
	struct bpf_prog **funcs = BPF_CORE_READ(prog, aux, func);
	__u32 k = i & (CAP_MAX_FUNCS - 1);
	struct bpf_prog *sub;

	if (i >= c->nr || bpf_probe_read_kernel(&sub, sizeof(sub), &funcs[k]))
		return 1;
	e->ksym_addrs[k] = (__u64)BPF_CORE_READ(sub, bpf_func);
	e->ksym_lens[k] = BPF_CORE_READ(sub, jited_len);
	BPF_CORE_READ_INTO(&e->sub_tags[k], sub, tag);
	e->nr_ksyms = k + 1;
	return 0;
}

/* The JIT images the way bpf_prog_get_info_by_fd() lists them. */
static __always_inline void prog_ksyms(struct cap_prog *e, struct bpf_prog *prog,
				       __u32 func_cnt)
{
	struct prog_loop c = { .e = e, .prog = prog, .nr = func_cnt };

	if (!e->jited_len)
		return;
	if (!func_cnt) {
		e->ksym_addrs[0] = (__u64)BPF_CORE_READ(prog, bpf_func);
		e->ksym_lens[0] = e->jited_len;
		__builtin_memcpy(e->sub_tags[0], e->tag, sizeof(e->tag));
		e->nr_ksyms = 1;
		return;
	}
	bpf_loop(CAP_MAX_FUNCS, ksym_at, &c, 0);
}

/* Map @i's id. */
static long map_id_at(__u32 i, void *data)
{
	struct prog_loop *c = data;
	struct bpf_prog_aux *aux = c->aux;
	struct bpf_map **maps = BPF_CORE_READ(aux, used_maps);
	__u32 k = i & (CAP_MAX_MAP_IDS - 1);
	struct bpf_map *map;

	if (i >= c->nr || bpf_probe_read_kernel(&map, sizeof(map), &maps[k]))
		return 1;
	c->e->map_ids[k] = BPF_CORE_READ(map, id);
	return 0;
}

static __always_inline void prog_map_ids(struct cap_prog *e, struct bpf_prog_aux *aux)
{
	struct prog_loop c = { .e = e, .aux = aux, .nr = e->nr_map_ids };

	bpf_loop(CAP_MAX_MAP_IDS, map_id_at, &c, 0);
}

/* Map @i's address, and its value's when it is an array of one entry. */
static long map_addr_at(__u32 i, void *data)
{
	struct prog_loop *c = data;
	struct cap_prog_maps *e = c->maps_e;
	struct bpf_prog_aux *aux = c->aux;
	struct bpf_map **maps = BPF_CORE_READ(aux, used_maps);
	__u32 k = i & (CAP_MAX_MAP_IDS - 1);
	struct bpf_array *array;
	struct bpf_map *map;

	if (i >= c->nr || bpf_probe_read_kernel(&map, sizeof(map), &maps[k]))
		return 1;
	e->addrs[k] = (__u64)map;
	e->values[k] = 0;
	e->value_sizes[k] = 0;
	/* array_map_direct_value_meta(): an array of one entry */
	if (BPF_CORE_READ(map, map_type) == BPF_MAP_TYPE_ARRAY &&
	    BPF_CORE_READ(map, max_entries) == 1) {
		array = (void *)map;
		e->values[k] = (__u64)map + bpf_core_field_offset(struct bpf_array, value);
		e->value_sizes[k] = BPF_CORE_READ(array, elem_size);
	}
	e->nr = k + 1;
	return 0;
}

/*
 * Where the program's maps are, for user space to turn the addresses in
 * its instructions back into map ids as the kernel does when it dumps
 * them: only when it uses maps.
 */
static __always_inline void emit_prog_maps(struct bpf_prog_aux *aux, __u32 id, __u32 nr)
{
	struct prog_loop c = { .aux = aux, .nr = nr };
	struct cap_prog_maps *e;

	if (!nr)
		return;
	e = reserve(sizeof(*e));
	if (!e)
		return;
	e->kind = CAP_PROG_MAPS;
	e->id = id;
	e->nr = 0;
	e->reserved = 0;
	c.maps_e = e;
	bpf_loop(CAP_MAX_MAP_IDS, map_addr_at, &c, 0);
	submit(e);
}

struct insns_ctx {
	const __u8 *insns;
	__u64 total;
	__u32 id;
	struct cap_prog_insns *e;
};

/* A piece is built here and sent as long as it is: most programs are far shorter than a piece. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_prog_insns);
} cap_insns SEC(".maps");

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
	e = c->e;
	e->kind = CAP_PROG_INSNS;
	e->id = c->id;
	e->off = off;
	e->total = c->total;
	e->reserved = 0;
	if (bpf_probe_read_kernel(e->data, len, c->insns + off))
		len = 0;
	e->len = len;
	output(e, offsetof(struct cap_prog_insns, data) + len);
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
	__u32 zero = 0;

	if (!c.total || c.total > CAP_INSNS_MAX_CHUNKS * CAP_INSNS_CHUNK)
		return;
	c.e = bpf_map_lookup_elem(&cap_insns, &zero);
	if (!c.e)
		return;
	bpf_loop(CAP_INSNS_MAX_CHUNKS, insns_piece, &c, 0);
}

/*
 * The bpf_metadata_* variables.  They are read here, in the context of
 * the load, from the map's value and its BTF, because this is the one
 * moment that works for every program: perf and bpftool read them by id
 * later (BPF_MAP_LOOKUP_ELEM on the .rodata map, the BTF by id), and a
 * program that lives 1 ms is gone, with its maps and BTF, long before the
 * recorder's next drain.  The .rodata map is frozen before the load
 * (libbpf), so its value is final.  User space prints the bytes by the
 * kind of type found here: it has no BTF of the object to do more.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_prog_meta);
} cap_meta SEC(".maps");

#define META_PREFIX		"bpf_metadata_"
#define META_PREFIX_LEN		13

static __always_inline __u32 btf_kind_of(__u32 info)
{
	return (info >> 24) & 0x1f;
}

struct resolve_walk {
	struct btf *btf;
	struct btf_type *t;		/* the type reached, NULL once lost */
	struct btf_type *out;
	bool found;
};

/* One step through a typedef or qualifier: a bpf_loop() callback. */
static long resolve_step(__u32 i, void *data)
{
	struct resolve_walk *w = data;
	struct btf_type *t = w->t;
	__u32 kind;

	if (!t || bpf_probe_read_kernel(w->out, sizeof(*w->out), t)) {
		w->t = NULL;
		return 1;
	}
	kind = btf_kind_of(w->out->info);
	if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_VOLATILE &&
	    kind != BTF_KIND_CONST && kind != BTF_KIND_RESTRICT &&
	    kind != BTF_KIND_TYPE_TAG) {
		w->found = true;
		return 1;
	}
	w->t = btf_type_at(w->btf, w->out->type);
	return 0;
}

/* @t, or the type it names through typedefs and qualifiers, read into @out. */
static __always_inline struct btf_type *btf_resolve(struct btf *btf, struct btf_type *t,
						    struct btf_type *out)
{
	struct resolve_walk w = { .btf = btf, .t = t, .out = out };

	bpf_loop(8, resolve_step, &w, 0);
	return w.found ? w.t : NULL;
}

/*
 * How a variable of type @type_id is printed, as libbpf's btf_dump prints
 * it for perf: integers by their sign (the encoding word after an INT
 * type), a char array as a string, a pointer in hex, the rest as bytes.
 */
static __always_inline __u32 meta_fmt(struct btf *btf, __u32 type_id)
{
	struct btf_type *tp;
	struct btf_type t, elem;
	struct btf_array array;
	__u32 enc;

	tp = btf_resolve(btf, btf_type_at(btf, type_id), &t);
	if (!tp)
		return CAP_META_BYTES;
	switch (btf_kind_of(t.info)) {
	case BTF_KIND_INT:
		if (bpf_probe_read_kernel(&enc, sizeof(enc), (void *)tp + sizeof(t)))
			return CAP_META_BYTES;
		return (enc >> 24) & 1 ? CAP_META_SIGNED : CAP_META_UNSIGNED;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return t.info >> 31 ? CAP_META_SIGNED : CAP_META_UNSIGNED;
	case BTF_KIND_PTR:
		return CAP_META_PTR;
	case BTF_KIND_ARRAY:
		if (bpf_probe_read_kernel(&array, sizeof(array), (void *)tp + sizeof(t)))
			return CAP_META_BYTES;
		tp = btf_resolve(btf, btf_type_at(btf, array.type), &elem);
		if (tp && btf_kind_of(elem.info) == BTF_KIND_INT && elem.size == 1)
			return CAP_META_STRING;
		return CAP_META_BYTES;
	}
	return CAP_META_BYTES;
}

struct meta_ctx {
	struct btf *btf;
	const __u8 *secinfo;		/* the DATASEC's struct btf_var_secinfo[] */
	const __u8 *value;		/* the map's value */
	__u32 value_size;
	__u32 nr_vars;			/* the DATASEC's vlen */
	struct cap_prog_meta *m;
};

/* Variable @i of the section: taken when its name has the prefix. */
static long meta_var(__u32 i, void *data)
{
	struct meta_ctx *c = data;
	struct cap_prog_meta *m = c->m;
	const char prefix[] = META_PREFIX;
	char name[META_PREFIX_LEN + 1];
	struct btf_var_secinfo vsi;
	struct cap_meta_var *v;
	struct btf_type var;
	struct btf_type *tp;
	const char *s;
	__u64 len;
	__u32 n;
	int k;

	/* past the last one are other types, or memory after the BTF */
	if (i >= c->nr_vars ||
	    bpf_probe_read_kernel(&vsi, sizeof(vsi), c->secinfo + (__u64)i * sizeof(vsi)))
		return 1;
	tp = btf_type_at(c->btf, vsi.type);
	if (!tp || bpf_probe_read_kernel(&var, sizeof(var), tp) ||
	    btf_kind_of(var.info) != BTF_KIND_VAR)
		return 0;
	s = btf_str_at(c->btf, var.name_off);
	if (!s || bpf_probe_read_kernel_str(name, sizeof(name), s) != sizeof(name))
		return 0;
	for (k = 0; k < META_PREFIX_LEN; k++)
		if (name[k] != prefix[k])
			return 0;
	m->seen++;
	n = m->nr;
	if (n >= CAP_META_MAX)
		return 0;
	v = &m->vars[n & (CAP_META_MAX - 1)];
	if (bpf_probe_read_kernel_str(v->name, sizeof(v->name), s + META_PREFIX_LEN) < 0)
		v->name[0] = 0;
	v->fmt = meta_fmt(c->btf, var.type);
	v->size = vsi.size;
	v->reserved = 0;
	len = vsi.size;
	/* min(len, room) in a form the verifier follows, whatever clang makes of it */
	asm volatile("if %[len] <= %[max] goto +1; %[len] = %[max]"
		     : [len] "+r"(len) : [max] "i"(CAP_META_VALUE_LEN));
	v->len = 0;
	if (vsi.offset <= c->value_size && len <= c->value_size - vsi.offset &&
	    !bpf_probe_read_kernel(v->value, len, c->value + vsi.offset))
		v->len = len;
	m->nr = n + 1;
	return 0;
}

struct name_scan {
	char name[CAP_OBJ_NAME_LEN];
	bool found;
};

/* Whether ".rodata" starts at byte @i of the name: a bpf_loop() callback. */
static long rodata_at(__u32 i, void *data)
{
	const char want[] = ".rodata";
	struct name_scan *n = data;
	__u32 k;

	if (i + 7 > CAP_OBJ_NAME_LEN)
		return 1;
	for (k = 0; k < 7; k++)
		if (n->name[(i + k) & (CAP_OBJ_NAME_LEN - 1)] != want[k])
			return 0;
	n->found = true;
	return 1;
}

/* Whether @map may be a .rodata section's map, as perf and bpftool tell: name and shape. */
static __always_inline bool rodata_map(struct bpf_map *map)
{
	struct name_scan n = {};

	if (BPF_CORE_READ(map, map_type) != BPF_MAP_TYPE_ARRAY ||
	    BPF_CORE_READ(map, max_entries) != 1 || BPF_CORE_READ(map, key_size) != 4 ||
	    !BPF_CORE_READ(map, btf_value_type_id) || !BPF_CORE_READ(map, btf))
		return false;
	BPF_CORE_READ_STR_INTO(&n.name, map, name);
	bpf_loop(CAP_OBJ_NAME_LEN - 6, rodata_at, &n, 0);
	return n.found;
}

struct rodata_ctx {
	struct bpf_map **maps;
	__u32 nr;
	struct bpf_map *found;
};

static long rodata_find(__u32 i, void *data)
{
	struct rodata_ctx *c = data;
	struct bpf_map *map;

	if (i >= c->nr)
		return 1;
	if (bpf_probe_read_kernel(&map, sizeof(map), &c->maps[i]) || !map)
		return 0;
	if (!rodata_map(map))
		return 0;
	c->found = map;
	return 1;
}

/* The metadata of the first .rodata map the program uses that has any. */
static __always_inline void emit_meta(struct bpf_prog_aux *aux, __u32 id, __u32 nr_maps)
{
	struct rodata_ctx r = { .maps = BPF_CORE_READ(aux, used_maps), .nr = nr_maps };
	struct meta_ctx c = {};
	struct btf_type sec;
	struct btf_type *tp;
	struct bpf_map *map;
	__u32 zero = 0;
	__u64 nr;

	if (!nr_maps)
		return;
	bpf_loop(CAP_MAX_MAP_IDS, rodata_find, &r, 0);
	/* out of the context struct first: CO-RE relocates map's fields only */
	map = r.found;
	if (!map)
		return;
	c.btf = BPF_CORE_READ(map, btf);
	tp = btf_type_at(c.btf, BPF_CORE_READ(map, btf_value_type_id));
	if (!tp || bpf_probe_read_kernel(&sec, sizeof(sec), tp) ||
	    btf_kind_of(sec.info) != BTF_KIND_DATASEC)
		return;
	c.m = bpf_map_lookup_elem(&cap_meta, &zero);
	if (!c.m)
		return;
	c.m->kind = CAP_PROG_META;
	c.m->id = id;
	c.m->nr = 0;
	c.m->seen = 0;
	c.secinfo = (const void *)tp + sizeof(sec);
	c.nr_vars = sec.info & 0xffff;
	/* array_map_direct_value_meta(): the value of an array of one entry */
	c.value = (const void *)map + bpf_core_field_offset(struct bpf_array, value);
	c.value_size = BPF_CORE_READ(map, value_size);
	bpf_loop(CAP_META_SCAN_VARS, meta_var, &c, 0);
	if (!c.m->seen)
		return;
	nr = c.m->nr;
	/* the variables found, no more: a bound the verifier follows */
	asm volatile("if %[nr] <= %[max] goto +1; %[nr] = %[max]"
		     : [nr] "+r"(nr) : [max] "i"(CAP_META_MAX));
	output(c.m, offsetof(struct cap_prog_meta, vars) + nr * sizeof(struct cap_meta_var));
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
	emit_meta(aux, id, nr_maps < CAP_MAX_MAP_IDS ? nr_maps : CAP_MAX_MAP_IDS);
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
	call_end();
	return 0;
}

/* weak: each kind's file says it, the linked object once */
char LICENSE[] SEC("license") __weak = "GPL";
