// SPDX-License-Identifier: GPL-2.0
/*
 * Where the records and captured facts go: perf records are written as
 * they come, facts are merged per object.  Resolution order for an
 * object: the in-kernel capture (always complete for name, type, tag),
 * then the syscalls for what only they report, if the object still
 * exists; nothing at all leaves it unresolved.
 *
 * An object's facts reach the file before the record that announces it:
 * a record whose facts have not come yet is held until the next drain
 * (one round late: perf and our reader order records across two rounds),
 * so a recorder killed at any point leaves no record without its facts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/bpf_desc.h"
#include "util/bpf_meta.h"
#include "util/bpf_resolve.h"
#include "util/capture.h"
#include "util/facts.h"
#include "util/hashmap.h"
#include "util/linger.h"
#include "util/sink.h"
#include "util/tenant.h"
#include "util/perf_data/oversized.h"
/* after the types it uses: it is shared with the BPF side, which has no uapi headers */
#include "bpf_skel/capture.h"

static void origin_from(struct pd_origin *o, const struct cap_hdr *h)
{
	o->pid = h->pid;
	o->tid = h->tid;
	o->uid = h->uid;
	o->time = h->time;
	o->loader = 0;
	memcpy(o->comm, h->comm, sizeof(o->comm));
}

/* Loaders are tids' values: the index, and this bit when the task is the tenant's. */
#define LOADER_TENANT	(1ULL << 32)

/*
 * The loader the capture said last for the task of @h, 0 if none.  With
 * a tenant, only the loaders that a kept record names go to the file:
 * written here, the first time.
 */
static __u32 loader_of(struct sink *k, const struct cap_hdr *h)
{
	const __u64 *v = hashmap_find(&k->loaders, h->tid);
	__u32 index = v ? (__u32)*v : 0;
	struct sink_loader *l;

	if (!index || !k->tenant || !k->w)
		return index;
	l = &k->loader_defs[index - 1];
	if (!l->written && !pd_writer_add_loader(k->w, &l->d))
		l->written = true;
	return index;
}

/* Whether the task of @h is the tenant's, as the capture said it last. */
static bool tenant_task_of(const struct sink *k, const struct cap_hdr *h)
{
	const __u64 *v = hashmap_find(&k->loaders, h->tid);

	return v && (*v & LOADER_TENANT);
}

/*
 * The verdict on an object the capture saw created by the task of @h:
 * the first one holds.  True when it is to be written.
 */
static bool tenant_keeps(struct sink *k, enum pd_kind kind, __u32 id, const struct cap_hdr *h)
{
	enum tenant_verdict before;

	if (!k->tenant)
		return true;
	before = tenant_verdict(k->tenant, kind, id);
	if (tenant_decide(k->tenant, kind, id, tenant_task_of(k, h)) == TENANT_KEEP)
		return true;
	/* a map's later fds (fentry path) repeat its creation: counted once */
	if (before != TENANT_UNDECIDED)
		return false;
	/* the creation record bpfrec would have written (a program's is the kernel's) */
	if (k->write_records && kind != PD_PROG)
		k->tenant->left_out++;
	return false;
}

/* A record of object @id of @kind (not its creation), with a tenant: its creation's verdict. */
static bool tenant_follows(struct sink *k, enum pd_kind kind, __u32 id)
{
	if (!k->tenant || tenant_verdict(k->tenant, kind, id) == TENANT_KEEP)
		return true;
	k->tenant->left_out++;
	return false;
}

/* "/a/b/c" from the capture's names, leaf first. */
static void join_path(char *dst, size_t len, const struct cap_path *p, bool *cut)
{
	const char *names[CAP_PATH_DEPTH];
	size_t used = 0, n = 0, pos = 0, l;
	size_t plen = p->len < CAP_PATH_LEN ? p->len : CAP_PATH_LEN;

	*cut = p->cut;
	while (pos < plen && n < CAP_PATH_DEPTH) {
		names[n++] = p->names + pos;
		l = strnlen(p->names + pos, plen - pos);
		pos += l + 1;
	}
	dst[0] = 0;
	while (n--) {
		l = strnlen(names[n], plen);
		if (used + 1 + l >= len) {
			*cut = true;
			break;
		}
		dst[used++] = '/';
		memcpy(dst + used, names[n], l);
		used += l;
		dst[used] = 0;
	}
	if (!used && len > 1 && !p->cut)
		snprintf(dst, len, "/");
}

/* Who a task is: a new loader when it changed (the capture says it only then). */
static int on_task(struct sink *k, const struct cap_task *c)
{
	struct pd_loader d = {};
	bool cut;
	__u64 *index;

	d.pid = c->hdr.pid;
	d.tid = c->hdr.tid;
	d.ppid = c->ppid;
	d.uid = c->hdr.uid;
	d.gid = c->gid;
	d.loginuid = c->loginuid;
	d.cgroup_id = c->cgroup_id;
	d.time = c->hdr.time;
	memcpy(d.comm, c->hdr.comm, sizeof(d.comm));
	memcpy(d.pcomm, c->pcomm, sizeof(d.pcomm));
	d.comm[sizeof(d.comm) - 1] = d.pcomm[sizeof(d.pcomm) - 1] = 0;
	if (c->exe.depth || c->exe.cut) {
		join_path(d.exe, sizeof(d.exe), &c->exe, &cut);
		d.flags |= cut ? PD_LOADER_EXE_CUT : 0;
	}
	join_path(d.cgroup, sizeof(d.cgroup), &c->cgroup, &cut);
	d.flags |= cut ? PD_LOADER_CGROUP_CUT : 0;
	index = hashmap_add(&k->loaders, d.tid, NULL);
	if (!index)
		return -ENOMEM;
	d.index = ++k->nr_loaders;
	*index = d.index;
	if (!k->tenant)
		return k->w ? pd_writer_add_loader(k->w, &d) : 0;
	/* another tenant's task goes to the file only if a kept record names it */
	if (tenant_task(k->tenant, &d))
		*index |= LOADER_TENANT;
	if (array_room(&k->loader_defs, &k->cap_loader_defs, d.index - 1,
		       sizeof(*k->loader_defs)))
		return -ENOMEM;
	k->loader_defs[d.index - 1] = (struct sink_loader){ .d = d };
	return 0;
}

/* The sample_id of a record written from the capture's header @h. */
static void capture_sample(const struct sink *k, const struct cap_hdr *h, struct pd_sample *s)
{
	*s = (struct pd_sample){
		.pid = h->pid, .tid = h->tid, .time = h->time, .cpu = h->cpu, .id = k->event_id,
	};
}

static char **dup_names(const char (*names)[CAP_FUNC_NAME_LEN], __u32 nr)
{
	char **a = nr ? calloc(nr, sizeof(*a)) : NULL;
	__u32 i;

	for (i = 0; a && i < nr; i++)
		a[i] = strndup(names[i], CAP_FUNC_NAME_LEN);
	return a;
}

/*
 * The creation record of a map, link or BTF object the capture saw, on a
 * kernel that writes none: its facts first, then the record, described
 * and marked captured, at the time and in the task of the creation.
 */
static int captured_record(struct sink *k, enum pd_kind kind, __u32 id, const struct cap_hdr *h)
{
	struct pd_bpf_event e;
	struct pd_sample s;
	struct pd_map *m;
	struct pd_link *l;
	struct pd_btf *b;
	int err;

	if (!k->write_records || !k->w)
		return 0;
	switch (kind) {
	case PD_MAP:
		m = facts_map(k->facts, id, NULL);
		if (!m || (m->flags & (PD_F_RECORDED | PD_F_SYNTHESISED)))
			return m ? 0 : -ENOMEM;
		m->flags |= PD_F_RECORDED;
		map_to_desc(m, PERF_BPF_EVENT_MAP_CREATE, &e);
		break;
	case PD_LINK:
		l = facts_link(k->facts, id, NULL);
		if (!l || (l->flags & (PD_F_RECORDED | PD_F_SYNTHESISED)))
			return l ? 0 : -ENOMEM;
		l->flags |= PD_F_RECORDED;
		link_to_desc(l, PERF_BPF_EVENT_LINK_ATTACH, &e);
		break;
	case PD_BTF:
		b = facts_btf(k->facts, id, NULL);
		if (!b || (b->flags & (PD_F_RECORDED | PD_F_SYNTHESISED)))
			return b ? 0 : -ENOMEM;
		b->flags |= PD_F_RECORDED;
		btf_to_desc(b, PERF_BPF_EVENT_BTF_LOAD, &e);
		break;
	default:
		return 0;
	}
	e.marks = PD_BPF_EVENT_FLAG_CAPTURED;
	err = facts_write_now(k->facts, kind, id);
	if (err)
		return err;
	capture_sample(k, h, &s);
	err = pd_write_bpf_object(k->w, &e, &s);
	return err ? err : gone_track(&k->scan, kind, id, h->time);
}

/* Arrays are only kept whole: a truncated one would lie about the count. */
static void prog_from_capture(struct pd_prog *p, const struct cap_prog *c)
{
	__u32 nr_funcs = c->nr_func_info < CAP_MAX_FUNCS ? c->nr_func_info : CAP_MAX_FUNCS;

	pd_prog_free_arrays(p);
	p->flags |= PD_F_CAPTURED;
	p->type = c->type;
	memcpy(p->tag, c->tag, sizeof(p->tag));
	memcpy(p->name, c->name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = 0;
	p->load_time = c->load_time;
	origin_from(&p->origin, &c->hdr);
	/* who the kernel charges, as the syscalls report it (created_by_uid) */
	p->origin.uid = c->owner_uid;
	p->jited_len = c->jited_len;
	p->xlated_len = c->xlated_len;
	p->btf_id = c->btf_id;
	p->nr_lines = c->nr_line_info;
	if (c->nr_map_ids <= CAP_MAX_MAP_IDS && (p->map_ids = array_dup(c->map_ids, c->nr_map_ids, 4)))
		p->nr_map_ids = c->nr_map_ids;
	if (c->nr_ksyms == c->nr_jited_ksyms) {
		p->ksym_addrs = array_dup(c->ksym_addrs, c->nr_ksyms, sizeof(__u64));
		p->ksym_lens = array_dup(c->ksym_lens, c->nr_ksyms, sizeof(__u32));
		p->sub_tags = array_dup(c->sub_tags, c->nr_ksyms, BPF_TAG_SIZE);
		if (p->ksym_addrs && p->ksym_lens && p->sub_tags)
			p->nr_ksyms = c->nr_ksyms;
	}
	if (c->nr_func_names == nr_funcs && nr_funcs == c->nr_func_info) {
		p->func_info = array_dup(c->func_info, nr_funcs, sizeof(struct bpf_func_info));
		p->func_names = dup_names(c->func_names, nr_funcs);
		if (p->func_info && p->func_names) {
			p->nr_func_info = nr_funcs;
			p->nr_func_names = nr_funcs;
		}
	}
}

/*
 * The syscalls report the same object in full (every sub-program, line
 * info): take their arrays, keep who created it from the capture.
 */
static void prog_add_syscall(struct pd_prog *p)
{
	struct pd_prog s = { .id = p->id };

	if (resolve_prog(p->id, &s))
		return;
	if (p->flags & PD_F_CAPTURED) {
		s.origin = p->origin;
		s.flags |= p->flags;
	}
	s.flags |= p->flags & PD_F_RECORDED;
	if (p->flags & PD_F_SHA256)
		memcpy(s.sha256, p->sha256, sizeof(s.sha256));
	/* what the capture read at load stays: the program's maps may be gone now */
	if (p->flags & PD_F_META) {
		free(s.meta);
		s.meta = p->meta;
		s.nr_meta = p->nr_meta;
		p->meta = NULL;
		p->nr_meta = 0;
		s.flags |= PD_F_META;
	}
	pd_prog_free_arrays(p);
	*p = s;
	/* without the capture, by id as perf does (a short-lived program's are lost) */
	if (!(p->flags & (PD_F_CAPTURED | PD_F_META)))
		meta_resolve(p);
}

/* A name that fills the capture's room may have been cut: the syscall has it whole. */
static bool names_whole(const struct pd_prog *p)
{
	__u32 i;

	for (i = 0; i < p->nr_func_names; i++)
		if (!p->func_names[i] || strlen(p->func_names[i]) >= CAP_FUNC_NAME_LEN - 1)
			return false;
	return true;
}

/*
 * What the capture does not carry: arrays longer than its fixed ones,
 * names longer than its own.  Only then is the syscall worth its cost
 * (and its race: the program may be gone, and while the recorder holds
 * its fd, the loader's close is not the last one, and the unload would
 * happen, and be recorded, in the recorder).  Line info records are not
 * a reason: the capture keeps their count, and perf uses the records only
 * with the instructions, which no one stores; asking for them sent every
 * program built with debug info (clang -g, the usual) to the syscall.
 */
static bool capture_has_all(const struct pd_prog *p, const struct cap_prog *c)
{
	return p->nr_map_ids == c->nr_map_ids && p->nr_ksyms == c->nr_jited_ksyms &&
	       p->nr_func_info == c->nr_func_info && names_whole(p);
}

/* With a tenant: the verdict on program @c's JIT images, for their KSYMBOL records. */
static int ksyms_verdict(struct sink *k, const struct cap_prog *c, bool keep)
{
	__u32 i;
	__u64 *v;

	for (i = 0; i < c->nr_ksyms && i < CAP_MAX_FUNCS; i++) {
		v = hashmap_add(&k->ksym_verdicts, c->ksym_addrs[i], NULL);
		if (!v)
			return -ENOMEM;
		/* an address a program freed may come again: the latest holds */
		*v = keep ? TENANT_KEEP : TENANT_DROP;
	}
	return 0;
}

static int on_prog(struct sink *k, const struct cap_prog *c)
{
	struct pd_prog *p;
	int err;

	if (k->tenant) {
		bool keep = tenant_keeps(k, PD_PROG, c->hdr.id, &c->hdr);

		err = ksyms_verdict(k, c, keep);
		if (err || !keep)
			return err;
	}
	p = facts_prog(k->facts, c->hdr.id, NULL);
	if (!p)
		return -ENOMEM;
	prog_from_capture(p, c);
	p->origin.loader = loader_of(k, &c->hdr);
	/* the capture sends the instructions of programs up to this size */
	if (c->xlated_len && c->xlated_len <= CAP_INSNS_MAX_CHUNKS * CAP_INSNS_CHUNK) {
		err = prog_insns_ids(&k->insns, c->hdr.id, c->map_ids, c->nr_map_ids);
		if (err)
			return err;
	}
	if (capture_has_all(p, c))
		return 0;
	/* after this drain's records: an unload among them spares the syscall */
	if (array_room(&k->ask, &k->cap_ask, k->nr_ask, sizeof(*k->ask)))
		return -ENOMEM;
	k->ask[k->nr_ask++] = c->hdr.id;
	return 0;
}

/* The tid of a map's MAP_CREATE record when its creator is still to be found. */
static __u64 *creator_wanted(struct sink *k, __u32 id)
{
	__u64 *want = hashmap_find(&k->creators, id);

	return want && *want ? want : NULL;
}

/*
 * bpf_map_new_fd() runs for every fd of a map: the creator's, and those
 * of any task that opens it by id, possibly before the creator's own fd
 * exists.  On a stock kernel the first one is taken for the creator.  On
 * a kernel with the series, the MAP_CREATE record is written in the
 * creating task (map_recorded()): only the capture of that task is.
 */
static int on_map(struct sink *k, const struct cap_map *c)
{
	__u64 *want = creator_wanted(k, c->hdr.id);
	struct pd_map *m;

	if (!tenant_keeps(k, PD_MAP, c->hdr.id, &c->hdr))
		return 0;
	/* a later fd of a map whose facts are written: nothing new */
	if (!want && facts_written(k->facts, PD_MAP, c->hdr.id))
		return 0;
	m = facts_map(k->facts, c->hdr.id, NULL);
	if (!m)
		return -ENOMEM;
	want = creator_wanted(k, c->hdr.id);
	if (want && c->hdr.tid == (__u32)*want) {
		origin_from(&m->origin, &c->hdr);
		m->origin.loader = loader_of(k, &c->hdr);
		*want = 0;
	}
	/* existed at start: synthesised by syscall */
	if (m->flags & (PD_F_CAPTURED | PD_F_SYSCALL))
		return 0;
	m->flags |= PD_F_CAPTURED;
	m->type = c->type;
	m->key_size = c->key_size;
	m->value_size = c->value_size;
	m->max_entries = c->max_entries;
	m->map_flags = c->flags;
	m->btf_id = c->btf_id;
	m->btf_key_type_id = c->btf_key_type_id;
	m->btf_value_type_id = c->btf_value_type_id;
	memcpy(m->name, c->name, sizeof(m->name));
	m->name[sizeof(m->name) - 1] = 0;
	if (!want) {
		origin_from(&m->origin, &c->hdr);
		m->origin.loader = loader_of(k, &c->hdr);
	}
	return captured_record(k, PD_MAP, c->hdr.id, &c->hdr);
}

/*
 * The MAP_CREATE record of @m, from its creating task: a capture of
 * another task (that opened it by id first) does not name the creator.
 * Until the creator's own capture comes, the record says who it is.
 */
static int map_recorded(struct sink *k, struct pd_map *m, const struct pd_sample *s)
{
	__u64 *want;

	if (m->origin.tid == s->tid || (m->flags & PD_F_SYNTHESISED))
		return 0;
	memset(&m->origin, 0, sizeof(m->origin));
	m->origin.pid = s->pid;
	m->origin.tid = s->tid;
	m->origin.time = s->time;
	want = hashmap_add(&k->creators, m->id, NULL);
	if (!want)
		return -ENOMEM;
	*want = 1ULL << 32 | s->tid;
	return 0;
}

/* What a captured link is attached to, as a person would name it. */
static bool link_target(char *dst, size_t len, const struct cap_link *c)
{
	char path[PD_TARGET_LEN - 32];
	bool cut;

	switch (c->target_kind) {
	case CAP_TARGET_CGROUP:
		join_path(path, sizeof(path), &c->path, &cut);
		snprintf(dst, len, "cgroup %s", path);
		return true;
	case CAP_TARGET_DEV:
		snprintf(dst, len, "ifindex %u %.16s netns %u", c->ifindex, c->ifname, c->netns);
		return true;
	case CAP_TARGET_NETNS:
		snprintf(dst, len, "netns %u", c->netns);
		return true;
	case CAP_TARGET_STRUCT_OPS:
		snprintf(dst, len, "struct_ops %.16s", c->ifname);
		return true;
	case CAP_TARGET_UPROBE:
		join_path(path, sizeof(path), &c->path, &cut);
		snprintf(dst, len, "uprobe %s+0x%llx", path, (unsigned long long)c->offset);
		return true;
	}
	if (c->attach_func[0] && c->module[0] && strcmp(c->module, "vmlinux"))
		snprintf(dst, len, "%.64s [%.56s]", c->attach_func, c->module);
	else if (c->attach_func[0])
		snprintf(dst, len, "%.64s", c->attach_func);
	else if (c->tp_name[0])
		snprintf(dst, len, "raw_tp %.64s", c->tp_name);
	else if (c->attach_btf_id)
		snprintf(dst, len, "btf_id %u", c->attach_btf_id);
	else
		return false;
	return c->attach_func[0] || c->tp_name[0];
}

static int on_link(struct sink *k, const struct cap_link *c)
{
	struct pd_link *l, s = {};
	bool named;

	if (!tenant_keeps(k, PD_LINK, c->hdr.id, &c->hdr))
		return 0;
	l = facts_link(k->facts, c->hdr.id, NULL);
	if (!l)
		return -ENOMEM;
	l->flags |= PD_F_CAPTURED;
	l->type = c->type;
	l->prog_id = c->prog_id;
	l->attach_type = c->attach_type;
	named = link_target(l->target, sizeof(l->target), c);
	origin_from(&l->origin, &c->hdr);
	l->origin.loader = loader_of(k, &c->hdr);
	/*
	 * A name reads better than the syscall's "btf_id N obj M", and the
	 * syscall would add nothing else: its fd may then hold the last
	 * reference, and the detach would happen in the recorder.  Without
	 * one, the syscall names more targets (iter, ...).
	 */
	if (!named && !resolve_link(c->hdr.id, &s)) {
		l->flags |= PD_F_SYSCALL;
		if (s.target[0])
			memcpy(l->target, s.target, sizeof(l->target));
	}
	return captured_record(k, PD_LINK, c->hdr.id, &c->hdr);
}

/* A link detached or updated by a bpf() call: its record, on kernels that write none. */
static int on_link_change(struct sink *k, const struct cap_link_change *c)
{
	struct pd_bpf_event e = {
		.type = c->hdr.kind == CAP_LINK_DETACH ? PERF_BPF_EVENT_LINK_DETACH :
			PERF_BPF_EVENT_LINK_UPDATE,
		.flags = c->type,
		.marks = PD_BPF_EVENT_FLAG_CAPTURED,
		.id = c->hdr.id,
		.described = true,
		.desc.link = {
			.prog_id = c->prog_id,
			.attach_type = c->attach_type,
			.old_prog_id = c->old_prog_id,
		},
	};
	struct pd_sample s;

	if (!k->write_records || !k->w || !tenant_follows(k, PD_LINK, c->hdr.id))
		return 0;
	/* who did it: a task of another tenant is named when it changed the tenant's link */
	loader_of(k, &c->hdr);
	capture_sample(k, &c->hdr, &s);
	return pd_write_bpf_object(k->w, &e, &s);
}

/*
 * The attachment a legacy detach ends: the latest one of the cgroup and
 * attach type with its program (any program, when the detach named none).
 */
static struct sink_legacy *legacy_find(struct sink *k, const struct cap_legacy *c)
{
	size_t i = k->nr_legacy;

	while (i--) {
		struct sink_legacy *a = &k->legacy[i];

		if (a->cgroup_id == c->target_id && a->attach_type == c->attach_type &&
		    (!c->hdr.id || a->prog_id == c->hdr.id))
			return a;
	}
	return NULL;
}

/*
 * A legacy attachment made or ended (BPF_PROG_ATTACH, BPF_PROG_DETACH of
 * a cgroup program): no link, so no kernel writes a record of it, with
 * the series or without.  It is written as a link's LINK_ATTACH and
 * LINK_DETACH, marked legacy, with an id of bpfrec's (PD_LEGACY_ID_BASE
 * and above) that the two share, and facts that name the cgroup; a
 * detach of an attachment made before the recording gets an id of its
 * own.
 */
static int on_legacy(struct sink *k, const struct cap_legacy *c)
{
	bool attach = c->hdr.kind == CAP_LEGACY_ATTACH;
	struct pd_bpf_event e = {
		.type = attach ? PERF_BPF_EVENT_LINK_ATTACH : PERF_BPF_EVENT_LINK_DETACH,
		.flags = BPF_LINK_TYPE_CGROUP,
		.marks = PD_BPF_EVENT_FLAG_CAPTURED | PD_BPF_EVENT_FLAG_LEGACY,
		.described = true,
		.desc.link = { .prog_id = c->hdr.id, .attach_type = c->attach_type },
	};
	struct sink_legacy *a = attach ? NULL : legacy_find(k, c);
	char path[PD_TARGET_LEN - 8];
	struct pd_sample s;
	struct pd_link *l;
	bool cut;
	int err;

	if (!k->w)
		return 0;
	/*
	 * With a tenant: the program's verdict (an attachment of the
	 * tenant's program, by whomever), else the task's; an attachment
	 * found alive was kept.
	 */
	if (k->tenant && !a) {
		enum tenant_verdict v = c->hdr.id ? tenant_verdict(k->tenant, PD_PROG, c->hdr.id) :
					TENANT_UNDECIDED;

		if (v == TENANT_UNDECIDED)
			v = tenant_task_of(k, &c->hdr) ? TENANT_KEEP : TENANT_DROP;
		if (v != TENANT_KEEP) {
			k->tenant->left_out++;
			return 0;
		}
	}
	loader_of(k, &c->hdr);
	if (a) {
		e.id = a->id;
		if (!e.desc.link.prog_id)
			e.desc.link.prog_id = a->prog_id;
		*a = k->legacy[--k->nr_legacy];
	} else {
		e.id = PD_LEGACY_ID_BASE + k->legacy_ids++;
		l = facts_link(k->facts, e.id, NULL);
		if (!l)
			return -ENOMEM;
		l->flags |= PD_F_CAPTURED | PD_F_RECORDED;
		l->type = BPF_LINK_TYPE_CGROUP;
		l->prog_id = c->hdr.id;
		l->attach_type = c->attach_type;
		join_path(path, sizeof(path), &c->path, &cut);
		snprintf(l->target, sizeof(l->target), "cgroup %s", path);
		origin_from(&l->origin, &c->hdr);
		l->origin.loader = loader_of(k, &c->hdr);
		err = facts_write_now(k->facts, PD_LINK, e.id);
		if (err)
			return err;
	}
	if (attach) {
		if (array_room(&k->legacy, &k->cap_legacy, k->nr_legacy, sizeof(*k->legacy)))
			return -ENOMEM;
		k->legacy[k->nr_legacy++] = (struct sink_legacy){
			.cgroup_id = c->target_id, .attach_type = c->attach_type,
			.prog_id = c->hdr.id, .id = e.id,
		};
	}
	capture_sample(k, &c->hdr, &s);
	return pd_write_bpf_object(k->w, &e, &s);
}

/*
 * The instructions' hash, for the facts of program @id (read back if
 * written); with --keep-insns, the instructions themselves, while the
 * budget lasts.
 */
static int keep_insns(struct sink *k, __u32 id, const void *insns, size_t len)
{
	int err;

	if (!k->keep_insns || !k->w)
		return 0;
	if (len > k->insns_budget - k->insns_bytes) {
		k->insns_over++;
		return 0;
	}
	err = pd_writer_add_insns(k->w, id, insns, len);
	if (err == -EINVAL) {
		k->insns_over++;
		return 0;
	}
	if (!err) {
		k->insns_kept++;
		k->insns_bytes += len;
	}
	return err;
}

static int prog_hashed(void *ctx, __u32 id, const __u8 *sha256, const void *insns, size_t len)
{
	struct sink *k = ctx;
	struct pd_prog *p = facts_prog(k->facts, id, NULL);

	if (!p)
		return -ENOMEM;
	memcpy(p->sha256, sha256, sizeof(p->sha256));
	p->flags |= PD_F_SHA256;
	return keep_insns(k, id, insns, len);
}

int sink_prog_xlated(struct sink *k, struct pd_prog *p)
{
	size_t len;
	void *insns;
	int err;

	if (p->flags & PD_F_SHA256)
		return 0;
	err = resolve_prog_xlated(p->id, PD_INSNS_MAX, &insns, &len);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (!prog_insns_sha256(&k->insns, insns, len, p->sha256))
		p->flags |= PD_F_SHA256;
	err = keep_insns(k, p->id, insns, len);
	free(insns);
	return err;
}

/* The name perf gives image @i of @p in its BPF_METADATA records (synthesize_bpf_prog_name()). */
static void meta_prog_name(const struct pd_prog *p, __u32 i, __u32 nr, char *buf, size_t len)
{
	const __u8 *tag = i < p->nr_ksyms ? p->sub_tags[i] : p->tag;
	int n;

	n = snprintf(buf, len, "bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x", tag[0], tag[1],
		     tag[2], tag[3], tag[4], tag[5], tag[6], tag[7]);
	if (i < p->nr_func_names && p->func_names[i])
		snprintf(buf + n, len - n, "_%s", p->func_names[i]);
	else if (!p->nr_func_info && nr == 1 && p->name[0])
		snprintf(buf + n, len - n, "_%s", p->name);
	else if (!p->nr_func_info)
		snprintf(buf + n, len - n, "_F");
}

/* The bpf_metadata_* variables the capture read at load. */
static int on_prog_meta(struct sink *k, const struct cap_prog_meta *m)
{
	struct pd_prog *p = facts_prog(k->facts, m->id, NULL);
	char name[256];
	__u32 i, nr;
	int err;

	if (!p)
		return -ENOMEM;
	err = meta_from_capture(p, m);
	if (err || !k->perf_meta || !k->w)
		return err;
	/* perf writes one record per image, named as the kernel names it */
	nr = p->nr_ksyms ? p->nr_ksyms : 1;
	for (i = 0; i < nr && !err; i++) {
		meta_prog_name(p, i, nr, name, sizeof(name));
		err = pd_write_bpf_metadata(k->w, name, p->meta, p->nr_meta);
	}
	return err;
}

static int on_btf(struct sink *k, const struct cap_btf *c)
{
	struct pd_btf *b;

	if (!tenant_keeps(k, PD_BTF, c->hdr.id, &c->hdr))
		return 0;
	b = facts_btf(k->facts, c->hdr.id, NULL);
	if (!b)
		return -ENOMEM;
	b->flags |= PD_F_CAPTURED;
	b->size = c->size;
	b->kernel = c->kernel;
	memcpy(b->name, c->name, sizeof(b->name));
	b->name[sizeof(b->name) - 1] = 0;
	origin_from(&b->origin, &c->hdr);
	b->origin.loader = loader_of(k, &c->hdr);
	return captured_record(k, PD_BTF, c->hdr.id, &c->hdr);
}

/*
 * A piece of instructions and a program's metadata are sent as long as
 * they are, not as long as their struct: whether @size bytes hold what the
 * record says it holds.
 */
static bool insns_whole(const struct cap_prog_insns *c, size_t size)
{
	size_t head = offsetof(struct cap_prog_insns, data);

	return size >= head && c->len <= size - head;
}

static bool meta_whole(const struct cap_prog_meta *m, size_t size)
{
	size_t head = offsetof(struct cap_prog_meta, vars);

	return size >= head && m->nr <= CAP_META_MAX &&
	       m->nr <= (size - head) / sizeof(m->vars[0]);
}

int sink_capture(void *ctx, void *data, size_t size)
{
	const struct cap_hdr *h = data;
	struct sink *k = ctx;

	/* every record starts with its kind and id; each kind's size is checked below */
	if (size < offsetof(struct cap_hdr, time))
		return 0;
	switch (h->kind) {
	case CAP_PROG_LOAD:
		return size >= sizeof(struct cap_prog) ? on_prog(k, data) : 0;
	case CAP_MAP_CREATE:
		return size >= sizeof(struct cap_map) ? on_map(k, data) : 0;
	case CAP_LINK_ATTACH:
		return size >= sizeof(struct cap_link) ? on_link(k, data) : 0;
	case CAP_BTF_LOAD:
		return size >= sizeof(struct cap_btf) ? on_btf(k, data) : 0;
	case CAP_TASK:
		return size >= sizeof(struct cap_task) ? on_task(k, data) : 0;
	case CAP_LINK_DETACH:
	case CAP_LINK_UPDATE:
		return size >= sizeof(struct cap_link_change) ? on_link_change(k, data) : 0;
	case CAP_LEGACY_ATTACH:
	case CAP_LEGACY_DETACH:
		return size >= sizeof(struct cap_legacy) ? on_legacy(k, data) : 0;
	case CAP_PROG_MAPS:
		/* of a program the tenant's verdict left out: nothing to put together */
		if (k->tenant && tenant_verdict(k->tenant, PD_PROG, h->id) != TENANT_KEEP)
			return 0;
		return size >= sizeof(struct cap_prog_maps) ? prog_insns_maps(&k->insns, data) : 0;
	case CAP_PROG_INSNS:
		if (k->tenant && tenant_verdict(k->tenant, PD_PROG, h->id) != TENANT_KEEP)
			return 0;
		return insns_whole(data, size) ? prog_insns_piece(&k->insns, data, prog_hashed, k) : 0;
	case CAP_PROG_META:
		if (k->tenant && tenant_verdict(k->tenant, PD_PROG, h->id) != TENANT_KEEP)
			return 0;
		return meta_whole(data, size) ? on_prog_meta(k, data) : 0;
	}
	return 0;
}

struct lost_body {
	struct perf_event_header header;
	__u64 id;
	__u64 lost;
};


/* The kind of object a BPF_EVENT type is about. */
static bool kind_of(__u16 type, enum pd_kind *kind)
{
	enum pd_bpf_change change;

	return pd_bpf_event_kind(type, kind, &change);
}

/* A described object created by the task of @s, as far as the record tells. */
static void origin_recorded(struct pd_origin *o, const struct pd_sample *s)
{
	if (!s || o->pid || o->comm[0])
		return;
	o->pid = s->pid;
	o->tid = s->tid;
	o->time = s->time;
}

/*
 * Facts for an object a record announces, unless the capture had them.
 * Returns true when still unknown: with the capture running that is the
 * normal case, its fact may come after the record (bpf() exit hook).
 */
static bool resolve_announced(struct sink *k, const struct pd_bpf_event *e,
			      const struct pd_sample *s, bool now)
{
	struct pd_prog *p;
	struct pd_map *m;
	struct pd_link *l;
	struct pd_btf *b;

	switch (e->type) {
	case PERF_BPF_EVENT_PROG_LOAD:
		p = facts_prog(k->facts, e->id, NULL);
		if (!p)
			return false;
		p->flags |= PD_F_RECORDED;
		if (p->flags & PD_F_KNOWN)
			return false;
		/* until resolved, the record's tag is all there is */
		memcpy(p->tag, e->tag, sizeof(p->tag));
		if (!now)
			return true;
		prog_add_syscall(p);
		if ((p->flags & PD_F_SYSCALL) && p->btf_id)
			facts_want_btf(k->facts, p->btf_id);
		break;
	case PERF_BPF_EVENT_MAP_CREATE:
		m = facts_map(k->facts, e->id, NULL);
		if (!m)
			return false;
		m->flags |= PD_F_RECORDED;
		if (s)
			map_recorded(k, m, s);
		if (m->flags & PD_F_KNOWN)
			return false;
		if (e->described) {
			map_from_desc(m, e);
			return false;
		}
		m->type = e->flags;
		if (!now)
			return true;
		resolve_map(e->id, m);
		break;
	case PERF_BPF_EVENT_LINK_ATTACH:
		l = facts_link(k->facts, e->id, NULL);
		if (!l)
			return false;
		l->flags |= PD_F_RECORDED;
		if (l->flags & PD_F_KNOWN)
			return false;
		if (e->described) {
			link_from_desc(l, e);
			origin_recorded(&l->origin, s);
			return false;
		}
		l->type = e->flags;
		if (!now)
			return true;
		resolve_link(e->id, l);
		break;
	case PERF_BPF_EVENT_BTF_LOAD:
		b = facts_btf(k->facts, e->id, NULL);
		if (!b)
			return false;
		b->flags |= PD_F_RECORDED;
		if (b->flags & PD_F_KNOWN)
			return false;
		if (e->described) {
			btf_from_desc(b, e);
			origin_recorded(&b->origin, s);
			return false;
		}
		b->kernel = e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL;
		if (!now)
			return true;
		resolve_btf(e->id, b, false);
		break;
	}
	return false;
}

/* A program of this drain's capture unloaded: no syscall for it. */
static int note_gone(struct sink *k, __u32 id)
{
	if (array_room(&k->gone, &k->cap_gone, k->nr_gone, sizeof(*k->gone)))
		return -ENOMEM;
	k->gone[k->nr_gone++] = id;
	return 0;
}

/*
 * The record of an object whose facts are still to come, held until they
 * are; @s is its sample id (NULL if none), for the task that emitted it.
 */
static int hold(struct sink *k, const struct pd_bpf_event *e, const struct perf_event_header *hdr,
		const struct pd_sample *s)
{
	struct sink_held *h;

	if (array_room(&k->pending, &k->cap_pending, k->nr_pending, sizeof(*k->pending)))
		return -ENOMEM;
	h = &k->pending[k->nr_pending++];
	h->e = *e;
	h->tid = s ? s->tid : 0;
	h->call_over = false;
	memcpy(h->raw, hdr, hdr->size);
	return 0;
}

/* A KSYMBOL record of a BPF image: its address, else 0. */
static __u64 bpf_ksym_addr(const struct perf_event_header *hdr)
{
	const struct {
		__u64 addr;
		__u32 len;
		__u16 ksym_type;
		__u16 flags;
	} *b = (const void *)(hdr + 1);

	if (hdr->type != PERF_RECORD_KSYMBOL || hdr->size < sizeof(*hdr) + sizeof(*b) ||
	    b->ksym_type != PERF_RECORD_KSYMBOL_TYPE_BPF)
		return 0;
	return b->addr;
}

/*
 * With a tenant: whether held record @h is to be written, now that the
 * capture had a drain's time to decide on its object; what was not
 * decided is not the tenant's, as far as anyone can tell.
 */
static bool tenant_releases(struct sink *k, const struct sink_held *h)
{
	const struct perf_event_header *hdr = (const void *)h->raw;
	enum pd_kind kind;
	__u64 addr, *v;

	if (!k->tenant)
		return true;
	addr = bpf_ksym_addr(hdr);
	if (addr) {
		v = hashmap_find(&k->ksym_verdicts, addr);
		if (v && *v == TENANT_KEEP)
			return true;
	} else if (kind_of(h->e.type, &kind) &&
		   tenant_verdict(k->tenant, kind, h->e.id) == TENANT_KEEP) {
		return true;
	}
	k->tenant->left_out++;
	return false;
}

/*
 * A held record, once its object is resolved by id if it still needs
 * to be (or marked unresolved): its facts, then itself.  A KSYMBOL
 * record (held with a tenant) is only itself.
 */
static int write_held(struct sink *k, const struct sink_held *h)
{
	const struct perf_event_header *hdr = (const void *)h->raw;
	enum pd_kind kind;
	int err = 0;

	if (bpf_ksym_addr(hdr))
		return pd_write_raw(k->w, hdr);

	resolve_announced(k, &h->e, NULL, true);
	if (kind_of(h->e.type, &kind)) {
		facts_give_up(k->facts, kind, h->e.id);
		err = facts_write_now(k->facts, kind, h->e.id);
	}
	return err ? err : pd_write_raw(k->w, hdr);
}

static int release_held(struct sink *k, const struct sink_held *h)
{
	return tenant_releases(k, h) ? write_held(k, h) : 0;
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether held record @h still waits for what the capture says of its
 * object: its facts, or with a tenant its verdict.
 */
static bool awaits_capture(struct sink *k, const struct sink_held *h)
{
	const struct perf_event_header *hdr = (const void *)h->raw;
	__u64 addr = bpf_ksym_addr(hdr);
	enum pd_kind kind;

	if (k->tenant) {
		if (addr)
			return !hashmap_find(&k->ksym_verdicts, addr);
		if (kind_of(h->e.type, &kind) &&
		    tenant_verdict(k->tenant, kind, h->e.id) == TENANT_UNDECIDED)
			return true;
	}
	return !addr && resolve_announced(k, &h->e, NULL, false);
}

/*
 * Whether held record @h is to wait another drain for the capture.  The
 * syscall path sends an object's facts when its task leaves bpf(), and
 * a task can be preempted between the kernel's record and that exit for
 * longer than a drain.  So a record waits as long as its task is in a
 * creating call, and one drain more once it is out: the facts are in the
 * ring before the call's entry goes (call_end()), but may have missed
 * the capture's drain that came just before.
 */
static bool still_coming(struct sink *k, struct sink_held *h)
{
	if (!k->cap || !h->tid || !awaits_capture(k, h))
		return false;
	if (capture_in_call(k->cap, h->tid)) {
		h->call_over = false;
		return true;
	}
	if (h->call_over)
		return false;
	h->call_over = true;
	return true;
}

/*
 * Held since an earlier drain: their facts came with this drain's
 * capture, or come later (still_coming()), or the capture missed them
 * (its buffer was full, a hook is missing) and they are asked by id now,
 * while a short-lived object may still exist, not at the end of the
 * recording.  Those that wait stay first, in their order.
 */
static int resolve_older(struct sink *k)
{
	size_t i, kept = 0;
	int err = 0;

	for (i = 0; i < k->nr_older && !err; i++) {
		if (still_coming(k, &k->pending[i])) {
			k->pending[kept++] = k->pending[i];
			continue;
		}
		/* the capture's self-check: it should have had them by now */
		if (!tenant_releases(k, &k->pending[i]))
			continue;
		if (resolve_announced(k, &k->pending[i].e, NULL, false))
			capture_missed(k->cap, &k->pending[i].e);
		err = write_held(k, &k->pending[i]);
	}
	memmove(k->pending + kept, k->pending + k->nr_older,
		(k->nr_pending - k->nr_older) * sizeof(*k->pending));
	k->nr_pending -= k->nr_older - kept;
	k->nr_older = k->nr_pending;
	k->nr_late = kept;
	return err;
}

bool sink_holds_late(const struct sink *k)
{
	return k->nr_late;
}

int sink_ask(struct sink *k)
{
	struct pd_prog *p;
	size_t i;
	int err = 0;

	if (k->nr_pending)
		err = resolve_older(k);

	/* both arrays are NULL until first used, and libc wants none */
	if (k->nr_gone)
		qsort(k->gone, k->nr_gone, sizeof(*k->gone), cmp_id);
	for (i = 0; i < k->nr_ask && !err; i++) {
		if (k->nr_gone &&
		    bsearch(&k->ask[i], k->gone, k->nr_gone, sizeof(*k->gone), cmp_id))
			continue;
		p = facts_prog(k->facts, k->ask[i], NULL);
		if (!p) {
			err = -ENOMEM;
			break;
		}
		prog_add_syscall(p);
		if ((p->flags & PD_F_SYSCALL) && p->btf_id)
			facts_want_btf(k->facts, p->btf_id);
	}
	k->nr_ask = k->nr_gone = 0;
	/* what is known now goes to the file, and out of memory */
	return err ? err : facts_flush(k->facts);
}

/* After the last drain: the held records, what the capture did not report asked by id. */
int sink_finish(struct sink *k)
{
	size_t i;
	int err = 0;

	for (i = 0; i < k->nr_pending && !err; i++)
		err = release_held(k, &k->pending[i]);
	free(k->pending);
	k->pending = NULL;
	k->nr_pending = k->cap_pending = k->nr_older = k->nr_late = 0;
	free(k->ask);
	free(k->gone);
	k->ask = k->gone = NULL;
	k->nr_ask = k->cap_ask = k->nr_gone = k->cap_gone = 0;
	hashmap_free(&k->creators);
	sink_free(k);
	return err;
}

int sink_scan(struct sink *k)
{
	return k->write_records && k->w ? gone_scan(&k->scan, k->w, k->event_id) : 0;
}

/* Idempotent: sink_finish() calls it, and so may a recorder that stops early. */
void sink_free(struct sink *k)
{
	gone_free(&k->scan);
	hashmap_free(&k->loaders);
	free(k->legacy);
	k->legacy = NULL;
	free(k->loader_defs);
	k->loader_defs = NULL;
	k->cap_loader_defs = 0;
	hashmap_free(&k->ksym_verdicts);
	k->nr_legacy = k->cap_legacy = 0;
	prog_insns_free(&k->insns);
}

static int on_bpf_event(struct sink *k, const struct perf_event_header *hdr,
			const struct pd_bpf_event *bpf, const struct pd_sample *s)
{
	enum pd_kind kind;
	int err;

	/* task names only, which the kernel's COMM records give of every task anyway */
	err = names_seen(&k->names, s);
	if (!err && k->linger)
		err = linger_record(k->linger, bpf->type, bpf->id, s->pid);
	if (err)
		return err;
	/*
	 * With a tenant, a record is written only once its object's verdict
	 * says so: those of objects not decided yet (the capture comes after
	 * the kernel's record) wait a drain for it, whatever they say.
	 */
	if (k->tenant && kind_of(bpf->type, &kind)) {
		switch (tenant_verdict(k->tenant, kind, bpf->id)) {
		case TENANT_KEEP:
			break;
		case TENANT_UNDECIDED:
			if (hdr->size <= sizeof(k->pending->raw))
				return hold(k, bpf, hdr, s);
			/* fall through */
		default:
			k->tenant->left_out++;
			return 0;
		}
	}
	if (bpf->type == PERF_BPF_EVENT_PROG_UNLOAD && k->nr_ask) {
		err = note_gone(k, bpf->id);
		if (err)
			return err;
	}
	/* without capture, resolve now like perf: the object may live on */
	if (resolve_announced(k, bpf, s, !k->cap) && hdr->size <= sizeof(k->pending->raw))
		return hold(k, bpf, hdr, s);
	err = kind_of(bpf->type, &kind) ? facts_write_now(k->facts, kind, bpf->id) : 0;
	return err ? err : pd_write_raw(k->w, hdr);
}

/*
 * With a tenant, the KSYMBOL record of a BPF image: written when the image
 * is a kept program's.  A new image waits a drain for its program's
 * capture (which also decides on an address a freed program had), and so
 * does the removal of an image not decided yet.
 */
static int on_tenant_ksym(struct sink *k, const struct perf_event_header *hdr,
			  const struct pd_sample *s)
{
	const __u64 *v = hashmap_find(&k->ksym_verdicts, bpf_ksym_addr(hdr));
	bool unregister = ((const __u16 *)(hdr + 1))[7] & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
	struct pd_bpf_event none = {};

	if (unregister && v && *v == TENANT_KEEP)
		return pd_write_raw(k->w, hdr);
	if ((unregister && v && *v == TENANT_DROP) || hdr->size > sizeof(k->pending->raw)) {
		k->tenant->left_out++;
		return 0;
	}
	return hold(k, &none, hdr, s);
}

int sink_record(void *ctx, const struct ring *ring, const struct perf_event_header *hdr)
{
	const __u32 *pid_tid = (const void *)(hdr + 1);
	struct sink *k = ctx;
	__u64 fixed[PD_REPAIR_MAX / 8];
	struct pd_bpf_event bpf;
	struct pd_sample s;
	size_t trailer;
	bool has_s;
	int err;

	/* another listener on the CPU made it longer: its trailer is after the body */
	if (pd_repair(ring->attr, hdr, fixed)) {
		hdr = (const void *)fixed;
		k->repaired++;
	}
	k->records++;
	has_s = !pd_sample_id_decode(ring->attr, hdr, &s);
	trailer = pd_sample_id_size(ring->attr);
	/* the record is written as it came, its description with it */
	if (hdr->type == PERF_RECORD_BPF_EVENT && has_s && hdr->size >= sizeof(*hdr) + trailer &&
	    pd_bpf_event_decode(hdr + 1, hdr->size - sizeof(*hdr) - trailer, &bpf))
		return on_bpf_event(k, hdr, &bpf, &s);
	if (k->tenant && bpf_ksym_addr(hdr)) {
		err = has_s ? names_seen(&k->names, &s) : 0;
		return err ? err : on_tenant_ksym(k, hdr, has_s ? &s : NULL);
	}
	err = pd_write_raw(k->w, hdr);
	if (err)
		return err;
	switch (hdr->type) {
	case PERF_RECORD_LOST:
		if (hdr->size >= sizeof(struct lost_body))
			k->lost_records += ((const struct lost_body *)hdr)->lost;
		break;
	case PERF_RECORD_COMM:
		if (has_s)
			return names_comm(&k->names, pid_tid[1]);
		break;
	case PERF_RECORD_KSYMBOL:
		if (has_s)
			return names_seen(&k->names, &s);
		break;
	}
	return 0;
}
