// SPDX-License-Identifier: GPL-2.0
/*
 * The facts of the objects, written into the data as they are learnt:
 * one PD_RECORD_FACTS record per feature entry (format.h), flushed with
 * the records around them, so that kill -9 or a full disk loses no fact
 * of a record that reached the file.  Nothing of an object is kept but
 * where its latest records are (16 bytes): its facts are read back when
 * the recorder asks again (an update), and at close, when the features
 * BPF_PROG_INFO, BPF_BTF and BPFREC are rebuilt from them in id order,
 * one entry per object, for perf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/perf_data/format.h"

/* Where an object's records start, and whether the first is perf's entry. */
#define WHERE(off, perf)	((off) << 1 | (perf))
#define WHERE_OFF(v)		((v) >> 1)
#define WHERE_PERF(v)		((v) & 1)

/* Where the records of object @id are (WHERE()); @seq orders rewrites. */
struct place {
	__u32 id;
	__u32 seq;
	__u64 where;
};

/*
 * The places of one kind.  Ids come mostly in increasing order (the
 * kernel hands them out so): a[0..sorted) is in id order with one place
 * per id, the rest came after, and is sorted into it when it is not
 * simply larger.  Cheaper than a hash map, which is 50 to 100 bytes an
 * entry at its load factor.
 */
struct places {
	struct place *a;
	size_t nr, cap, sorted;
	__u32 seq;
};

/* Places searched one by one before they are sorted in. */
#define TAIL_MAX	64

struct pd_fact_log {
	struct pd_fact_store store;	/* where the records go, and are read back */
	struct places where[PD_NR_KINDS];
	/* BTF data too large for a record: written in BPF_BTF at close only */
	struct pd_btf *big;
	size_t nr_big, cap_big;
	struct pd_capture capture;
	bool has_capture;
	struct pd_loader *loaders;	/* few: one per task that made objects */
	size_t nr_loaders, cap_loaders;
	/*
	 * The buffers a program's, map's or link's entry is built in, kept
	 * for the next: a storm logs thousands of programs a second, and
	 * allocating them for each was a tenth of the recorder's time.
	 */
	struct pd_buf entry, arrays;
};

struct pd_fact_log *pd_fact_log_new(const struct pd_fact_store *store)
{
	struct pd_fact_log *l = calloc(1, sizeof(*l));

	if (l)
		l->store = *store;
	return l;
}

void pd_fact_log_free(struct pd_fact_log *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < PD_NR_KINDS; i++)
		free(l->where[i].a);
	for (i = 0; i < l->nr_big; i++)
		pd_btf_release(&l->big[i]);
	free(l->big);
	free(l->loaders);
	pd_buf_free(&l->entry);
	pd_buf_free(&l->arrays);
	free(l);
}

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the tail in: usually its ids are all larger than the rest, else
 * it is merged in from the end.  Of the places of an id, the last
 * written stays.
 */
static void fold(struct places *k)
{
	struct place tail[TAIL_MAX + 1];
	size_t i = k->sorted, j = k->nr - k->sorted, dst = k->nr, n;

	if (!j)
		return;
	qsort(k->a + i, j, sizeof(*k->a), cmp_place);
	if (i && k->a[i - 1].id >= k->a[i].id) {
		memcpy(tail, k->a + i, j * sizeof(*k->a));
		while (j) {
			if (i && cmp_place(&k->a[i - 1], &tail[j - 1]) > 0)
				k->a[--dst] = k->a[--i];
			else
				k->a[--dst] = tail[--j];
		}
	}
	/* from where the tail's first place landed: duplicates are after it */
	for (n = i = i ? i - 1 : 0; i < k->nr; i++) {
		if (i + 1 < k->nr && k->a[i + 1].id == k->a[i].id)
			continue;
		k->a[n++] = k->a[i];
	}
	k->nr = k->sorted = n;
}

static const struct place *find(const struct places *k, __u32 id)
{
	size_t lo = 0, hi = k->sorted, i;

	/* the tail is newer than the sorted part: its last place of id wins */
	for (i = k->nr; i > k->sorted; i--)
		if (k->a[i - 1].id == id)
			return &k->a[i - 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->a[mid].id == id)
			return &k->a[mid];
		if (k->a[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool pd_fact_log_has(const struct pd_fact_log *l, enum pd_kind kind, __u32 id)
{
	return find(&l->where[kind], id) != NULL;
}

static int remember(struct pd_fact_log *l, enum pd_kind kind, __u32 id, __u64 off, bool perf)
{
	struct places *k = &l->where[kind];

	if (array_room(&k->a, &k->cap, k->nr, sizeof(*k->a)))
		return -ENOMEM;
	k->a[k->nr++] = (struct place){ .id = id, .seq = k->seq++, .where = WHERE(off, perf) };
	if (k->nr - k->sorted > TAIL_MAX)
		fold(k);
	return 0;
}

/* The log's entry buffer, emptied for a new entry. */
static struct pd_buf *new_entry(struct pd_fact_log *l)
{
	l->entry.len = 0;
	l->entry.err = 0;
	return &l->entry;
}

/* Append the entry built in @e as a record (and empty @e for the next). */
static int append(struct pd_fact_log *l, __u32 feat, struct pd_buf *e, __u64 *off)
{
	int err = e->err ? e->err : l->store.append(l->store.ctx, feat, e, off);

	e->len = 0;
	return err;
}

int pd_fact_log_prog(struct pd_fact_log *l, const struct pd_prog *p)
{
	bool perf = !(p->flags & PD_F_UNRESOLVED);
	struct pd_buf *e = new_entry(l);
	__u64 first = 0, off;
	struct pd_prog bare;
	int err = 0;

	if (perf) {
		pd_encode_prog_info(p, true, e, &l->arrays);
		err = append(l, PD_HEADER_BPF_PROG_INFO, e, &first);
		/* line info beyond a record: perf has no use of it without instructions */
		if (err == -E2BIG) {
			pd_encode_prog_info(p, false, e, &l->arrays);
			err = append(l, PD_HEADER_BPF_PROG_INFO, e, &first);
		}
		if (err == -E2BIG) {
			perf = false;
			err = 0;
		}
	}
	if (!err) {
		pd_encode_ext_prog(p, e);
		err = append(l, PD_FEAT_BPFREC, e, &off);
	}
	if (err == -E2BIG) {
		/* thousands of sub-programs: their names do not fit */
		bare = *p;
		bare.nr_func_names = 0;
		pd_encode_ext_prog(&bare, e);
		err = append(l, PD_FEAT_BPFREC, e, &off);
	}
	if (err)
		return err;
	return remember(l, PD_PROG, p->id, perf ? first : off, perf);
}

/* A map or a link: one BPFREC item, the struct as it is (@size bytes, id first). */
static int log_item(struct pd_fact_log *l, enum pd_kind kind, __u16 item, const void *fact,
		    __u16 size)
{
	struct pd_buf *e = new_entry(l);
	__u64 off;
	int err;

	pd_encode_ext_item(e, item, fact, size, NULL);
	err = append(l, PD_FEAT_BPFREC, e, &off);
	return err ? err : remember(l, kind, *(const __u32 *)fact, off, false);
}

int pd_fact_log_map(struct pd_fact_log *l, const struct pd_map *m)
{
	return log_item(l, PD_MAP, PD_EXT_MAP, m, sizeof(*m));
}

int pd_fact_log_link(struct pd_fact_log *l, const struct pd_link *k)
{
	return log_item(l, PD_LINK, PD_EXT_LINK, k, sizeof(*k));
}

static struct pd_btf *big_btf(struct pd_fact_log *l, __u32 id)
{
	size_t i;

	for (i = 0; i < l->nr_big; i++)
		if (l->big[i].id == id)
			return &l->big[i];
	return NULL;
}

/* Data that does not fit a record stays here, the last one given of its id. */
static int keep_big(struct pd_fact_log *l, const struct pd_btf *b)
{
	struct pd_btf *slot = big_btf(l, b->id);

	if (slot) {
		pd_btf_release(slot);
	} else {
		if (array_room(&l->big, &l->cap_big, l->nr_big, sizeof(*l->big)))
			return -ENOMEM;
		slot = &l->big[l->nr_big++];
	}
	if (pd_btf_copy(slot, b)) {
		*slot = l->big[--l->nr_big];
		return -ENOMEM;
	}
	return 0;
}

int pd_fact_log_btf(struct pd_fact_log *l, const struct pd_btf *b)
{
	bool perf = b->data_len != 0;
	struct pd_buf e = { 0 };
	__u64 first = 0, off;
	int err = 0;

	if (perf) {
		pd_encode_btf_data(b, &e);
		err = append(l, PD_HEADER_BPF_BTF, &e, &first);
		if (err == -E2BIG) {
			perf = false;
			err = keep_big(l, b);
		}
	}
	if (!err) {
		pd_encode_ext_btf(b, &e);
		err = append(l, PD_FEAT_BPFREC, &e, &off);
	}
	pd_buf_free(&e);
	return err ? err : remember(l, PD_BTF, b->id, perf ? first : off, perf);
}

int pd_fact_log_capture(struct pd_fact_log *l, const struct pd_capture *c)
{
	struct pd_buf e = { 0 };
	__u64 off;
	int err;

	l->capture = *c;
	l->has_capture = true;
	pd_encode_ext_item(&e, PD_EXT_CAPTURE, c, sizeof(*c), NULL);
	err = append(l, PD_FEAT_BPFREC, &e, &off);
	pd_buf_free(&e);
	return err;
}

int pd_fact_log_loader(struct pd_fact_log *l, const struct pd_loader *d)
{
	struct pd_buf e = { 0 };
	__u64 off;
	int err;

	if (array_room(&l->loaders, &l->cap_loaders, l->nr_loaders, sizeof(*l->loaders)))
		return -ENOMEM;
	l->loaders[l->nr_loaders++] = *d;
	pd_encode_ext_item(&e, PD_EXT_LOADER, d, sizeof(*d), NULL);
	err = append(l, PD_FEAT_BPFREC, &e, &off);
	pd_buf_free(&e);
	return err;
}

/* ---- reading back ------------------------------------------------------ */

/*
 * The entry of the record at @off into @e; returns the record's size (the
 * next record of the object follows), or a negative errno.
 */
static int read_record(struct pd_fact_log *l, __u64 off, __u32 feat, struct pd_buf *e)
{
	struct pd_fact_header h;
	size_t len;
	int err;

	err = l->store.read(l->store.ctx, off, &h, sizeof(h));
	if (err)
		return err;
	if (h.header.type != PD_RECORD_FACTS || h.magic != PD_EXT_MAGIC || h.feat != feat ||
	    h.header.size < sizeof(h))
		return -EIO;
	len = h.header.size - sizeof(h);
	e->len = 0;
	pd_buf_zero(e, len);
	if (e->err)
		return e->err;
	err = l->store.read(l->store.ctx, off + sizeof(h), e->p, len);
	if (!err)
		e->len = pd_fact_entry_len(feat, (const __u8 *)e->p, len);
	return err ? err : e->len ? h.header.size : -EIO;
}

/* The entries of an object: perf's in @perf (when it has one), ours in @ours. */
static int read_object(struct pd_fact_log *l, enum pd_kind kind, __u64 v, struct pd_buf *perf,
		       struct pd_buf *ours)
{
	__u64 off = WHERE_OFF(v);
	int size;

	perf->len = 0;
	if (WHERE_PERF(v)) {
		size = read_record(l, off, kind == PD_PROG ? PD_HEADER_BPF_PROG_INFO :
				   PD_HEADER_BPF_BTF, perf);
		if (size < 0)
			return size;
		off += size;
	}
	size = read_record(l, off, PD_FEAT_BPFREC, ours);
	return size < 0 ? size : 0;
}

int pd_fact_log_read(struct pd_fact_log *l, enum pd_kind kind, __u32 id, void *fact)
{
	const struct place *v = find(&l->where[kind], id);
	struct pd_buf perf = { 0 }, ours = { 0 };
	struct pd_btf *big, *b = fact;
	int err;

	if (!v)
		return -ENOENT;
	err = read_object(l, kind, v->where, &perf, &ours);
	if (!err)
		err = pd_fact_decode(kind, perf.len ? (const __u8 *)perf.p : NULL, perf.len,
				     (const __u8 *)ours.p, ours.len, fact);
	pd_buf_free(&perf);
	pd_buf_free(&ours);
	if (!err && kind == PD_BTF && !b->data && (big = big_btf(l, id))) {
		b->data = malloc(big->data_len);
		if (!b->data) {
			pd_btf_release(b);
			return -ENOMEM;
		}
		memcpy(b->data, big->data, big->data_len);
		b->data_len = big->data_len;
	}
	return err;
}

/* ---- the features, at close -------------------------------------------- */

/* The places of @kind in id order, one per object. */
static const struct place *in_order(struct pd_fact_log *l, enum pd_kind kind, size_t *nr)
{
	fold(&l->where[kind]);
	*nr = l->where[kind].nr;
	return l->where[kind].a;
}

/* How many of the @nr places @a start with perf's entry. */
static __u32 perf_entries(const struct place *a, size_t nr)
{
	__u32 count = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		count += WHERE_PERF(a[i].where);
	return count;
}

/* The BTF data of @id, for the programs that name it: the last one read is kept. */
struct btf_cache {
	__u32 id;
	bool valid;
	struct pd_buf entry;		/* a BPF_BTF entry: id, size, data */
	const void *data;
	__u32 len;
};

static void btf_data(struct pd_fact_log *l, __u32 id, struct btf_cache *c)
{
	const struct place *v = find(&l->where[PD_BTF], id);
	struct pd_btf *big;

	if (c->valid && c->id == id)
		return;
	c->valid = true;
	c->id = id;
	c->data = NULL;
	c->len = 0;
	if ((big = big_btf(l, id))) {
		c->data = big->data;
		c->len = big->data_len;
	} else if (v && WHERE_PERF(v->where) &&
		   read_record(l, WHERE_OFF(v->where), PD_HEADER_BPF_BTF, &c->entry) > 0) {
		c->data = c->entry.p + 8;
		c->len = c->entry.len - 8;
	}
}

static int stream_prog_info(struct pd_fact_log *l, struct pd_out *o)
{
	struct btf_cache cache = { 0 };
	struct pd_buf e = { 0 };
	struct bpf_prog_info info;
	size_t i, nr;
	const struct place *a = in_order(l, PD_PROG, &nr);
	__u32 count = perf_entries(a, nr), info_len;
	int err = 0;

	if (!count)
		return 0;
	pd_out_put(o, &count, sizeof(count));
	for (i = 0; i < nr && !err; i++) {
		if (!WHERE_PERF(a[i].where))
			continue;
		err = read_record(l, WHERE_OFF(a[i].where), PD_HEADER_BPF_PROG_INFO, &e);
		if (err < 0)
			break;
		err = 0;
		memcpy(&info_len, e.p, sizeof(info_len));
		memset(&info, 0, sizeof(info));
		memcpy(&info, e.p + 16, info_len < sizeof(info) ? info_len : sizeof(info));
		if (info.btf_id) {
			btf_data(l, info.btf_id, &cache);
			pd_prog_info_check_btf((__u8 *)e.p, e.len, cache.data, cache.len);
		}
		pd_out_put(o, e.p, e.len);
	}
	pd_buf_free(&cache.entry);
	pd_buf_free(&e);
	return err ? err : 1;
}

static int stream_btf(struct pd_fact_log *l, struct pd_out *o)
{
	struct pd_buf e = { 0 };
	size_t i, nr;
	const struct place *a = in_order(l, PD_BTF, &nr);
	__u32 count = l->nr_big + perf_entries(a, nr);
	int err = 0;

	if (!count)
		return 0;
	pd_out_put(o, &count, sizeof(count));
	for (i = 0; i < nr && err >= 0; i++)
		if (WHERE_PERF(a[i].where) &&
		    (err = read_record(l, WHERE_OFF(a[i].where), PD_HEADER_BPF_BTF, &e)) > 0)
			pd_out_put(o, e.p, e.len);
	for (i = 0; i < l->nr_big && err >= 0; i++) {
		e.len = 0;
		pd_encode_btf_data(&l->big[i], &e);
		pd_out_put(o, e.p, e.len);
	}
	pd_buf_free(&e);
	return err < 0 ? err : e.err ? e.err : 1;
}

static int stream_bpfrec(struct pd_fact_log *l, struct pd_out *o)
{
	struct pd_ext_header h = { .magic = PD_EXT_MAGIC, .version = PD_EXT_VERSION };
	struct pd_buf perf = { 0 }, ours = { 0 };
	const struct place *a;
	size_t i, nr;
	int kind, err = 0;

	pd_out_put(o, &h, sizeof(h));
	if (l->has_capture) {
		pd_encode_ext_item(&ours, PD_EXT_CAPTURE, &l->capture, sizeof(l->capture), NULL);
		pd_out_put(o, ours.p, ours.len);
	}
	for (i = 0; i < l->nr_loaders; i++) {
		ours.len = 0;
		pd_encode_ext_item(&ours, PD_EXT_LOADER, &l->loaders[i], sizeof(l->loaders[i]), NULL);
		pd_out_put(o, ours.p, ours.len);
	}
	for (kind = 0; kind < PD_NR_KINDS && !err; kind++) {
		a = in_order(l, kind, &nr);
		for (i = 0; i < nr && !err; i++)
			if (!(err = read_object(l, kind, a[i].where, &perf, &ours)))
				pd_out_put(o, ours.p, ours.len);
	}
	pd_buf_free(&perf);
	pd_buf_free(&ours);
	return err ? err : 1;
}

int pd_fact_log_feature(struct pd_fact_log *l, int feat, struct pd_out *o)
{
	switch (feat) {
	case PD_HEADER_BPF_PROG_INFO:
		return stream_prog_info(l, o);
	case PD_HEADER_BPF_BTF:
		return stream_btf(l, o);
	default:
		return stream_bpfrec(l, o);
	}
}
