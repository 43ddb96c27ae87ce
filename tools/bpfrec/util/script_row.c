// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of `script` (util/script_row.h): a BPF object's from its
 * record and the file's facts, a KSYMBOL's, a LOST's, a sample's with its
 * symbol and stack, and what the user's objects sent, decoded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "util/bpf_desc.h"
#include "util/script_row.h"

const char *script_row_kind_name(int k)
{
	static const char *const others[SR_NR_KINDS - PD_NR_KINDS] = { "ksymbol", "lost", "output" };

	return k < PD_NR_KINDS ? pd_kind_name(k) : others[k - PD_NR_KINDS];
}

static void kv_num(struct script_row *r, const char *key, enum sr_kv_kind kind, __u64 v)
{
	if (r->nr_kv < SR_MAX_DETAILS)
		r->kv[r->nr_kv++] = (struct sr_kv){ .key = key, .kind = kind, .num = v };
}

static void kv_str(struct script_row *r, const char *key, const char *s)
{
	if (r->nr_kv < SR_MAX_DETAILS)
		r->kv[r->nr_kv++] = (struct sr_kv){ .key = key, .kind = SR_KV_STR, .str = s };
}

static void kv_flag(struct script_row *r, const char *key)
{
	kv_num(r, key, SR_KV_FLAG, 1);
}

static const char *type_name(struct script_row *r, const char *s, const char *kind,
			     __u32 type)
{
	if (s)
		return s;
	snprintf(r->type_buf, sizeof(r->type_buf), "%s_type_%u", kind, type);
	return r->type_buf;
}

static void set_tag(struct script_row *r, const __u8 *tag)
{
	static const __u8 zero[BPF_TAG_SIZE];
	int i;

	if (!memcmp(tag, zero, BPF_TAG_SIZE))
		return;
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(r->tag + 2 * i, 3, "%02x", tag[i]);
}

/* "a,b,c" of at most the room in @buf; a list cut short ends in "...". */
static void join(char *buf, size_t len, __u32 n, const __u32 *ids,
		 char *const *names)
{
	size_t pos = 0;
	__u32 i;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++) {
		int w = ids ? snprintf(buf + pos, len - pos, "%s%u", i ? "," : "",
				       ids[i])
			    : snprintf(buf + pos, len - pos, "%s%s", i ? "," : "",
				       names[i]);

		if (w < 0 || (size_t)w >= len - pos) {
			snprintf(buf + (len > 4 ? len - 4 : 0), 4, "...");
			return;
		}
		pos += w;
	}
}

/*
 * A program's full name: its main function's in BTF, else its image's
 * (the kernel names the image after that function too), else the 15
 * characters of bpf_prog_info.  The image's name of a resolved program is
 * taken only when it extends the info's: a pairing gone wrong (a record
 * lost) cannot rename a program.
 */
static const char *prog_name(const struct pd_prog *p, const char *ksym)
{
	bool resolved = p && !(p->flags & PD_F_UNRESOLVED);

	if (resolved && p->nr_func_names && p->func_names[0][0])
		return p->func_names[0];
	if (ksym && (!resolved || !strncmp(ksym, p->name, strlen(p->name))))
		return ksym;
	return resolved && p->name[0] ? p->name : NULL;
}

static void prog_row(struct script_row *r, struct pd_reader *rd, bool load)
{
	const struct pd_prog *p = pd_reader_prog(rd, r->id);

	set_tag(r, r->e->bpf.tag);
	r->name = prog_name(p, r->e->ksym_name);
	if (!p || (p->flags & PD_F_UNRESOLVED)) {
		kv_flag(r, "unresolved");
		return;
	}
	r->type = type_name(r, libbpf_bpf_prog_type_str(p->type), "prog",
			    p->type);
	if (!r->tag[0])
		set_tag(r, p->tag);
	if (p->flags & PD_F_OBJECT)
		kv_flag(r, "user-object");
	if (!load)
		return;
	if (p->flags & PD_F_SYNTHESISED)
		kv_flag(r, "synthesised");
	if (p->jited_len)
		kv_num(r, "jited", SR_KV_U64, p->jited_len);
	if (p->xlated_len)
		kv_num(r, "xlated", SR_KV_U64, p->xlated_len);
	if (p->nr_map_ids) {
		join(r->scratch[0], sizeof(r->scratch[0]), p->nr_map_ids,
		     p->map_ids, NULL);
		kv_str(r, "maps", r->scratch[0]);
	}
	if (p->btf_id)
		kv_num(r, "btf", SR_KV_U64, p->btf_id);
	if (p->nr_func_names) {
		join(r->scratch[1], sizeof(r->scratch[1]), p->nr_func_names,
		     NULL, p->func_names);
		kv_str(r, "funcs", r->scratch[1]);
	}
	if (p->nr_lines)
		kv_num(r, "lines", SR_KV_U64, p->nr_lines);
	if (p->origin.comm[0] || p->origin.pid || p->origin.uid)
		kv_num(r, "uid", SR_KV_U64, p->origin.uid);
	/* copied: the facts may be gone from the reader's cache when the row is printed */
	for (r->nr_meta = 0; (p->flags & PD_F_META) && r->nr_meta < p->nr_meta &&
	     r->nr_meta < PD_META_MAX; r->nr_meta++) {
		memcpy(r->meta_key[r->nr_meta], p->meta[r->nr_meta].key, PD_META_KEY_LEN);
		memcpy(r->meta_value[r->nr_meta], p->meta[r->nr_meta].value, PD_META_VALUE_LEN);
		r->meta_key[r->nr_meta][PD_META_KEY_LEN - 1] = '\0';
		r->meta_value[r->nr_meta][PD_META_VALUE_LEN - 1] = '\0';
	}
	if (r->nr_meta)
		kv_num(r, "metadata", SR_KV_META, r->nr_meta);
}

/*
 * The marks of a map, a link or BTF: "unresolved" when neither its facts
 * nor its record describe it (@known false: nothing more is said of it),
 * "user-object" of the user's objects, "synthesised" on the creation of
 * one that existed before the recording.
 */
static bool object_marks(struct script_row *r, bool known, __u32 flags, bool create)
{
	if (!known) {
		kv_flag(r, "unresolved");
		return false;
	}
	if (flags & PD_F_OBJECT)
		kv_flag(r, "user-object");
	if (create && (flags & PD_F_SYNTHESISED))
		kv_flag(r, "synthesised");
	return true;
}

/*
 * A map's name and type, and on its creation what it holds: from the
 * description its record carries, else from the facts the file has.
 */
static void map_row(struct script_row *r, struct pd_reader *rd, bool create)
{
	const struct pd_map *m = pd_reader_map(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = m && !(m->flags & PD_F_UNRESOLVED);
	__u32 type = e->flags;	/* the record carries the map type */

	if (e->described) {
		r->name = e->desc.map.name;
	} else if (known) {
		type = m->type;
		r->name = m->name;
	}
	r->type = type_name(r, libbpf_bpf_map_type_str(type), "map", type);
	if (!object_marks(r, known || e->described, m ? m->flags : 0, create) || !create)
		return;
	if (e->described) {
		kv_num(r, "key", SR_KV_U64, e->desc.map.key_size);
		kv_num(r, "value", SR_KV_U64, e->desc.map.value_size);
		kv_num(r, "max_entries", SR_KV_U64, e->desc.map.max_entries);
		kv_num(r, "flags", SR_KV_HEX, e->desc.map.map_flags);
		if (e->desc.map.btf_id)
			kv_num(r, "btf", SR_KV_U64, e->desc.map.btf_id);
		return;
	}
	kv_num(r, "key", SR_KV_U64, m->key_size);
	kv_num(r, "value", SR_KV_U64, m->value_size);
	kv_num(r, "max_entries", SR_KV_U64, m->max_entries);
	kv_num(r, "flags", SR_KV_HEX, m->map_flags);
	if (m->btf_id)
		kv_num(r, "btf", SR_KV_U64, m->btf_id);
}

/*
 * The program a link record names (a LINK_UPDATE's old one first, and
 * "replace" when the caller named it, BPF_F_REPLACE), and the program's
 * expected attach type: 0 is cgroup_inet_ingress for a cgroup link, and
 * for the others the type they do not use.
 */
static void link_desc(struct script_row *r)
{
	const struct pd_bpf_event *e = &r->e->bpf;
	__u32 type = e->desc.link.attach_type;
	const char *attach = libbpf_bpf_attach_type_str(type);

	if (e->type == PERF_BPF_EVENT_LINK_UPDATE && r->e->old_prog_id)
		kv_num(r, "old_prog", SR_KV_U64, r->e->old_prog_id);
	if (e->desc.link.prog_id)
		kv_num(r, "prog", SR_KV_U64, e->desc.link.prog_id);
	if (e->type == PERF_BPF_EVENT_LINK_UPDATE && e->desc.link.old_prog_id)
		kv_flag(r, "replace");
	if (!type && e->flags != BPF_LINK_TYPE_CGROUP)
		return;
	if (attach)
		kv_str(r, "attach", attach);
	else
		kv_num(r, "attach", SR_KV_U64, type);
}

/*
 * The link's type, the program of its records (a LINK_UPDATE's old one
 * first), and its target: the record's own where the kernel wrote one
 * (a LINK_DETACH names what the link was detached from), else on its
 * creation the facts'.
 */
static void link_row(struct script_row *r, struct pd_reader *rd, bool attach)
{
	const struct pd_link *l = pd_reader_link(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = l && !(l->flags & PD_F_UNRESOLVED);
	__u32 type = e->flags;	/* the record carries the link type */
	char *target = r->target_buf;

	if (known && !e->described)
		type = l->type;
	r->type = type_name(r, libbpf_bpf_link_type_str(type), "link", type);
	if (!object_marks(r, known || e->described, l ? l->flags : 0, attach))
		return;
	if (e->described)
		link_desc(r);
	else if (attach && l->prog_id)
		kv_num(r, "prog", SR_KV_U64, l->prog_id);
	/* a legacy attachment's detach names its cgroup too: it has no link to look up */
	if (e->marks & PD_BPF_EVENT_FLAG_LEGACY)
		kv_flag(r, "legacy");
	if (pd_bpf_link_has_target(e) &&
	    link_target_name(type, &e->desc.link.target, target, sizeof(r->target_buf)))
		kv_str(r, "target", target);
	else if ((attach || (e->marks & PD_BPF_EVENT_FLAG_LEGACY)) && known && l->target[0])
		kv_str(r, "target", l->target);
}

/* vmlinux's, a module's (named after it), or loaded with BPF_BTF_LOAD. */
static void btf_row(struct script_row *r, struct pd_reader *rd, bool load)
{
	const struct pd_btf *b = pd_reader_btf(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = b && !(b->flags & PD_F_UNRESOLVED);

	if (!(e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL))
		kv_flag(r, "user");
	else if (e->flags & PERF_BPF_EVENT_FLAG_BTF_MODULE)
		kv_flag(r, "module");
	else
		kv_flag(r, "kernel");
	if (e->described && pd_bpf_btf_name(e)[0])
		r->name = pd_bpf_btf_name(e);
	else if (known && b->name[0])
		r->name = b->name;
	if (!object_marks(r, known || e->described, b ? b->flags : 0, load) || !load)
		return;
	if (e->described)
		kv_num(r, "size", SR_KV_U64, e->desc.btf.size);
	else if (b->size)
		kv_num(r, "size", SR_KV_U64, b->size);
}

/* The loader of an object's creation, or the task of any other record. */
static const struct pd_loader *row_loader(struct script_row *r, struct pd_reader *rd,
					  enum pd_kind kind, enum pd_bpf_change change)
{
	const struct pd_origin *o = NULL;
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;

	if (change != PD_BPF_CREATE)
		return r->e->has_sample ? pd_reader_loader_of(rd, r->e->sample.tid,
							      r->e->sample.time) : NULL;
	switch (kind) {
	case PD_PROG:
		o = (p = pd_reader_prog(rd, r->id)) ? &p->origin : NULL;
		break;
	case PD_MAP:
		o = (m = pd_reader_map(rd, r->id)) ? &m->origin : NULL;
		break;
	case PD_LINK:
		o = (l = pd_reader_link(rd, r->id)) ? &l->origin : NULL;
		break;
	default:
		o = (b = pd_reader_btf(rd, r->id)) ? &b->origin : NULL;
		break;
	}
	return o ? pd_reader_loader(rd, o->loader) : NULL;
}

/* Who did it (util/bpf_obj.h: pd_loader), how the record was learnt, what the program is. */
static void loader_row(struct script_row *r, struct pd_reader *rd, enum pd_kind kind,
		       enum pd_bpf_change change)
{
	const struct pd_bpf_event *e = &r->e->bpf;
	const struct pd_loader *d = row_loader(r, rd, kind, change);
	const struct pd_prog *p;
	__u64 seen;
	int i;

	if (e->marks & PD_BPF_EVENT_FLAG_CAPTURED)
		kv_flag(r, "captured");
	if (e->marks & PD_BPF_EVENT_FLAG_GONE) {
		memcpy(&seen, e->tag, sizeof(seen));
		kv_num(r, "gone_after", SR_KV_U64, seen);
	}
	if (kind == PD_PROG && change == PD_BPF_CREATE && (p = pd_reader_prog(rd, r->id)) &&
	    (p->flags & PD_F_SHA256)) {
		for (i = 0; i < PD_SHA256_LEN; i++)
			snprintf(r->sha256 + 2 * i, 3, "%02x", p->sha256[i]);
		kv_str(r, "sha256", r->sha256);
	}
	if (!d)
		return;
	if (d->exe[0])
		kv_str(r, "exe", d->exe);
	kv_str(r, "cgroup", d->cgroup);
	kv_num(r, "cgroup_id", SR_KV_U64, d->cgroup_id);
	kv_num(r, "gid", SR_KV_U64, d->gid);
	if (d->loginuid != (__u32)-1)
		kv_num(r, "loginuid", SR_KV_U64, d->loginuid);
	kv_num(r, "ppid", SR_KV_U64, d->ppid);
	kv_str(r, "pcomm", d->pcomm);
}

static void bpf_row(struct script_row *r, struct pd_reader *rd)
{
	__u16 type = r->e->bpf.type;
	enum pd_bpf_change change;
	enum pd_kind kind;

	r->has_id = true;
	r->id = r->e->bpf.id;
	r->event = pd_bpf_event_name(type);
	if (!r->event) {
		snprintf(r->event_buf, sizeof(r->event_buf), "BPF_EVENT_%u", type);
		r->event = r->event_buf;
	}
	if (!pd_bpf_event_kind(type, &kind, &change)) {
		kv_num(r, "flags", SR_KV_HEX, r->e->bpf.flags);
		return;
	}
	switch (kind) {
	case PD_PROG:
		prog_row(r, rd, change == PD_BPF_CREATE);
		break;
	case PD_MAP:
		map_row(r, rd, change == PD_BPF_CREATE);
		break;
	case PD_LINK:
		link_row(r, rd, change == PD_BPF_CREATE);
		break;
	default:
		btf_row(r, rd, change == PD_BPF_CREATE);
		break;
	}
	loader_row(r, rd, kind, change);
}

static void ksymbol_row(struct script_row *r)
{
	const struct tl_event *e = r->e;

	r->event = "KSYMBOL";
	r->name = e->ksymbol.name;
	switch (e->ksymbol.ksym_type) {
	case PERF_RECORD_KSYMBOL_TYPE_BPF:
		r->type = "bpf";
		break;
	case PERF_RECORD_KSYMBOL_TYPE_OOL:
		r->type = "ool";
		break;
	default:
		r->type = type_name(r, NULL, "ksym", e->ksymbol.ksym_type);
		break;
	}
	kv_num(r, "addr", SR_KV_HEX, e->ksymbol.addr);
	kv_num(r, "len", SR_KV_U64, e->ksymbol.len);
	if (e->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
		kv_flag(r, "unregister");
}

/* --decode's struct for @map, NULL when not named. */
static const char *decode_as(const struct script_rows *rs, const char *map, char *buf,
			     size_t len)
{
	int i;

	for (i = 0; i < rs->nr_decode; i++) {
		const char *eq = strchr(rs->decode[i], '=');

		if ((size_t)(eq - rs->decode[i]) == strlen(map) &&
		    !strncmp(rs->decode[i], map, eq - rs->decode[i])) {
			snprintf(buf, len, "%s", eq + 1);
			return buf;
		}
	}
	return NULL;
}

/* The decoder of the output of @event, the channel of @map; NULL when there is none. */
static const struct output_decoder *decoder(struct script_rows *o, const struct timeline *tl,
					    int event, const char *map, size_t size, __u32 *map_id)
{
	char want[128];

	if (!o->nr) {
		o->dec = calloc(tl->info->nr_events, sizeof(*o->dec));
		o->map_id = calloc(tl->info->nr_events, sizeof(*o->map_id));
		o->tried = calloc(tl->info->nr_events, sizeof(*o->tried));
		if (!o->dec || !o->map_id || !o->tried)
			return NULL;
		o->nr = tl->info->nr_events;
	}
	if (!o->tried[event]) {
		o->tried[event] = true;
		o->dec[event] = output_decoder_new(tl->reader, map, decode_as(o, map, want, sizeof(want)),
						   size, &o->map_id[event]);
	}
	*map_id = o->map_id[event];
	return o->dec[event];
}

void script_rows_free(struct script_rows *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		output_decoder_free(rs->dec[i]);
	free(rs->dec);
	free(rs->map_id);
	free(rs->tried);
	rs->dec = NULL;
	rs->map_id = NULL;
	rs->tried = NULL;
	rs->nr = 0;
}

/* ---- samples of the sampled events: -e cpu-clock, tracepoints, off-CPU ---- */

void script_rows_init(struct script_rows *rs, char *const *decode, int nr_decode)
{
	memset(rs, 0, sizeof(*rs));
	rs->users.strs = &rs->user_paths;
	rs->decode = decode;
	rs->nr_decode = nr_decode;
}

/* The view and the mappings of @tl's file, for one pass over it. */
void script_rows_open(struct script_rows *rs, struct timeline *tl, const char *kallsyms,
		      char *warn, size_t len)
{
	tl->samples = true;
	tl->users = &rs->users;
	sample_view_open(&rs->view, tl->reader, kallsyms, warn, len);
}

void script_rows_close(struct script_rows *rs)
{
	sample_view_free(&rs->view);
	user_syms_free(&rs->users);
	intern_free(&rs->user_paths);
}

/*
 * The symbol of @addr and the offset into it, NULL when unknown: kernel
 * and BPF addresses from the view, user ones from @pid's mappings.  A
 * return address (@ret) is named by its call, the byte before: a call
 * that never returns may end its function.  *@dso gets a user frame's
 * file, NULL otherwise.
 */
static const char *addr_sym(struct script_rows *rs, __u32 pid, __u64 addr, bool ret, __u64 *off,
			    const char **dso)
{
	const struct umap *m;
	const char *sym;

	*dso = NULL;
	if (sample_view_where(&rs->view, addr) != SV_USER)
		return sample_view_sym(&rs->view, addr, off);
	m = user_syms_map(&rs->users, pid, addr - ret);
	if (!m)
		return NULL;
	*dso = user_syms_path(&rs->users, m);
	sym = user_syms_name(&rs->users, m, addr - ret, off);
	if (sym)
		*off += ret;
	return sym;
}

static const char *const where_names[] = {
	[SV_USER] = "user", [SV_KERNEL] = "kernel", [SV_BPF] = "bpf",
};

static bool context_marker(__u64 ip);
static const char *frame_sym(struct script_rows *rs, const struct pd_sample *s, __u64 i, __u64 *off,
			     const char **dso);

/* Where the sample hit (TYPE), its symbol (NAME), and what the event says. */
static void sample_row(struct script_rows *rs, struct script_row *r, const struct timeline *tl)
{
	const struct pd_event_info *ev = &tl->info->events[r->e->event];
	const struct pd_sample *s = &r->e->sample;
	struct trace_field f[SR_MAX_DETAILS - 1];
	const char *dso;
	__u64 off;
	int i, n;

	sample_view_kernel_text(&rs->view, tl->kernel_text);
	r->type = where_names[sample_view_where(&rs->view, s->ip)];
	r->name = addr_sym(rs, s->pid, s->ip, false, &off, &dso);
	kv_num(r, "ip", SR_KV_HEX, s->ip);
	switch (sample_view_kind(ev)) {
	case SV_TRACEPOINT:
		r->event = "tracepoint";
		r->type = ev->name ? ev->name : "-";
		n = rs->view.tep ? trace_fields_decode(rs->view.tep, ev->attr.config, s->raw, s->raw_size,
						   f, SR_MAX_DETAILS - 1, r->out, sizeof(r->out)) : -ENOENT;
		if (n < 0)
			kv_str(r, "fields", n == -ENOENT ? "(no format in the file)" : "(too short)");
		for (i = 0; i < n; i++) {
			if (f[i].is_num)
				kv_num(r, f[i].name, SR_KV_U64, f[i].num);
			else
				kv_str(r, f[i].name, f[i].text);
		}
		break;
	case SV_OFFCPU:
		r->event = SV_OFFCPU_EVENT;
		kv_num(r, "off_cpu_ns", SR_KV_U64, s->period);
		/* where the task waits: the first frame that is not the profiler's */
		for (i = 0; ksym_profiler_frame(r->name) && i < (int)s->nr_callchain; i++) {
			if (context_marker(s->callchain[i]))
				continue;
			r->name = frame_sym(rs, s, i, &off, &dso);
			r->type = where_names[sample_view_where(&rs->view, s->callchain[i])];
		}
		break;
	default:
		r->event = ev->name ? ev->name : "sample";
		kv_num(r, "period", SR_KV_U64, s->period);
		break;
	}
}

/* x86's callchain context markers (PERF_CONTEXT_*) are the top 4095 values */
static bool context_marker(__u64 ip)
{
	return ip >= (__u64)-4095;
}

/*
 * Frame @i of @s's stack: its symbol and offset (NULL when unknown) and,
 * for a user frame, its file.  Context markers (PERF_CONTEXT_*) give
 * NULL and *@dso NULL too; after one, the frame is where the sample was,
 * the next ones are return addresses.
 */
static const char *frame_sym(struct script_rows *rs, const struct pd_sample *s, __u64 i, __u64 *off,
			     const char **dso)
{
	bool ret = i > 0 && !context_marker(s->callchain[i - 1]);

	if (context_marker(s->callchain[i])) {
		*dso = NULL;
		return NULL;
	}
	return addr_sym(rs, s->pid, s->callchain[i], ret, off, dso);
}

static bool offcpu_row(const struct script_row *r)
{
	return r->event && !strcmp(r->event, SV_OFFCPU_EVENT);
}

/*
 * Off CPU, the leading kernel frames of the profiler's own handler
 * (*@lead while they come) are not the task's: left out, as report does.
 */
static bool profiler_frame(bool *lead, const char *sym, const char *dso)
{
	*lead = *lead && !dso && ksym_profiler_frame(sym);
	return *lead;
}

void script_frames_start(struct script_frames *it, const struct script_row *r)
{
	it->i = 0;
	it->lead = offcpu_row(r);
}

bool script_frames_next(struct script_rows *rs, const struct script_row *r,
			struct script_frames *it, struct script_frame *f)
{
	const struct pd_sample *s = &r->e->sample;

	for (; it->i < s->nr_callchain; it->i++) {
		if (context_marker(s->callchain[it->i]))
			continue;
		f->sym = frame_sym(rs, s, it->i, &f->off, &f->dso);
		if (profiler_frame(&it->lead, f->sym, f->dso))
			continue;
		f->addr = s->callchain[it->i++];
		f->where = f->sym || f->dso ? NULL :
			   where_names[sample_view_where(&rs->view, f->addr)];
		return true;
	}
	return false;
}

/* Samples shown: the sampled events', and the user's objects' output. */
bool script_row_shown(const struct timeline *tl, const struct tl_event *e)
{
	const char *map;

	return e->type != PERF_RECORD_SAMPLE ||
	       sample_view_kind(&tl->info->events[e->event]) != SV_NONE ||
	       output_channel(tl->info->events[e->event].name, &map);
}

/* What an object sent: its fields, or its bytes. */
static void output_row(struct script_rows *rs, struct script_row *r, const struct timeline *tl)
{
	const struct pd_sample *s = &r->e->sample;
	struct output_field f[SR_MAX_DETAILS];
	const struct output_decoder *d;
	const char *map;
	int i, n = -1;

	r->event = output_channel(tl->info->events[r->e->event].name, &map);
	r->name = map;
	d = decoder(rs, tl, r->e->event, map, s->raw_size, &r->id);
	r->has_id = r->id != 0;
	if (d)
		n = output_decode(d, s->raw, s->raw_size, f, SR_MAX_DETAILS, r->out, sizeof(r->out));
	if (n < 0) {
		r->type = "raw";
		output_hex(s->raw, s->raw_size, r->out, sizeof(r->out));
		kv_str(r, "data", r->out);
		return;
	}
	snprintf(r->type_buf, sizeof(r->type_buf), "struct %s", output_decoder_struct(d));
	r->type = r->type_buf;
	for (i = 0; i < n; i++) {
		if (f[i].is_num)
			kv_num(r, f[i].name, SR_KV_U64, f[i].num);
		else
			kv_str(r, f[i].name, f[i].str);
	}
}

void script_row_build(struct script_rows *rs, struct script_row *r, const struct timeline *tl,
		      const struct tl_event *e)
{
	memset(r, 0, sizeof(*r));
	r->e = e;
	r->comm = timeline_comm(tl, e);
	r->self = timeline_self(tl, e);
	/* a sample of the idle task, which has no COMM record: perf calls it swapper */
	if (!r->comm && e->type == PERF_RECORD_SAMPLE && !e->sample.tid &&
	    sample_view_kind(&tl->info->events[e->event]) != SV_NONE)
		r->comm = "swapper";
	switch (e->type) {
	case PERF_RECORD_BPF_EVENT:
		bpf_row(r, tl->reader);
		break;
	case PERF_RECORD_KSYMBOL:
		ksymbol_row(r);
		sample_view_ksymbol(&rs->view, &e->ksymbol);
		break;
	case PERF_RECORD_LOST:
		r->event = "LOST";
		kv_num(r, "lost", SR_KV_U64, e->lost);
		break;
	case PERF_RECORD_SAMPLE:
		if (sample_view_kind(&tl->info->events[e->event]) != SV_NONE)
			sample_row(rs, r, tl);
		else
			output_row(rs, r, tl);
		break;
	}
	if (r->self)
		kv_flag(r, "self");
}

const char *script_row_comm(const struct script_row *r)
{
	if (r->comm)
		return r->comm;
	/* no task is known: the recorder synthesised the record */
	return r->self ? TL_SELF_NAME : "-";
}

const char *script_row_name(const struct script_row *r)
{
	return r->name && r->name[0] ? r->name : "-";
}

const char *script_row_type(const struct script_row *r)
{
	return r->type ? r->type : "-";
}

int script_row_kind(const struct tl_event *e)
{
	enum pd_bpf_change change;
	enum pd_kind kind;

	switch (e->type) {
	case PERF_RECORD_KSYMBOL:
		return SR_KSYMBOL;
	case PERF_RECORD_LOST:
		return SR_LOST;
	case PERF_RECORD_SAMPLE:
		return SR_OUTPUT;
	}
	return pd_bpf_event_kind(e->bpf.type, &kind, &change) ? (int)kind : SR_NR_KINDS;
}
