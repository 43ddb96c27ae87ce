// SPDX-License-Identifier: GPL-2.0
/*
 * Encoding of the perf.data header features bpfrec writes: the host
 * description perf shows with --header-only, and the entries of perf's
 * BPF_PROG_INFO and BPF_BTF and of our BPFREC feature (facts_write.c
 * writes those entries into the data, then the features from them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "util/perf_data/format.h"

static int encode_uname(int feat, struct pd_buf *b)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	switch (feat) {
	case PD_HEADER_HOSTNAME:
		pd_buf_string(b, u.nodename);
		break;
	case PD_HEADER_OSRELEASE:
		pd_buf_string(b, u.release);
		break;
	default:
		pd_buf_string(b, u.machine);
		break;
	}
	return 1;
}

static int encode_cpudesc(struct pd_buf *b)
{
	char line[512], *colon, *nl;
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		nl = strchr(colon, '\n');
		if (nl)
			*nl = '\0';
		pd_buf_string(b, colon);
		found = 1;
		break;
	}
	fclose(f);
	return found;
}

/* Every event: its attr, its name and the ids of its instances. */
static int encode_event_desc(const struct pd_feat_input *in,
			     struct pd_buf *b)
{
	__u8 attr[PD_ATTR_SIZE];
	size_t i;

	pd_buf_u32(b, in->cfg.nr_events);
	pd_buf_u32(b, PD_ATTR_SIZE);
	for (i = 0; i < in->cfg.nr_events; i++) {
		const struct pd_event *ev = &in->cfg.events[i];

		pd_attr_to_disk(ev->attr, attr);
		pd_buf_put(b, attr, sizeof(attr));
		pd_buf_u32(b, ev->nr_ids);
		pd_buf_string(b, ev->name);
		pd_buf_put(b, ev->ids, ev->nr_ids * sizeof(__u64));
	}
	return 1;
}

/* perf's layout: version 1, clockid, then the two reference times. */
static int encode_clock_data(const struct pd_clock *c, struct pd_buf *b)
{
	if (!c->valid)
		return 0;
	pd_buf_u32(b, 1);
	pd_buf_u32(b, c->clockid);
	pd_buf_u64(b, c->tod_ns);
	pd_buf_u64(b, c->ref_ns);
	return 1;
}

void pd_prog_info_check_btf(__u8 *entry, size_t len, const void *btf_data, __u32 btf_len)
{
	const size_t at = 16;	/* info_len, data_len, arrays */
	struct bpf_prog_info info;
	struct bpf_func_info fi;
	const __u8 *data;
	struct btf *btf;
	__u32 info_len, i;
	bool ok;

	if (len < at || !btf_data)
		return;
	memcpy(&info_len, entry, sizeof(info_len));
	if (info_len > sizeof(info) || len < at + info_len)
		return;
	memset(&info, 0, sizeof(info));
	memcpy(&info, entry + at, info_len);
	if (!info.btf_id)
		return;
	data = entry + at + info_len;
	ok = info.nr_func_info >= info.nr_jited_ksyms &&
	     (!info.nr_jited_ksyms || info.func_info_rec_size >= sizeof(fi));
	btf = ok ? btf__new(btf_data, btf_len) : NULL;
	for (i = 0; btf && ok && i < info.nr_jited_ksyms; i++) {
		__u64 off = info.func_info + (__u64)i * info.func_info_rec_size;

		ok = off + sizeof(fi) <= len - at - info_len;
		if (ok) {
			memcpy(&fi, data + off, sizeof(fi));
			ok = btf__type_by_id(btf, fi.type_id) != NULL;
		}
	}
	if (!btf || !ok) {
		info.btf_id = 0;
		memcpy(entry + at, &info, info_len);
	}
	btf__free(btf);
}

/* Append @n elements of @size to the arrays, returning their offset. */
static __u64 put_array(struct pd_buf *data, const void *src, size_t n,
		       size_t size)
{
	__u64 off;

	pd_buf_align8(data);
	off = data->len;
	pd_buf_put(data, src, n * size);
	return off;
}

/*
 * One perf_bpil record, as perf 6.1 reads it in process_bpf_prog_info.
 * The arrays are put together in @data first, which is emptied here and
 * left for the caller to reuse or free.
 */
void pd_encode_prog_info(const struct pd_prog *p, bool line_info, struct pd_buf *b,
			 struct pd_buf *data)
{
	struct bpf_prog_info info;
	__u64 arrays = 0;

	data->len = 0;
	data->err = 0;
	memset(&info, 0, sizeof(info));
	info.type = p->type;
	info.id = p->id;
	memcpy(info.tag, p->tag, sizeof(info.tag));
	memcpy(info.name, p->name, sizeof(info.name));
	info.load_time = p->load_time;
	info.created_by_uid = p->origin.uid;
	/*
	 * jited/xlated lengths stay 0: perf would take a non-zero length as
	 * a promise of instructions, which we do not store.
	 */
	info.btf_id = p->btf_id;

	if (p->nr_map_ids) {
		info.nr_map_ids = p->nr_map_ids;
		info.map_ids = put_array(data, p->map_ids, p->nr_map_ids, 4);
		arrays |= 1ULL << PD_BPIL_MAP_IDS;
	}
	/* perf prints sub-programs only when these three counts agree. */
	if (p->nr_ksyms) {
		info.nr_jited_ksyms = p->nr_ksyms;
		info.jited_ksyms = put_array(data, p->ksym_addrs,
					     p->nr_ksyms, 8);
		info.nr_jited_func_lens = p->nr_ksyms;
		info.jited_func_lens = put_array(data, p->ksym_lens,
						 p->nr_ksyms, 4);
		info.nr_prog_tags = p->nr_ksyms;
		info.prog_tags = put_array(data, p->sub_tags, p->nr_ksyms,
					   BPF_TAG_SIZE);
		arrays |= 1ULL << PD_BPIL_JITED_KSYMS;
		arrays |= 1ULL << PD_BPIL_JITED_FUNC_LENS;
		arrays |= 1ULL << PD_BPIL_PROG_TAGS;
	}
	if (p->nr_func_info) {
		info.func_info_rec_size = sizeof(struct bpf_func_info);
		info.nr_func_info = p->nr_func_info;
		info.func_info = put_array(data, p->func_info,
					   p->nr_func_info,
					   sizeof(struct bpf_func_info));
		arrays |= 1ULL << PD_BPIL_FUNC_INFO;
	}
	if (p->nr_line_info && line_info) {
		info.line_info_rec_size = sizeof(struct bpf_line_info);
		info.nr_line_info = p->nr_line_info;
		info.line_info = put_array(data, p->line_info,
					   p->nr_line_info,
					   sizeof(struct bpf_line_info));
		arrays |= 1ULL << PD_BPIL_LINE_INFO;
	}
	pd_buf_align8(data);

	pd_buf_u32(b, PD_PROG_INFO_LEN);
	pd_buf_u32(b, data->len);
	pd_buf_u64(b, arrays);
	pd_buf_put(b, &info, PD_PROG_INFO_LEN);
	pd_buf_put(b, data->p, data->len);
	if (data->err)
		b->err = data->err;
}

void pd_encode_btf_data(const struct pd_btf *bt, struct pd_buf *b)
{
	pd_buf_u32(b, bt->id);
	pd_buf_u32(b, bt->data_len);
	pd_buf_put(b, bt->data, bt->data_len);
}

void pd_encode_ext_item(struct pd_buf *b, __u16 kind, const void *fixed, __u16 fixed_len,
			const struct pd_buf *var)
{
	struct pd_ext_item item = {
		.kind = kind,
		.fixed_len = fixed_len,
		.len = fixed_len + (var ? var->len : 0),
	};

	pd_buf_put(b, &item, sizeof(item));
	pd_buf_put(b, fixed, fixed_len);
	if (var) {
		pd_buf_put(b, var->p, var->len);
		if (var->err)
			b->err = var->err;
	}
	pd_buf_align8(b);
}

void pd_encode_ext_prog(const struct pd_prog *p, struct pd_buf *b)
{
	struct pd_disk_prog d;
	struct pd_buf names = { 0 };
	__u32 i;

	memset(&d, 0, sizeof(d));
	d.id = p->id;
	d.flags = p->flags;
	d.type = p->type;
	d.jited_len = p->jited_len;
	d.xlated_len = p->xlated_len;
	d.btf_id = p->btf_id;
	memcpy(d.tag, p->tag, sizeof(d.tag));
	memcpy(d.name, p->name, sizeof(d.name));
	d.load_time = p->load_time;
	d.origin = p->origin;
	d.nr_func_names = p->nr_func_names;
	d.nr_lines = p->nr_lines;
	memcpy(d.sha256, p->sha256, sizeof(d.sha256));
	for (i = 0; i < p->nr_func_names; i++) {
		const char *name = p->func_names[i] ? p->func_names[i] : "";
		size_t len = strnlen(name, 0xffff);

		pd_buf_put(&names, &(__u16){ len }, sizeof(__u16));
		pd_buf_put(&names, name, len);
	}
	d.nr_meta = p->meta ? p->nr_meta : 0;
	for (i = 0; i < d.nr_meta; i++) {
		size_t klen = strnlen(p->meta[i].key, PD_META_KEY_LEN - 1);
		size_t vlen = strnlen(p->meta[i].value, PD_META_VALUE_LEN - 1);

		pd_buf_put(&names, &(__u16){ klen }, sizeof(__u16));
		pd_buf_put(&names, p->meta[i].key, klen);
		pd_buf_put(&names, &(__u16){ vlen }, sizeof(__u16));
		pd_buf_put(&names, p->meta[i].value, vlen);
	}
	pd_encode_ext_item(b, PD_EXT_PROG, &d, sizeof(d), &names);
	pd_buf_free(&names);
}

void pd_encode_ext_btf(const struct pd_btf *bt, struct pd_buf *b)
{
	struct pd_disk_btf d;

	memset(&d, 0, sizeof(d));
	d.id = bt->id;
	d.flags = bt->flags;
	d.kernel = bt->kernel;
	d.size = bt->size;
	memcpy(d.name, bt->name, sizeof(d.name));
	d.name[sizeof(d.name) - 1] = '\0';
	d.origin = bt->origin;
	pd_encode_ext_item(b, PD_EXT_BTF, &d, sizeof(d), NULL);
}

int pd_feat_encode(int feat, const struct pd_feat_input *in, struct pd_buf *b)
{
	struct sysinfo si;
	int i;

	switch (feat) {
	case PD_HEADER_HOSTNAME:
	case PD_HEADER_OSRELEASE:
	case PD_HEADER_ARCH:
		return encode_uname(feat, b);
	case PD_HEADER_VERSION:
		pd_buf_string(b, in->cfg.version ? in->cfg.version : PD_TOOL_VERSION);
		return 1;
	case PD_HEADER_NRCPUS:
		pd_buf_u32(b, sysconf(_SC_NPROCESSORS_CONF));
		pd_buf_u32(b, sysconf(_SC_NPROCESSORS_ONLN));
		return 1;
	case PD_HEADER_CPUDESC:
		return encode_cpudesc(b);
	case PD_HEADER_TOTAL_MEM:
		if (sysinfo(&si))
			return 0;
		pd_buf_u64(b, (__u64)si.totalram * si.mem_unit / 1024);
		return 1;
	case PD_HEADER_CMDLINE:
		pd_buf_u32(b, in->cfg.argc);
		for (i = 0; i < in->cfg.argc; i++)
			pd_buf_string(b, in->cfg.argv[i]);
		return 1;
	case PD_HEADER_EVENT_DESC:
		return encode_event_desc(in, b);
	case PD_HEADER_SAMPLE_TIME:
		if (!in->last_time)
			return 0;
		pd_buf_u64(b, in->first_time);
		pd_buf_u64(b, in->last_time);
		return 1;
	case PD_HEADER_CLOCKID:
		if (!in->clock.valid)
			return 0;
		pd_buf_u64(b, in->clock.res_ns);
		return 1;
	case PD_HEADER_STAT:
		/* no content: the bit alone makes perf stat report take the file */
		return in->cfg.stat;
	case PD_HEADER_CLOCK_DATA:
		return encode_clock_data(&in->clock, b);
	}
	return 0;
}
