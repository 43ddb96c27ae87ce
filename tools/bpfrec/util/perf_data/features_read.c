// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of perf.data header features into pd_file_info and pd_facts.
 * Input is untrusted: every length and offset is checked against the
 * section it comes from, and nothing read is used as a pointer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/perf_data/format.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int decode_string(struct pd_cursor *c, char **dst)
{
	char *s = pd_cur_string(c);

	if (!s)
		return -EINVAL;
	free(*dst);
	*dst = s;
	return 0;
}

static int decode_cmdline(struct pd_cursor *c, struct pd_file_info *info)
{
	struct pd_buf b = { 0 };
	__u32 i, n = pd_cur_u32(c);

	for (i = 0; i < n && !c->bad; i++) {
		char *arg = pd_cur_string(c);

		if (!arg)
			break;
		if (i)
			pd_buf_put(&b, " ", 1);
		pd_buf_put(&b, arg, strlen(arg));
		free(arg);
	}
	pd_buf_put(&b, "", 1);
	if (c->bad || b.err) {
		pd_buf_free(&b);
		return -EINVAL;
	}
	free(info->cmdline);
	info->cmdline = b.p;
	return 0;
}

/*
 * The names of the events: the descriptions come in the order of the
 * attrs section, each with its attr (skipped: the attrs section is the
 * reference) and its ids.
 */
static int decode_event_desc(struct pd_cursor *c, struct pd_file_info *info)
{
	__u32 nr = pd_cur_u32(c), attr_size = pd_cur_u32(c), i;

	for (i = 0; i < nr && !c->bad; i++) {
		__u32 nr_ids;
		char *name;

		pd_cur_take(c, attr_size);
		nr_ids = pd_cur_u32(c);
		name = pd_cur_string(c);
		if (!name)
			return -EINVAL;
		if (nr_ids > (c->len - c->pos) / sizeof(__u64)) {
			free(name);
			return -EINVAL;
		}
		pd_cur_take(c, nr_ids * sizeof(__u64));
		if (i >= info->nr_events) {
			free(name);
			continue;
		}
		free(info->events[i].name);
		info->events[i].name = name;
	}
	return c->bad ? -EINVAL : 0;
}

/* An array of the prog info: @off and @n * @size must lie in the data. */
static int prog_array(void *dstp, __u64 off, __u64 n, size_t size,
		      const __u8 *data, size_t data_len)
{
	void **dst = dstp;

	*dst = NULL;
	if (!n)
		return 0;
	if (off > data_len || n > (data_len - off) / size)
		return -EINVAL;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, data + off, n * size);
	return 0;
}

/* Records of @rec_size bytes, of which we keep the first @size. */
static int prog_records(void *dstp, __u64 off, __u32 n, __u32 rec_size,
			size_t size, const __u8 *data, size_t data_len)
{
	void **dst = dstp;
	__u8 *out;
	__u32 i;

	*dst = NULL;
	if (!n)
		return 0;
	if (rec_size < size || off > data_len ||
	    n > (data_len - off) / rec_size)
		return -EINVAL;
	out = malloc((size_t)n * size);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		memcpy(out + (size_t)i * size, data + off + (size_t)i * rec_size,
		       size);
	*dst = out;
	return 0;
}

static int append_prog(struct pd_facts *f, const struct pd_prog *p)
{
	struct pd_prog *progs;

	progs = realloc(f->progs, (f->nr_progs + 1) * sizeof(*progs));
	if (!progs)
		return -ENOMEM;
	f->progs = progs;
	f->progs[f->nr_progs++] = *p;
	return 0;
}

static int decode_one_prog_info(struct pd_cursor *c, struct pd_facts *f)
{
	struct bpf_prog_info info;
	struct pd_prog p;
	__u32 info_len, data_len;
	const __u8 *data;
	__u64 arrays;
	bool has_ksyms;
	int err;

	info_len = pd_cur_u32(c);
	data_len = pd_cur_u32(c);
	arrays = pd_cur_u64(c);
	memset(&info, 0, sizeof(info));
	/* A newer perf writes a longer info: keep what we know of it. */
	if (info_len > sizeof(info)) {
		pd_cur_get(c, &info, sizeof(info));
		pd_cur_take(c, info_len - sizeof(info));
	} else {
		pd_cur_get(c, &info, info_len);
	}
	data = pd_cur_take(c, data_len);
	if (c->bad)
		return -EINVAL;

	memset(&p, 0, sizeof(p));
	p.id = info.id;
	p.flags = PD_F_PERF;
	p.type = info.type;
	memcpy(p.tag, info.tag, sizeof(p.tag));
	memcpy(p.name, info.name, sizeof(p.name));
	p.name[sizeof(p.name) - 1] = '\0';
	p.load_time = info.load_time;
	p.origin.uid = info.created_by_uid;
	p.jited_len = info.jited_prog_len;
	p.xlated_len = info.xlated_prog_len;
	p.btf_id = info.btf_id;
	/* the kernel's count, also when perf did not keep the records */
	p.nr_lines = info.nr_line_info;

	/* perf only relies on sub-programs when all three counts agree. */
	has_ksyms = (arrays & (1ULL << PD_BPIL_JITED_KSYMS)) &&
		    (arrays & (1ULL << PD_BPIL_JITED_FUNC_LENS)) &&
		    (arrays & (1ULL << PD_BPIL_PROG_TAGS)) &&
		    info.nr_jited_ksyms == info.nr_jited_func_lens &&
		    info.nr_jited_ksyms == info.nr_prog_tags;
	err = 0;
	if (arrays & (1ULL << PD_BPIL_MAP_IDS)) {
		p.nr_map_ids = info.nr_map_ids;
		err = prog_array(&p.map_ids, info.map_ids, p.nr_map_ids, 4,
				 data, data_len);
	}
	if (!err && has_ksyms) {
		p.nr_ksyms = info.nr_jited_ksyms;
		err = prog_array(&p.ksym_addrs, info.jited_ksyms, p.nr_ksyms,
				 8, data, data_len) ?:
		      prog_array(&p.ksym_lens, info.jited_func_lens,
				 p.nr_ksyms, 4, data, data_len) ?:
		      prog_array(&p.sub_tags, info.prog_tags, p.nr_ksyms,
				 BPF_TAG_SIZE, data, data_len);
	}
	if (!err && (arrays & (1ULL << PD_BPIL_FUNC_INFO))) {
		p.nr_func_info = info.nr_func_info;
		err = prog_records(&p.func_info, info.func_info,
				   info.nr_func_info, info.func_info_rec_size,
				   sizeof(struct bpf_func_info), data, data_len);
	}
	if (!err && (arrays & (1ULL << PD_BPIL_LINE_INFO))) {
		p.nr_line_info = info.nr_line_info;
		err = prog_records(&p.line_info, info.line_info,
				   info.nr_line_info, info.line_info_rec_size,
				   sizeof(struct bpf_line_info), data, data_len);
	}
	if (!err)
		err = append_prog(f, &p);
	if (err)
		pd_prog_free_arrays(&p);
	return err;
}

static int decode_prog_info(struct pd_cursor *c, struct pd_facts *f)
{
	__u32 i, count = pd_cur_u32(c);
	int err;

	for (i = 0; i < count && !c->bad; i++) {
		err = decode_one_prog_info(c, f);
		if (err)
			return err;
	}
	return c->bad ? -EINVAL : 0;
}

static int decode_btf(struct pd_cursor *c, struct pd_facts *f)
{
	__u32 i, count = pd_cur_u32(c);

	for (i = 0; i < count && !c->bad; i++) {
		struct pd_btf b, *btfs;
		const __u8 *data;

		memset(&b, 0, sizeof(b));
		b.id = pd_cur_u32(c);
		b.data_len = pd_cur_u32(c);
		data = pd_cur_take(c, b.data_len);
		if (!data)
			return -EINVAL;
		b.flags = PD_F_PERF;
		b.size = b.data_len;
		if (b.data_len) {
			b.data = malloc(b.data_len);
			if (!b.data)
				return -ENOMEM;
			memcpy(b.data, data, b.data_len);
		}
		btfs = realloc(f->btfs, (f->nr_btfs + 1) * sizeof(*btfs));
		if (!btfs) {
			free(b.data);
			return -ENOMEM;
		}
		f->btfs = btfs;
		f->btfs[f->nr_btfs++] = b;
	}
	return c->bad ? -EINVAL : 0;
}

/* The file's strings may lack their NUL. */
#define TERMINATE(s)	((s)[sizeof(s) - 1] = '\0')

/* Function names of an ext prog item: { u16 len; bytes } each. */
static int ext_func_names(struct pd_prog *p, __u32 n, struct pd_cursor *var)
{
	__u32 i;

	if (!n)
		return 0;
	if (n > var->len / sizeof(__u16))
		return -EINVAL;
	p->func_names = calloc(n, sizeof(char *));
	if (!p->func_names)
		return -ENOMEM;
	p->nr_func_names = n;
	for (i = 0; i < n; i++) {
		__u16 len = 0;
		const __u8 *s;

		pd_cur_get(var, &len, sizeof(len));
		s = pd_cur_take(var, len);
		if (!s)
			return -EINVAL;
		p->func_names[i] = strndup((const char *)s, len);
		if (!p->func_names[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Our facts of a program complete or replace what BPF_PROG_INFO said:
 * the arrays stay, the scalars and names are ours.
 */
static int ext_prog(struct pd_facts *f, size_t nr_sorted,
		    const struct pd_disk_prog *d, struct pd_cursor *var)
{
	struct pd_prog *p, fresh;
	__u32 i;
	int err;

	p = pd_find_id(f->progs, nr_sorted, sizeof(*p), d->id);
	if (!p) {
		memset(&fresh, 0, sizeof(fresh));
		p = &fresh;
	}
	if (p->func_names) {
		for (i = 0; i < p->nr_func_names; i++)
			free(p->func_names[i]);
		free(p->func_names);
		p->func_names = NULL;
		p->nr_func_names = 0;
	}
	p->id = d->id;
	p->flags = d->flags;
	p->type = d->type;
	p->jited_len = d->jited_len;
	p->xlated_len = d->xlated_len;
	p->btf_id = d->btf_id;
	memcpy(p->tag, d->tag, sizeof(p->tag));
	memcpy(p->name, d->name, sizeof(p->name));
	TERMINATE(p->name);
	p->load_time = d->load_time;
	p->nr_lines = d->nr_lines;
	p->origin = d->origin;
	TERMINATE(p->origin.comm);
	err = ext_func_names(p, d->nr_func_names, var);
	if (p == &fresh) {
		if (!err)
			err = append_prog(f, p);
		if (err)
			pd_prog_free_arrays(p);
	}
	return err;
}

static int ext_map(struct pd_facts *f, struct pd_map *d)
{
	struct pd_map *maps;

	maps = realloc(f->maps, (f->nr_maps + 1) * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	f->maps = maps;
	TERMINATE(d->name);
	TERMINATE(d->origin.comm);
	f->maps[f->nr_maps++] = *d;
	return 0;
}

static int ext_link(struct pd_facts *f, struct pd_link *d)
{
	struct pd_link *links;

	links = realloc(f->links, (f->nr_links + 1) * sizeof(*links));
	if (!links)
		return -ENOMEM;
	f->links = links;
	TERMINATE(d->target);
	TERMINATE(d->origin.comm);
	f->links[f->nr_links++] = *d;
	return 0;
}

/* BTF metadata joins the data BPF_BTF carried for the same id. */
static int ext_btf(struct pd_facts *f, size_t nr_sorted,
		   const struct pd_disk_btf *d)
{
	struct pd_btf *b, *btfs;

	b = pd_find_id(f->btfs, nr_sorted, sizeof(*b), d->id);
	if (!b) {
		btfs = realloc(f->btfs, (f->nr_btfs + 1) * sizeof(*btfs));
		if (!btfs)
			return -ENOMEM;
		f->btfs = btfs;
		b = &f->btfs[f->nr_btfs++];
		memset(b, 0, sizeof(*b));
	}
	b->id = d->id;
	b->flags = d->flags;
	b->kernel = d->kernel;
	b->size = d->size;
	memcpy(b->name, d->name, sizeof(b->name));
	TERMINATE(b->name);
	b->origin = d->origin;
	TERMINATE(b->origin.comm);
	return 0;
}

static int decode_bpfrec(struct pd_cursor *c, struct pd_facts *f)
{
	struct pd_ext_header h;
	size_t nr_progs, nr_btfs;
	int err = 0;

	pd_cur_get(c, &h, sizeof(h));
	if (c->bad || h.magic != PD_EXT_MAGIC)
		return -EINVAL;
	/* perf's own facts come first and sorted, so ours can find them. */
	pd_facts_sort_dedup(f);
	nr_progs = f->nr_progs;
	nr_btfs = f->nr_btfs;

	while (!err && c->pos < c->len) {
		union {
			struct pd_capture capture;
			struct pd_disk_prog prog;
			struct pd_map map;
			struct pd_link link;
			struct pd_disk_btf btf;
		} d;
		struct pd_ext_item item;
		struct pd_cursor var;
		const __u8 *body;

		pd_cur_get(c, &item, sizeof(item));
		body = pd_cur_take(c, item.len);
		if (!body || item.fixed_len > item.len)
			return -EINVAL;
		/* Items are padded to 8 bytes; the last one may end unpadded. */
		c->pos += PD_ALIGN8(c->pos) - c->pos < c->len - c->pos ?
			  PD_ALIGN8(c->pos) - c->pos : c->len - c->pos;
		memset(&d, 0, sizeof(d));
		memcpy(&d, body, item.fixed_len < sizeof(d) ? item.fixed_len
							    : sizeof(d));
		var = (struct pd_cursor){
			.p = body + item.fixed_len,
			.len = item.len - item.fixed_len,
		};
		switch (item.kind) {
		case PD_EXT_CAPTURE:
			f->capture = d.capture;
			f->has_capture = true;
			break;
		case PD_EXT_PROG:
			err = ext_prog(f, nr_progs, &d.prog, &var);
			break;
		case PD_EXT_MAP:
			err = ext_map(f, &d.map);
			break;
		case PD_EXT_LINK:
			err = ext_link(f, &d.link);
			break;
		case PD_EXT_BTF:
			err = ext_btf(f, nr_btfs, &d.btf);
			break;
		default:
			/* An item of a later version: skip it. */
			break;
		}
	}
	return err;
}

int pd_feat_decode(int feat, const __u8 *p, size_t len,
		   struct pd_file_info *info, struct pd_facts *facts,
		   char *err, size_t errlen)
{
	struct pd_cursor c = { .p = p, .len = len };
	int ret = 0;

	switch (feat) {
	case PD_HEADER_HOSTNAME:
		ret = decode_string(&c, &info->hostname);
		break;
	case PD_HEADER_OSRELEASE:
		ret = decode_string(&c, &info->osrelease);
		break;
	case PD_HEADER_VERSION:
		ret = decode_string(&c, &info->version);
		break;
	case PD_HEADER_ARCH:
		ret = decode_string(&c, &info->arch);
		break;
	case PD_HEADER_CPUDESC:
		ret = decode_string(&c, &info->cpudesc);
		break;
	case PD_HEADER_NRCPUS:
		info->nr_cpus_avail = pd_cur_u32(&c);
		info->nr_cpus_online = pd_cur_u32(&c);
		break;
	case PD_HEADER_TOTAL_MEM:
		info->total_mem_kb = pd_cur_u64(&c);
		break;
	case PD_HEADER_CMDLINE:
		ret = decode_cmdline(&c, info);
		break;
	case PD_HEADER_SAMPLE_TIME:
		info->first_sample_time = pd_cur_u64(&c);
		info->last_sample_time = pd_cur_u64(&c);
		break;
	case PD_HEADER_EVENT_DESC:
		ret = decode_event_desc(&c, info);
		break;
	case PD_HEADER_CLOCKID:
		info->clock_res_ns = pd_cur_u64(&c);
		break;
	case PD_HEADER_CLOCK_DATA:
		/* a later version may lay it out otherwise: only 1 is known */
		if (pd_cur_u32(&c) != 1)
			break;
		info->clockid = pd_cur_u32(&c);
		info->clock_tod_ns = pd_cur_u64(&c);
		info->clock_ref_ns = pd_cur_u64(&c);
		info->has_clock_data = !c.bad;
		break;
	case PD_HEADER_BPF_PROG_INFO:
		ret = decode_prog_info(&c, facts);
		break;
	case PD_HEADER_BPF_BTF:
		ret = decode_btf(&c, facts);
		break;
	case PD_FEAT_BPFREC:
		ret = decode_bpfrec(&c, facts);
		break;
	default:
		return 0;
	}
	if (ret == -ENOMEM)
		return fail(err, errlen, "out of memory");
	if (ret || c.bad)
		return fail(err, errlen, "malformed feature %d at byte %zu",
			    feat, c.pos);
	return 0;
}

void pd_file_info_release(struct pd_file_info *info)
{
	size_t i;

	for (i = 0; i < info->nr_events; i++) {
		free(info->events[i].name);
		free(info->events[i].ids);
	}
	free(info->events);
	free(info->hostname);
	free(info->osrelease);
	free(info->version);
	free(info->arch);
	free(info->cpudesc);
	free(info->cmdline);
	memset(info, 0, sizeof(*info));
}
