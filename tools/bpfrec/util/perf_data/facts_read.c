// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF object facts of a perf.data, decoded when asked for.  A storm
 * recording describes hundreds of thousands of programs: holding them
 * all, or even an index entry for each, would make a reader's memory grow
 * with the file.  At open, every entry of BPF_PROG_INFO, BPF_BTF and
 * BPFREC is decoded once (so a malformed one fails the open, as it always
 * did); writers store them by id, so the index keeps only the first id
 * and the place of each group of entries.  A lookup reads the group of
 * its id (pread: no page of the file stays mapped), finds the entries of
 * perf and ours, merges them, and keeps the result in a small cache.
 * Entries out of id order (a writer we do not know) are indexed one by
 * one instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/array.h"
#include "util/hashmap.h"
#include "util/perf_data/format.h"

/* A group: at most this many entries, of at most about this many bytes. */
#define GROUP_ENTRIES	64
#define GROUP_BYTES	(16 << 10)

/* A group of entries of one kind, from one source. */
struct group {
	__u32 id;			/* of its first entry */
	__u32 seq;			/* arrival: of equal ids, the later wins */
	__u64 off;			/* where its first entry starts */
	__u64 end;			/* and its last ends */
};

/*
 * The entries of one kind from one source: perf's (BPF_PROG_INFO,
 * BPF_BTF) or ours (BPFREC, where the kinds share one feature).
 */
enum { PERF, OURS, NR_SOURCES };

struct places {
	struct group *g;
	size_t nr, cap;
	bool one_by_one;		/* entries came out of order: a group each */
	bool unsorted;			/* found so while indexing */
	__u32 in_group, last_id;
	/* the group read last, kept for the lookups that follow */
	size_t cached;			/* its index + 1; 0: none */
	__u8 *buf;
	size_t len;
};

struct cached {
	enum pd_kind kind;
	bool used;
	union {
		struct pd_prog prog;
		struct pd_map map;
		struct pd_link link;
		struct pd_btf btf;
	};
};

struct pd_fact_index {
	int fd;				/* -1: read from buf */
	const __u8 *buf;
	struct places kinds[PD_NR_KINDS][NR_SOURCES];
	__u64 given;			/* file offset up to which pages went back */
	struct pd_capture capture;
	bool has_capture;
	struct pd_loader *loaders;	/* by index, the last one of each */
	size_t nr_loaders, cap_loaders;
	/*
	 * Where each loader is (index -> position + 1), and each task's
	 * latest (tid -> position + 1), the one before it of the same task
	 * in prev_of_tid[] (position + 1, 0: none): lookups in a file of
	 * many loaders must not scan them all.
	 */
	struct hashmap loader_at, tid_latest;
	__u32 *prev_of_tid;
	struct cached cache[PD_FACTS_CACHE];
	unsigned int next;		/* the cache slot to reuse next */
};

struct pd_fact_index *pd_fact_index_new(int fd, const __u8 *buf)
{
	struct pd_fact_index *x = calloc(1, sizeof(*x));

	if (x) {
		x->fd = fd;
		x->buf = buf;
	}
	return x;
}

static void release(struct cached *c)
{
	if (c->used && c->kind == PD_PROG)
		pd_prog_free_arrays(&c->prog);
	if (c->used && c->kind == PD_BTF)
		pd_btf_release(&c->btf);
	c->used = false;
}

void pd_fact_index_free(struct pd_fact_index *x)
{
	int i;

	if (!x)
		return;
	for (i = 0; i < PD_FACTS_CACHE; i++)
		release(&x->cache[i]);
	free(x->loaders);
	free(x->prev_of_tid);
	hashmap_free(&x->loader_at);
	hashmap_free(&x->tid_latest);
	for (i = 0; i < PD_NR_KINDS; i++) {
		free(x->kinds[i][PERF].g);
		free(x->kinds[i][PERF].buf);
		free(x->kinds[i][OURS].g);
		free(x->kinds[i][OURS].buf);
	}
	if (x->fd >= 0)
		close(x->fd);
	free(x);
}

/*
 * A new entry of @id from @off to @end: it starts a group when the group
 * before is full, or always when entries came out of order.
 */
static int add_place(struct pd_fact_index *x, enum pd_kind kind, int src, __u32 id, __u64 off,
		     __u64 end)
{
	struct places *k = &x->kinds[kind][src];

	if (k->in_group && id < k->last_id)
		k->unsorted = true;
	k->last_id = id;
	if (!k->one_by_one && k->nr && k->in_group < GROUP_ENTRIES &&
	    off - k->g[k->nr - 1].off < GROUP_BYTES) {
		k->in_group++;
		k->g[k->nr - 1].end = end;
		return 0;
	}
	if (array_room(&k->g, &k->cap, k->nr, sizeof(*k->g)))
		return -ENOMEM;
	k->g[k->nr] = (struct group){ .id = id, .seq = k->nr, .off = off, .end = end };
	k->nr++;
	k->in_group = 1;
	return 0;
}

/* ---- decoding one entry ------------------------------------------------ */

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

/* One perf_bpil record of BPF_PROG_INFO into @p (zeroed first). */
static int decode_prog_info(struct pd_cursor *c, struct pd_prog *p)
{
	struct bpf_prog_info info;
	__u32 info_len, data_len;
	const __u8 *data;
	__u64 arrays;
	bool has_ksyms;
	int err = 0;

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

	memset(p, 0, sizeof(*p));
	p->id = info.id;
	p->flags = PD_F_PERF;
	p->type = info.type;
	memcpy(p->tag, info.tag, sizeof(p->tag));
	memcpy(p->name, info.name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	p->load_time = info.load_time;
	p->origin.uid = info.created_by_uid;
	p->jited_len = info.jited_prog_len;
	p->xlated_len = info.xlated_prog_len;
	p->btf_id = info.btf_id;
	/* the kernel's count, also when perf did not keep the records */
	p->nr_lines = info.nr_line_info;

	/* perf only relies on sub-programs when all three counts agree. */
	has_ksyms = (arrays & (1ULL << PD_BPIL_JITED_KSYMS)) &&
		    (arrays & (1ULL << PD_BPIL_JITED_FUNC_LENS)) &&
		    (arrays & (1ULL << PD_BPIL_PROG_TAGS)) &&
		    info.nr_jited_ksyms == info.nr_jited_func_lens &&
		    info.nr_jited_ksyms == info.nr_prog_tags;
	if (arrays & (1ULL << PD_BPIL_MAP_IDS)) {
		p->nr_map_ids = info.nr_map_ids;
		err = prog_array(&p->map_ids, info.map_ids, p->nr_map_ids, 4, data, data_len);
	}
	if (!err && has_ksyms) {
		p->nr_ksyms = info.nr_jited_ksyms;
		err = prog_array(&p->ksym_addrs, info.jited_ksyms, p->nr_ksyms, 8, data,
				 data_len) ?:
		      prog_array(&p->ksym_lens, info.jited_func_lens, p->nr_ksyms, 4, data,
				 data_len) ?:
		      prog_array(&p->sub_tags, info.prog_tags, p->nr_ksyms, BPF_TAG_SIZE, data,
				 data_len);
	}
	if (!err && (arrays & (1ULL << PD_BPIL_FUNC_INFO))) {
		p->nr_func_info = info.nr_func_info;
		err = prog_records(&p->func_info, info.func_info, info.nr_func_info,
				   info.func_info_rec_size, sizeof(struct bpf_func_info), data,
				   data_len);
	}
	if (!err && (arrays & (1ULL << PD_BPIL_LINE_INFO))) {
		p->nr_line_info = info.nr_line_info;
		err = prog_records(&p->line_info, info.line_info, info.nr_line_info,
				   info.line_info_rec_size, sizeof(struct bpf_line_info), data,
				   data_len);
	}
	if (err)
		pd_prog_free_arrays(p);
	return err;
}

/* One BPF_BTF entry: id, size, data; the data is copied when @copy. */
static int decode_btf_data(struct pd_cursor *c, struct pd_btf *b, bool copy)
{
	const __u8 *data;

	memset(b, 0, sizeof(*b));
	b->id = pd_cur_u32(c);
	b->size = pd_cur_u32(c);
	data = pd_cur_take(c, b->size);
	if (!data)
		return -EINVAL;
	b->flags = PD_F_PERF;
	if (!copy || !b->size)
		return 0;
	b->data = malloc(b->size);
	if (!b->data)
		return -ENOMEM;
	memcpy(b->data, data, b->size);
	b->data_len = b->size;
	return 0;
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

/* One string of the metadata: { u16 len; bytes } into @dst of @size (len < size). */
static bool ext_meta_string(struct pd_cursor *var, char *dst, size_t size)
{
	__u16 len = 0;
	const __u8 *s;

	if (!pd_cur_get(var, &len, sizeof(len)) || len >= size)
		return false;
	s = pd_cur_take(var, len);
	if (!s)
		return false;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

/* The metadata of an ext prog item, after its function names. */
static int ext_meta(struct pd_prog *p, __u32 n, struct pd_cursor *var)
{
	__u32 i;

	if (!n)
		return 0;
	/* each takes at least its two lengths */
	if (n > PD_META_MAX || n > (var->len - var->pos) / (2 * sizeof(__u16)))
		return -EINVAL;
	p->meta = calloc(n, sizeof(*p->meta));
	if (!p->meta)
		return -ENOMEM;
	p->nr_meta = n;
	for (i = 0; i < n; i++)
		if (!ext_meta_string(var, p->meta[i].key, sizeof(p->meta[i].key)) ||
		    !ext_meta_string(var, p->meta[i].value, sizeof(p->meta[i].value)))
			return -EINVAL;
	return 0;
}

/*
 * Our facts of a program complete or replace what BPF_PROG_INFO said:
 * the arrays stay, the scalars and names are ours.
 */
static int ext_prog(struct pd_prog *p, const struct pd_disk_prog *d, struct pd_cursor *var)
{
	__u32 i;

	for (i = 0; p->func_names && i < p->nr_func_names; i++)
		free(p->func_names[i]);
	free(p->func_names);
	p->func_names = NULL;
	p->nr_func_names = 0;
	free(p->meta);
	p->meta = NULL;
	p->nr_meta = 0;
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
	memcpy(p->sha256, d->sha256, sizeof(p->sha256));
	return ext_func_names(p, d->nr_func_names, var) ?: ext_meta(p, d->nr_meta, var);
}

/* BTF metadata joins the data BPF_BTF carried for the same id. */
static void ext_btf(struct pd_btf *b, const struct pd_disk_btf *d)
{
	b->id = d->id;
	b->flags = d->flags;
	b->kernel = d->kernel;
	b->size = d->size;
	memcpy(b->name, d->name, sizeof(b->name));
	TERMINATE(b->name);
	b->origin = d->origin;
	TERMINATE(b->origin.comm);
}

/* A BPFREC item: its kind, its fixed part (zero-extended), its variable part. */
union ext_fixed {
	struct pd_capture capture;
	struct pd_loader loader;
	struct pd_disk_prog prog;
	struct pd_map map;
	struct pd_link link;
	struct pd_disk_btf btf;
};

static int ext_item(struct pd_cursor *c, struct pd_ext_item *item, union ext_fixed *d,
		    struct pd_cursor *var)
{
	const __u8 *body;

	pd_cur_get(c, item, sizeof(*item));
	body = pd_cur_take(c, item->len);
	if (!body || item->fixed_len > item->len)
		return -EINVAL;
	/* Items are padded to 8 bytes; the last one may end unpadded. */
	c->pos += PD_ALIGN8(c->pos) - c->pos < c->len - c->pos ?
		  PD_ALIGN8(c->pos) - c->pos : c->len - c->pos;
	memset(d, 0, sizeof(*d));
	memcpy(d, body, item->fixed_len < sizeof(*d) ? item->fixed_len : sizeof(*d));
	*var = (struct pd_cursor){
		.p = body + item->fixed_len,
		.len = item->len - item->fixed_len,
	};
	return 0;
}

/*
 * A loader item: kept whole (they are few per task), the last one of an
 * index wins.  A task's loaders are chained newest first, as the
 * recorder writes them.
 */
static int add_loader(struct pd_fact_index *x, const struct pd_loader *d)
{
	size_t cap = x->cap_loaders;
	struct pd_loader *slot;
	__u64 *at, *latest;
	__u32 *prev;

	if (!d->index)
		return 0;
	at = hashmap_add(&x->loader_at, d->index, NULL);
	if (!at)
		return -ENOMEM;
	if (*at) {
		/* the same task, said again: its place in the chain stays */
		slot = &x->loaders[*at - 1];
		if (slot->tid == d->tid)
			goto fill;
		/* another task under the same index: the old one is lost for its tid */
		slot->index = 0;
	}
	if (array_room(&x->loaders, &x->cap_loaders, x->nr_loaders, sizeof(*x->loaders)))
		return -ENOMEM;
	if (x->cap_loaders != cap || !x->prev_of_tid) {
		prev = realloc(x->prev_of_tid, x->cap_loaders * sizeof(*prev));
		if (!prev)
			return -ENOMEM;
		x->prev_of_tid = prev;
	}
	latest = hashmap_add(&x->tid_latest, d->tid, NULL);
	if (!latest)
		return -ENOMEM;
	x->prev_of_tid[x->nr_loaders] = *latest;
	*latest = x->nr_loaders + 1;
	*at = x->nr_loaders + 1;
	slot = &x->loaders[x->nr_loaders++];
fill:
	*slot = *d;
	TERMINATE(slot->comm);
	TERMINATE(slot->pcomm);
	TERMINATE(slot->exe);
	TERMINATE(slot->cgroup);
	return 0;
}

const struct pd_loader *pd_fact_index_loader(const struct pd_fact_index *x, __u32 index)
{
	const __u64 *at = index ? hashmap_find(&x->loader_at, index) : NULL;

	return at && *at ? &x->loaders[*at - 1] : NULL;
}

/*
 * At most this many of a task's loaders are looked at, newest first: a
 * task says who it is again only when its executable or cgroup changes,
 * and a crafted file must not make each lookup walk a long chain.
 */
#define LOADERS_OF_TASK_LOOKED_AT	1024

const struct pd_loader *pd_fact_index_loader_of(const struct pd_fact_index *x, __u32 tid,
						__u64 time)
{
	const struct pd_loader *best = NULL;
	const __u64 *latest = hashmap_find(&x->tid_latest, tid);
	__u64 pos = latest ? *latest : 0;
	int n;

	for (n = 0; pos && n < LOADERS_OF_TASK_LOOKED_AT; n++, pos = x->prev_of_tid[pos - 1]) {
		const struct pd_loader *d = &x->loaders[pos - 1];

		if (d->index && d->tid == tid && d->time <= time && (!best || d->time >= best->time))
			best = d;
	}
	return best;
}

/* ---- the index, at open ------------------------------------------------ */

/*
 * Indexing reads every entry once: from a file mapping, the pages read
 * are given back as it goes, or a storm's features would all be resident
 * at once.
 */
static void give_back(struct pd_fact_index *x, __u64 upto)
{
	if (x->fd >= 0)
		pd_give_back(x->buf, &x->given, upto);
}

/* BPF_PROG_INFO or BPF_BTF: a count, then the entries of @kind. */
static int index_perf(struct pd_fact_index *x, enum pd_kind kind, struct pd_cursor *c,
		      __u64 file_off)
{
	__u32 i, count = pd_cur_u32(c);
	struct pd_prog p;
	struct pd_btf b;
	__u64 at;
	int err;

	for (i = 0; i < count && !c->bad; i++) {
		at = file_off + c->pos;
		if (kind == PD_PROG) {
			/* on an error, the decoder left nothing to free */
			err = decode_prog_info(c, &p);
			if (!err)
				pd_prog_free_arrays(&p);
		} else {
			err = decode_btf_data(c, &b, false);
		}
		if (!err)
			err = add_place(x, kind, PERF, kind == PD_PROG ? p.id : b.id, at,
					file_off + c->pos);
		if (err)
			return err;
		give_back(x, file_off + c->pos);
	}
	return c->bad ? -EINVAL : 0;
}

static int index_bpfrec(struct pd_fact_index *x, struct pd_cursor *c, __u64 file_off)
{
	static const enum pd_kind kinds[] = {
		[PD_EXT_PROG] = PD_PROG, [PD_EXT_MAP] = PD_MAP,
		[PD_EXT_LINK] = PD_LINK, [PD_EXT_BTF] = PD_BTF,
	};
	struct pd_ext_header h;
	struct pd_ext_item item;
	union ext_fixed d;
	struct pd_cursor var;
	struct pd_prog p;
	int err = 0;
	__u64 at;

	pd_cur_get(c, &h, sizeof(h));
	if (c->bad || h.magic != PD_EXT_MAGIC)
		return -EINVAL;
	while (!err && c->pos < c->len) {
		at = file_off + c->pos;
		if (ext_item(c, &item, &d, &var))
			return -EINVAL;
		switch (item.kind) {
		case PD_EXT_CAPTURE:
			x->capture = d.capture;
			x->has_capture = true;
			break;
		case PD_EXT_LOADER:
			err = add_loader(x, &d.loader);
			break;
		case PD_EXT_PROG:
			/* the names are checked now, so that a lookup cannot fail on them */
			memset(&p, 0, sizeof(p));
			err = ext_prog(&p, &d.prog, &var);
			pd_prog_free_arrays(&p);
			if (!err)
				err = add_place(x, PD_PROG, OURS, d.prog.id, at, file_off + c->pos);
			break;
		case PD_EXT_MAP:
		case PD_EXT_LINK:
		case PD_EXT_BTF:
			/* every item starts with its object's id */
			err = add_place(x, kinds[item.kind], OURS, d.prog.id, at,
					file_off + c->pos);
			break;
		default:
			/* An item of a later version: skip it. */
			break;
		}
		give_back(x, file_off + c->pos);
	}
	return err;
}

static int index_feature(struct pd_fact_index *x, int feat, struct pd_cursor *c,
			 __u64 file_off)
{
	size_t page = sysconf(_SC_PAGESIZE);

	x->given = file_off / page * page;
	switch (feat) {
	case PD_HEADER_BPF_PROG_INFO:
		return index_perf(x, PD_PROG, c, file_off);
	case PD_HEADER_BPF_BTF:
		return index_perf(x, PD_BTF, c, file_off);
	default:
		return index_bpfrec(x, c, file_off);
	}
}

/* The places @feat fills: one kind of perf's, or every kind of ours. */
static bool fills(int feat, enum pd_kind kind, int src)
{
	if (feat == PD_FEAT_BPFREC)
		return src == OURS;
	return src == PERF && kind == (feat == PD_HEADER_BPF_PROG_INFO ? PD_PROG : PD_BTF);
}

int pd_fact_index_feature(struct pd_fact_index *x, int feat, struct pd_cursor *c,
			  __u64 file_off)
{
	struct pd_cursor again = *c;
	bool unsorted = false;
	int kind, src, err;

	err = index_feature(x, feat, c, file_off);
	for (kind = 0; kind < PD_NR_KINDS; kind++)
		for (src = 0; src < NR_SOURCES; src++)
			if (fills(feat, kind, src))
				unsorted |= x->kinds[kind][src].unsorted;
	if (!err && unsorted) {
		/* out of order: every entry is a group of its own */
		for (kind = 0; kind < PD_NR_KINDS; kind++) {
			for (src = 0; src < NR_SOURCES; src++) {
				struct places *k = &x->kinds[kind][src];

				if (!fills(feat, kind, src))
					continue;
				k->nr = 0;
				k->one_by_one = true;
			}
		}
		*c = again;
		err = index_feature(x, feat, c, file_off);
	}
	return err;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pd_fact_index_finish(struct pd_fact_index *x)
{
	int i, src;

	/* lookups search groups by id; groups in order need no sort */
	for (i = 0; i < PD_NR_KINDS; i++)
		for (src = 0; src < NR_SOURCES; src++)
			if (x->kinds[i][src].one_by_one && x->kinds[i][src].nr)
				qsort(x->kinds[i][src].g, x->kinds[i][src].nr,
				      sizeof(struct group), group_cmp);
}

/* ---- lookups ----------------------------------------------------------- */

/* @len bytes of the file at @off into @dst (the index checked they exist). */
static int read_at(const struct pd_fact_index *x, __u64 off, void *dst, size_t len)
{
	ssize_t n;

	if (x->fd < 0) {
		memcpy(dst, x->buf + off, len);
		return 0;
	}
	n = pread(x->fd, dst, len, off);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * The length, id and kind of the entry at @p, of @avail bytes: 0 when it
 * does not fit.  An entry of ours of no object kind (the capture, a later
 * item) has kind PD_NR_KINDS.
 */
static size_t entry_info(int src, enum pd_kind perf_kind, const __u8 *p, size_t avail,
			 __u32 *id, enum pd_kind *kind)
{
	static const enum pd_kind kinds[] = {
		[PD_EXT_PROG] = PD_PROG, [PD_EXT_MAP] = PD_MAP,
		[PD_EXT_LINK] = PD_LINK, [PD_EXT_BTF] = PD_BTF,
	};
	const size_t id_at = offsetof(struct bpf_prog_info, id);
	struct pd_ext_item item;
	__u32 h[2];
	size_t len;

	*id = 0;
	*kind = perf_kind;
	if (avail < sizeof(h))
		return 0;
	memcpy(h, p, sizeof(h));
	if (src == PERF && perf_kind == PD_PROG) {
		len = 16 + (size_t)h[0] + h[1];
		if (h[0] >= id_at + sizeof(*id) && avail >= 16 + id_at + sizeof(*id))
			memcpy(id, p + 16 + id_at, sizeof(*id));
	} else if (src == PERF) {
		len = sizeof(h) + (size_t)h[1];
		*id = h[0];
	} else {
		memcpy(&item, p, sizeof(item));
		len = sizeof(item) + item.len;
		*kind = item.kind < sizeof(kinds) / sizeof(kinds[0]) && item.kind != PD_EXT_CAPTURE ?
			kinds[item.kind] : PD_NR_KINDS;
		if (item.fixed_len >= sizeof(*id) && avail >= sizeof(item) + sizeof(*id))
			memcpy(id, p + sizeof(item), sizeof(*id));
		/* items are padded to 8 bytes; the last one may end unpadded */
		if (len <= avail)
			len = PD_ALIGN8(len) <= avail ? PD_ALIGN8(len) : avail;
	}
	return len <= avail ? len : 0;
}

size_t pd_fact_entry_len(int feat, const __u8 *p, size_t avail)
{
	__u32 id;
	enum pd_kind kind;

	switch (feat) {
	case PD_HEADER_BPF_PROG_INFO:
		return entry_info(PERF, PD_PROG, p, avail, &id, &kind);
	case PD_HEADER_BPF_BTF:
		return entry_info(PERF, PD_BTF, p, avail, &id, &kind);
	case PD_FEAT_BPFREC:
		return entry_info(OURS, PD_NR_KINDS, p, avail, &id, &kind);
	}
	return 0;
}

/*
 * One entry of a PD_RECORD_FACTS record, checked as the features' are
 * at open; a bad one is skipped: the records before it stay readable.
 */
static void scan_entry(struct pd_fact_index *x, int feat, const __u8 *p, size_t avail,
		       __u64 file_off)
{
	struct pd_cursor c = { .p = p, .len = avail };
	struct pd_ext_item item;
	struct pd_cursor var;
	union ext_fixed d;
	struct pd_prog prog;
	struct pd_btf btf;
	enum pd_kind kind;
	size_t len;
	__u32 id;

	len = pd_fact_entry_len(feat, p, avail);
	if (!len)
		return;
	c.len = len;
	switch (feat) {
	case PD_HEADER_BPF_PROG_INFO:
		if (decode_prog_info(&c, &prog))
			return;
		pd_prog_free_arrays(&prog);
		add_place(x, PD_PROG, PERF, prog.id, file_off, file_off + len);
		return;
	case PD_HEADER_BPF_BTF:
		if (!decode_btf_data(&c, &btf, false))
			add_place(x, PD_BTF, PERF, btf.id, file_off, file_off + len);
		return;
	}
	if (ext_item(&c, &item, &d, &var))
		return;
	entry_info(OURS, PD_NR_KINDS, p, len, &id, &kind);
	if (item.kind == PD_EXT_CAPTURE) {
		/* the last one written is the latest */
		x->capture = d.capture;
		x->has_capture = true;
	} else if (item.kind == PD_EXT_LOADER) {
		add_loader(x, &d.loader);
	} else if (item.kind == PD_EXT_PROG) {
		memset(&prog, 0, sizeof(prog));
		if (!ext_prog(&prog, &d.prog, &var))
			add_place(x, PD_PROG, OURS, id, file_off, file_off + len);
		pd_prog_free_arrays(&prog);
	} else if (kind < PD_NR_KINDS) {
		add_place(x, kind, OURS, id, file_off, file_off + len);
	}
}

bool pd_fact_record(const __u8 *p, size_t size)
{
	struct pd_fact_header h;

	if (size < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	return h.header.type == PD_RECORD_FACTS && h.magic == PD_EXT_MAGIC;
}

void pd_fact_index_scan(struct pd_fact_index *x, const __u8 *buf, __u64 from, __u64 to)
{
	const size_t hdr = sizeof(struct pd_fact_header);
	struct pd_fact_header h;
	size_t page = sysconf(_SC_PAGESIZE);
	__u64 pos;
	int i, src;

	/* the records of an object are apart: every entry is a group of its own */
	for (i = 0; i < PD_NR_KINDS; i++)
		for (src = 0; src < NR_SOURCES; src++)
			x->kinds[i][src].one_by_one = true;
	x->given = from / page * page;
	for (pos = from; to - pos >= sizeof(h.header); pos += h.header.size) {
		memcpy(&h.header, buf + pos, sizeof(h.header));
		/* perf's own records need not be 8-byte multiples */
		if (h.header.size < sizeof(h.header) || h.header.size > to - pos ||
		    (h.header.size % 8 && h.header.type < PD_RECORD_USER_TYPE_START))
			break;
		if (!pd_fact_record(buf + pos, h.header.size))
			continue;
		memcpy(&h, buf + pos, hdr);
		scan_entry(x, h.feat, buf + pos + hdr, h.header.size - hdr, pos + hdr);
		give_back(x, pos);
	}
	pd_fact_index_finish(x);
}

/* The bytes of group @i of @k, read once for the lookups that follow. */
static int read_group(const struct pd_fact_index *x, struct places *k, size_t i)
{
	size_t len = k->g[i].end - k->g[i].off;

	if (k->cached == i + 1)
		return 0;
	free(k->buf);
	k->cached = 0;
	k->buf = malloc(len ? len : 1);
	if (!k->buf)
		return -ENOMEM;
	if (read_at(x, k->g[i].off, k->buf, len)) {
		free(k->buf);
		k->buf = NULL;
		return -EIO;
	}
	k->len = len;
	k->cached = i + 1;
	return 0;
}

/* The last group whose first id is at most @id: where @id's entries are. */
static bool find_group(const struct places *k, __u32 id, size_t *i)
{
	size_t lo = 0, hi = k->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->g[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*i = lo - 1;
	return lo > 0;
}

/*
 * The entry of @id in the places of @kind from @src, and the bytes after
 * it in its group; NULL when it has none.  Of equal ids the last wins.
 */
static const __u8 *find_entry(struct pd_fact_index *x, enum pd_kind kind, int src, __u32 id,
			      size_t *avail)
{
	struct places *k = &x->kinds[kind][src];
	const __u8 *found = NULL;
	size_t i, pos, len;
	enum pd_kind ek;
	__u32 eid;

	if (!find_group(k, id, &i) || read_group(x, k, i))
		return NULL;
	for (pos = 0; pos < k->len; pos += len) {
		len = entry_info(src, kind, k->buf + pos, k->len - pos, &eid, &ek);
		if (!len)
			break;
		if (ek != kind)
			continue;
		if (eid == id)
			found = k->buf + pos;
		else if (eid > id)
			break;
	}
	if (found)
		*avail = k->buf + k->len - found;
	return found;
}

int pd_fact_decode(enum pd_kind kind, const __u8 *perf, size_t perf_len, const __u8 *ours,
		   size_t ours_len, void *fact)
{
	struct pd_prog *p = fact;
	struct pd_map *m = fact;
	struct pd_link *l = fact;
	struct pd_btf *b = fact;
	struct pd_cursor cur, var;
	struct pd_ext_item item;
	union ext_fixed d;
	int err = 0;

	if (perf) {
		cur = (struct pd_cursor){ .p = perf, .len = perf_len };
		err = kind == PD_PROG ? decode_prog_info(&cur, p) : decode_btf_data(&cur, b, true);
	}
	if (!err && ours) {
		cur = (struct pd_cursor){ .p = ours, .len = ours_len };
		err = ext_item(&cur, &item, &d, &var);
	}
	if (!err && ours) {
		switch (kind) {
		case PD_PROG:
			err = ext_prog(p, &d.prog, &var);
			break;
		case PD_MAP:
			*m = d.map;
			TERMINATE(m->name);
			TERMINATE(m->origin.comm);
			break;
		case PD_LINK:
			*l = d.link;
			TERMINATE(l->target);
			TERMINATE(l->origin.comm);
			break;
		case PD_BTF:
			ext_btf(b, &d.btf);
			break;
		default:
			break;
		}
	}
	if (err && kind == PD_PROG)
		pd_prog_free_arrays(p);
	if (err && kind == PD_BTF)
		pd_btf_release(b);
	return err;
}

/* Decode the facts of an object into @c from its entries, perf's and ours. */
static int decode_object(enum pd_kind kind, const __u8 *perf, size_t perf_len,
			 const __u8 *ours, size_t ours_len, struct cached *c)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	err = pd_fact_decode(kind, perf, perf_len, ours, ours_len, &c->prog);
	c->used = !err;
	return err;
}

const void *pd_fact_index_find(struct pd_fact_index *x, enum pd_kind kind, __u32 id)
{
	const __u8 *perf = NULL, *ours;
	size_t perf_len = 0, ours_len = 0;
	struct cached *c;
	int i;

	for (i = 0; i < PD_FACTS_CACHE; i++) {
		c = &x->cache[i];
		/* every fact starts with its id */
		if (c->used && c->kind == kind && *(const __u32 *)&c->prog == id)
			return &c->prog;
	}
	/* maps and links are ours alone; the two sources' groups are cached apart */
	if (kind == PD_PROG || kind == PD_BTF)
		perf = find_entry(x, kind, PERF, id, &perf_len);
	ours = find_entry(x, kind, OURS, id, &ours_len);
	if (!perf && !ours)
		return NULL;
	c = &x->cache[x->next];
	x->next = (x->next + 1) % PD_FACTS_CACHE;
	release(c);
	return decode_object(kind, perf, perf_len, ours, ours_len, c) ? NULL : &c->prog;
}

/*
 * The id of the entry of @kind the iterator of @src is at, moving past
 * entries of other kinds and into the next groups; false at the end.
 */
static bool iter_peek(struct pd_fact_index *x, enum pd_kind kind, int src,
		      struct pd_fact_iter *it, __u32 *id, size_t *len)
{
	struct places *k = &x->kinds[kind][src];
	enum pd_kind ek;

	for (; it->group[src] < k->nr; it->group[src]++, it->pos[src] = 0) {
		if (read_group(x, k, it->group[src]))
			return false;
		while (it->pos[src] < k->len) {
			*len = entry_info(src, kind, k->buf + it->pos[src], k->len - it->pos[src],
					  id, &ek);
			if (!*len)
				break;
			if (ek == kind)
				return true;
			it->pos[src] += *len;
		}
	}
	return false;
}

/* Past the entry the iterator of @src is at, and past its duplicates. */
static void iter_skip(struct pd_fact_index *x, enum pd_kind kind, int src,
		      struct pd_fact_iter *it, __u32 id)
{
	__u32 next;
	size_t len;

	while (iter_peek(x, kind, src, it, &next, &len) && next == id)
		it->pos[src] += len;
}

bool pd_fact_index_next(struct pd_fact_index *x, enum pd_kind kind, struct pd_fact_iter *it,
			__u32 *id)
{
	bool has_perf, has_ours;
	__u32 a = 0, b = 0;
	size_t len;

	/* the two sources, each in id order, walked as one; an id given once */
	has_perf = (kind == PD_PROG || kind == PD_BTF) &&
		   iter_peek(x, kind, PERF, it, &a, &len);
	has_ours = iter_peek(x, kind, OURS, it, &b, &len);
	if (!has_perf && !has_ours)
		return false;
	*id = !has_ours || (has_perf && a <= b) ? a : b;
	if (has_perf && a == *id)
		iter_skip(x, kind, PERF, it, *id);
	if (has_ours && b == *id)
		iter_skip(x, kind, OURS, it, *id);
	return true;
}

const struct pd_capture *pd_fact_index_capture(const struct pd_fact_index *x)
{
	return x->has_capture ? &x->capture : NULL;
}
