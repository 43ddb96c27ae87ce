// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF object model's own operations: deep copies and release, and
 * the id order script and report look facts up in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/bpf_obj.h"

/* Duplicate @n elements of @size bytes; NULL source or n == 0 gives NULL. */
static int dup_array(void *dstp, const void *src, size_t n, size_t size)
{
	void **dst = dstp;

	*dst = NULL;
	if (!src || !n)
		return 0;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * size);
	return 0;
}

/* Let go of a program's arrays without freeing them. */
static void forget_arrays(struct pd_prog *p)
{
	p->map_ids = NULL;
	p->ksym_addrs = NULL;
	p->ksym_lens = NULL;
	p->sub_tags = NULL;
	p->func_info = NULL;
	p->line_info = NULL;
	p->func_names = NULL;
	p->nr_map_ids = p->nr_ksyms = p->nr_func_info = 0;
	p->nr_line_info = p->nr_func_names = 0;
}

int pd_prog_copy(struct pd_prog *dst, const struct pd_prog *src)
{
	__u32 i;

	/* What fails half way frees only what was copied so far. */
	*dst = *src;
	forget_arrays(dst);

	/* A count without its array means nothing: drop it. */
	if (dup_array(&dst->map_ids, src->map_ids, src->nr_map_ids, 4))
		goto nomem;
	if (dst->map_ids)
		dst->nr_map_ids = src->nr_map_ids;
	if (src->ksym_addrs && src->ksym_lens && src->sub_tags) {
		if (dup_array(&dst->ksym_addrs, src->ksym_addrs, src->nr_ksyms, 8) ||
		    dup_array(&dst->ksym_lens, src->ksym_lens, src->nr_ksyms, 4) ||
		    dup_array(&dst->sub_tags, src->sub_tags, src->nr_ksyms,
			      BPF_TAG_SIZE))
			goto nomem;
		dst->nr_ksyms = src->nr_ksyms;
	}
	if (dup_array(&dst->func_info, src->func_info, src->nr_func_info,
		      sizeof(struct bpf_func_info)) ||
	    dup_array(&dst->line_info, src->line_info, src->nr_line_info,
		      sizeof(struct bpf_line_info)))
		goto nomem;
	if (dst->func_info)
		dst->nr_func_info = src->nr_func_info;
	if (dst->line_info)
		dst->nr_line_info = src->nr_line_info;

	if (src->func_names && src->nr_func_names) {
		dst->func_names = calloc(src->nr_func_names, sizeof(char *));
		if (!dst->func_names)
			goto nomem;
		dst->nr_func_names = src->nr_func_names;
		for (i = 0; i < dst->nr_func_names; i++) {
			dst->func_names[i] = strdup(src->func_names[i] ?
						    src->func_names[i] : "");
			if (!dst->func_names[i])
				goto nomem;
		}
	}
	return 0;
nomem:
	pd_prog_free_arrays(dst);
	return -ENOMEM;
}

void pd_prog_free_arrays(struct pd_prog *p)
{
	__u32 i;

	for (i = 0; p->func_names && i < p->nr_func_names; i++)
		free(p->func_names[i]);
	free(p->func_names);
	free(p->map_ids);
	free(p->ksym_addrs);
	free(p->ksym_lens);
	free(p->sub_tags);
	free(p->func_info);
	free(p->line_info);
	forget_arrays(p);
}

int pd_btf_copy(struct pd_btf *dst, const struct pd_btf *src)
{
	*dst = *src;
	if (!src->data)
		dst->data_len = 0;
	return dup_array(&dst->data, src->data, dst->data_len, 1);
}

void pd_btf_release(struct pd_btf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void pd_facts_release(struct pd_facts *f)
{
	size_t i;

	for (i = 0; i < f->nr_progs; i++)
		pd_prog_free_arrays(&f->progs[i]);
	for (i = 0; i < f->nr_btfs; i++)
		pd_btf_release(&f->btfs[i]);
	free(f->progs);
	free(f->maps);
	free(f->links);
	free(f->btfs);
	memset(f, 0, sizeof(*f));
}

/* Every fact struct starts with its __u32 id. */
struct id_pos {
	__u32 id;
	size_t pos;
};

static int id_pos_cmp(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Sort @nr elements of @size by id keeping, of equal ids, the last one
 * added (sorting by position breaks ties, as qsort is not stable).
 * Returns the new count; on allocation failure leaves the array as is.
 */
static size_t sort_dedup(void *base, size_t nr, size_t size,
			 void (*release)(void *))
{
	struct id_pos *order;
	char *tmp, *p = base;
	size_t i, n = 0;

	if (nr < 2)
		return nr;
	order = malloc(nr * sizeof(*order));
	tmp = malloc(nr * size);
	if (!order || !tmp) {
		free(order);
		free(tmp);
		return nr;
	}
	for (i = 0; i < nr; i++) {
		order[i].id = *(__u32 *)(p + i * size);
		order[i].pos = i;
	}
	qsort(order, nr, sizeof(*order), id_pos_cmp);
	for (i = 0; i < nr; i++) {
		char *elem = p + order[i].pos * size;

		if (i + 1 < nr && order[i + 1].id == order[i].id) {
			if (release)
				release(elem);
			continue;
		}
		memcpy(tmp + n++ * size, elem, size);
	}
	memcpy(base, tmp, n * size);
	free(order);
	free(tmp);
	return n;
}

static void release_prog(void *p)
{
	pd_prog_free_arrays(p);
}

static void release_btf(void *p)
{
	pd_btf_release(p);
}

void pd_facts_sort_dedup(struct pd_facts *f)
{
	f->nr_progs = sort_dedup(f->progs, f->nr_progs, sizeof(*f->progs),
				 release_prog);
	f->nr_maps = sort_dedup(f->maps, f->nr_maps, sizeof(*f->maps), NULL);
	f->nr_links = sort_dedup(f->links, f->nr_links, sizeof(*f->links),
				 NULL);
	f->nr_btfs = sort_dedup(f->btfs, f->nr_btfs, sizeof(*f->btfs),
				release_btf);
}

void *pd_find_id(const void *base, size_t nr, size_t size, __u32 id)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		void *e = (char *)base + mid * size;
		__u32 eid = *(__u32 *)e;

		if (eid == id)
			return e;
		if (eid < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct pd_btf *pd_facts_btf(const struct pd_facts *f, __u32 id)
{
	return pd_find_id(f->btfs, f->nr_btfs, sizeof(*f->btfs), id);
}
