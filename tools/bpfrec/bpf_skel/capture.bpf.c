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
/*
 * Wake the recorder once this much is pending rather than per record: a
 * storm is thousands of records and user space also polls on a timeout.
 */
const volatile __u64 wakeup_bytes = 1;

/* Records the ring buffer had no room for: reported as lost. */
__u64 drops;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* resized by user space */
} events SEC(".maps");

static __always_inline void *reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&events, size, 0);

	if (!e)
		__sync_fetch_and_add(&drops, 1);
	return e;
}

static __always_inline void submit(void *e)
{
	bool wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes;

	bpf_ringbuf_submit(e, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
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

static __always_inline void emit_prog(struct bpf_prog *prog)
{
	struct bpf_prog_aux *aux;
	struct cap_prog *e;
	__u32 func_cnt;

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
	e->owner_uid = BPF_CORE_READ(aux, user, uid.val);
	e->jited_len = BPF_CORE_READ(prog, jited_len);
	e->xlated_len = BPF_CORE_READ(prog, len) * sizeof(struct bpf_insn);
	e->btf_id = BPF_CORE_READ(aux, btf, id);
	/* As bpf_prog_get_info_by_fd() counts them. */
	func_cnt = BPF_CORE_READ(aux, func_cnt);
	e->nr_jited_ksyms = e->jited_len ? (func_cnt ? func_cnt : 1) : 0;
	e->nr_func_info = BPF_CORE_READ(aux, func_info_cnt);
	e->nr_line_info = BPF_CORE_READ(aux, nr_linfo);
	e->nr_map_ids = BPF_CORE_READ(aux, used_map_cnt);
	prog_map_ids(e, aux);
	prog_func_names(e, aux);
	prog_ksyms(e, prog, func_cnt);

	submit(e);
}

static __always_inline void emit_map(struct bpf_map *map)
{
	struct cap_map *e;

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
	e->btf_id = BPF_CORE_READ(map, btf, id);
	e->btf_key_type_id = BPF_CORE_READ(map, btf_key_type_id);
	e->btf_value_type_id = BPF_CORE_READ(map, btf_value_type_id);
	BPF_CORE_READ_STR_INTO(&e->name, map, name);

	submit(e);
}

static __always_inline void emit_link(struct bpf_link *link, __u32 id)
{
	struct bpf_prog *prog;
	struct cap_link *e;
	const char *func;

	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));

	prog = BPF_CORE_READ(link, prog);
	fill_hdr(&e->hdr, CAP_LINK_ATTACH, id);
	e->type = BPF_CORE_READ(link, type);
	e->prog_id = BPF_CORE_READ(prog, aux, id);
	e->attach_type = BPF_CORE_READ(prog, expected_attach_type);
	e->attach_btf_id = BPF_CORE_READ(prog, aux, attach_btf_id);
	func = BPF_CORE_READ(prog, aux, attach_func_name);
	if (func)
		bpf_probe_read_kernel_str(e->attach_func, sizeof(e->attach_func), func);
	/*
	 * A raw_tp program names no function: the link holds the tracepoint.
	 * The syscalls report it only while the link lives, which a short
	 * one may not do until the recorder asks.
	 */
	if (e->type == BPF_LINK_TYPE_RAW_TRACEPOINT &&
	    bpf_core_type_exists(struct bpf_raw_tp_link)) {
		struct bpf_raw_tp_link *rl = container_of(link, struct bpf_raw_tp_link, link);

		func = BPF_CORE_READ(rl, btp, tp, name);
		if (func)
			bpf_probe_read_kernel_str(e->tp_name, sizeof(e->tp_name), func);
	}

	submit(e);
}

static __always_inline void emit_btf(struct btf *btf)
{
	struct cap_btf *e;

	e = reserve(sizeof(*e));
	if (!e)
		return;
	__builtin_memset(e, 0, sizeof(*e));

	fill_hdr(&e->hdr, CAP_BTF_LOAD, BPF_CORE_READ(btf, id));
	e->size = BPF_CORE_READ(btf, data_size);
	e->kernel = BPF_CORE_READ(btf, kernel_btf);
	BPF_CORE_READ_STR_INTO(&e->name, btf, name);

	submit(e);
}

/*
 * First choice: hook where the kernel assigns the ids (needs BPF
 * trampolines).  perf_event_bpf_event() runs in bpf_prog_load() right
 * after the id is allocated.
 */
SEC("fentry/perf_event_bpf_event")
int BPF_PROG(prog_load, struct bpf_prog *prog, int type, __u16 flags)
{
	if (type == PERF_BPF_EVENT_PROG_LOAD)
		emit_prog(prog);
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
	if (!from_self())
		emit_map(map);
	return 0;
}

/* The link gets its id in here: the primer already holds it. */
SEC("fentry/bpf_link_settle")
int BPF_PROG(link_attach, struct bpf_link_primer *primer)
{
	if (!from_self())
		emit_link(BPF_CORE_READ(primer, link), BPF_CORE_READ(primer, id));
	return 0;
}

SEC("fexit/btf_alloc_id")
int BPF_PROG(btf_load, struct btf *btf, int ret)
{
	if (!ret)
		emit_btf(btf);
	return 0;
}

/*
 * Fallback for kernels without BPF trampolines: the raw sys_exit
 * tracepoint of a successful bpf() call that created an object.  The new
 * fd is in the caller's table and the object cannot be gone yet; the
 * anonymous inode's name confirms what the fd refers to.
 */
#define NR_BPF_X86_64	321

static __always_inline void *fd_object(long fd, const char *want, int len)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file;
	const unsigned char *dname;
	char name[12];
	int i;

	if (fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	dname = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), dname) != len + 1)
		return NULL;
	for (i = 0; i < len && i < (int)sizeof(name); i++)
		if (name[i] != want[i])
			return NULL;
	return BPF_CORE_READ(file, private_data);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(bpf_exit, struct pt_regs *regs, long ret)
{
	struct bpf_link *link;
	void *obj;

	if (ret < 0 || BPF_CORE_READ(regs, orig_ax) != NR_BPF_X86_64)
		return 0;
	switch (BPF_CORE_READ(regs, di)) {
	case BPF_PROG_LOAD:
		obj = fd_object(ret, "bpf-prog", 8);
		if (obj)
			emit_prog(obj);
		break;
	case BPF_MAP_CREATE:
		obj = fd_object(ret, "bpf-map", 7);
		if (obj)
			emit_map(obj);
		break;
	case BPF_LINK_CREATE:
	case BPF_RAW_TRACEPOINT_OPEN:
		link = fd_object(ret, "bpf_link", 8);
		if (link)
			emit_link(link, BPF_CORE_READ(link, id));
		break;
	case BPF_BTF_LOAD:
		obj = fd_object(ret, "btf", 3);
		if (obj)
			emit_btf(obj);
		break;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
