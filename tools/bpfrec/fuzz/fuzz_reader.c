// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the perf.data reader and its sample decoder: any
 * input must give records or an error, never a crash, a leak or
 * undefined behaviour.  The facts
 * and strings handed out are touched so that ASan checks they are real.
 */
#include <stdint.h>
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

static void touch_facts(const struct pd_facts *f)
{
	size_t i, j;

	for (i = 0; i < f->nr_progs; i++) {
		const struct pd_prog *p = &f->progs[i];

		sink += strlen(p->name) + strlen(p->origin.comm);
		for (j = 0; j < p->nr_map_ids; j++)
			sink += p->map_ids[j];
		for (j = 0; j < p->nr_ksyms; j++)
			sink += p->ksym_addrs[j] + p->ksym_lens[j] +
				p->sub_tags[j][7];
		for (j = 0; j < p->nr_func_info; j++)
			sink += p->func_info[j].type_id;
		for (j = 0; j < p->nr_line_info; j++)
			sink += p->line_info[j].line_col;
		for (j = 0; j < p->nr_func_names; j++)
			sink += strlen(p->func_names[j]);
		sink += pd_facts_prog(f, p->id) != NULL;
	}
	for (i = 0; i < f->nr_maps; i++)
		sink += strlen(f->maps[i].name) + !!pd_facts_map(f, f->maps[i].id);
	for (i = 0; i < f->nr_links; i++)
		sink += strlen(f->links[i].target);
	for (i = 0; i < f->nr_btfs; i++) {
		sink += strlen(f->btfs[i].name);
		if (f->btfs[i].data_len)
			sink += ((const uint8_t *)f->btfs[i].data)[f->btfs[i].data_len - 1];
	}
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
	touch_facts(pd_reader_facts(r));
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
