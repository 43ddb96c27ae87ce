// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the perf.data reader and its sample decoder: any
 * input must give records or an error, never a crash, a leak or
 * undefined behaviour.  Files, pipe-mode streams (their attrs and
 * features in HEADER_ATTR and HEADER_FEATURE records) and zstd-compressed
 * records (perf record -z) all come through pd_reader_open_mem(); the
 * corpus has one of each from perf 6.1.  The facts
 * and strings handed out are touched so that ASan checks they are real.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/perf_data/perf_data.h"

static volatile size_t sink;

/* Every array of a decoded sample, read to its end. */
static void touch_sample(const struct pd_file_info *info, const struct pd_record *rec)
{
	const struct perf_event_attr *attr = &info->events[rec->event].attr;
	const struct pd_sample *s = &rec->sample;
	struct pd_read_value v;
	__u64 i;

	for (i = 0; i < s->read.nr; i++) {
		pd_read_value(attr, s, i, &v);
		sink += v.value + v.id + v.lost;
	}
	for (i = 0; i < s->nr_callchain; i++)
		sink += s->callchain[i];
	for (i = 0; i < s->raw_size; i++)
		sink += ((const uint8_t *)s->raw)[i];
	for (i = 0; i < s->nr_branches; i++)
		sink += s->branches[i].from + s->branches[i].to;
	for (i = 0; s->regs_user_abi && i < (__u64)__builtin_popcountll(attr->sample_regs_user); i++)
		sink += s->regs_user[i];
	for (i = 0; s->regs_intr_abi && i < (__u64)__builtin_popcountll(attr->sample_regs_intr); i++)
		sink += s->regs_intr[i];
	for (i = 0; i < s->stack_user_size; i++)
		sink += ((const uint8_t *)s->stack_user)[i];
	for (i = 0; i < s->aux_size; i++)
		sink += ((const uint8_t *)s->aux)[i];
}

static void touch_prog(const struct pd_prog *p)
{
	size_t j;

	sink += strlen(p->name) + strlen(p->origin.comm);
	for (j = 0; j < p->nr_map_ids; j++)
		sink += p->map_ids[j];
	for (j = 0; j < p->nr_ksyms; j++)
		sink += p->ksym_addrs[j] + p->ksym_lens[j] + p->sub_tags[j][7];
	for (j = 0; j < p->nr_func_info; j++)
		sink += p->func_info[j].type_id;
	for (j = 0; j < p->nr_line_info; j++)
		sink += p->line_info[j].line_col;
	for (j = 0; j < p->nr_func_names; j++)
		sink += strlen(p->func_names[j]);
	for (j = 0; (p->flags & PD_F_META) && j < p->nr_meta; j++)
		sink += strlen(p->meta[j].key) + strlen(p->meta[j].value);
}

/* The instructions the file kept of program @id (record --keep-insns). */
static void touch_insns(struct pd_reader *r, __u32 id)
{
	size_t len, j;
	void *insns;

	if (pd_reader_prog_insns(r, id, &insns, &len))
		return;
	for (j = 0; j < len; j++)
		sink += ((const uint8_t *)insns)[j];
	free(insns);
}

/* Every fact of every object, decoded from the file as lookups do it. */
static void touch_facts(struct pd_reader *r)
{
	struct pd_fact_iter it;
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;
	__u32 id;

	for (it = (struct pd_fact_iter){}; pd_reader_next_fact(r, PD_PROG, &it, &id);) {
		if ((p = pd_reader_prog(r, id)))
			touch_prog(p);
		touch_insns(r, id);
	}
	for (it = (struct pd_fact_iter){}; pd_reader_next_fact(r, PD_MAP, &it, &id);)
		if ((m = pd_reader_map(r, id)))
			sink += strlen(m->name) + strlen(m->origin.comm);
	for (it = (struct pd_fact_iter){}; pd_reader_next_fact(r, PD_LINK, &it, &id);)
		if ((l = pd_reader_link(r, id)))
			sink += strlen(l->target);
	for (it = (struct pd_fact_iter){}; pd_reader_next_fact(r, PD_BTF, &it, &id);) {
		b = pd_reader_btf(r, id);
		if (b)
			sink += strlen(b->name);
		if (b && b->data_len)
			sink += ((const uint8_t *)b->data)[b->data_len - 1];
	}
	if (pd_reader_capture(r))
		sink += pd_reader_capture(r)->lost_facts;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pd_file_info *info;
	struct pd_record rec;
	struct pd_reader *r;
	char err[256];

	r = pd_reader_open_mem(data, size, err, sizeof(err));
	if (!r) {
		sink += strlen(err);
		return 0;
	}
	info = pd_reader_info(r);
	if (info->hostname)
		sink += strlen(info->hostname);
	if (info->cmdline)
		sink += strlen(info->cmdline);
	touch_facts(r);
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type == PERF_RECORD_KSYMBOL)
			sink += strlen(rec.ksymbol.name);
		else if (rec.type == PERF_RECORD_COMM)
			sink += strlen(rec.comm.comm);
		else if (rec.type == PERF_RECORD_MMAP || rec.type == PERF_RECORD_MMAP2)
			sink += strlen(rec.mmap.filename);
		else if (rec.type == PERF_RECORD_SAMPLE && rec.has_sample)
			touch_sample(info, &rec);
		sink += rec.sample.time;
	}
	pd_reader_close(r);
	return 0;
}
