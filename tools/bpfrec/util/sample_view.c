// SPDX-License-Identifier: GPL-2.0
/*
 * Samples as script shows them.  BPF images are kept as KSYMBOL records
 * announce them and are looked up newest first: an address freed by an
 * unloaded program and reused by a later one names the later one, and a
 * sample in a program that was unloaded since still finds its name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/sample_view.h"

int sample_view_open(struct sample_view *v, struct pd_reader *r, char *warn, size_t len)
{
	const void *data;
	size_t size;
	char err[160];

	memset(v, 0, sizeof(*v));
	data = pd_reader_tracing_data(r, &size);
	if (!data)
		return 0;
	v->tep = trace_fields_open(data, size, err, sizeof(err));
	if (!v->tep)
		snprintf(warn, len, "%s: tracepoint fields and kernel symbols are not shown", err);
	return 0;
}

void sample_view_free(struct sample_view *v)
{
	size_t i;

	if (v->tep)
		trace_fields_close(v->tep);
	for (i = 0; i < v->nr_ksyms; i++)
		free(v->ksyms[i].name);
	free(v->ksyms);
	memset(v, 0, sizeof(*v));
}

enum sv_kind sample_view_kind(const struct pd_event_info *ev)
{
	if (ev->name && !strcmp(ev->name, SV_OFFCPU_EVENT))
		return SV_OFFCPU;
	switch (ev->attr.type) {
	case PERF_TYPE_TRACEPOINT:
		return SV_TRACEPOINT;
	case PERF_TYPE_SOFTWARE:
		/* the side-band's dummy and the objects' bpf-output carry no samples of ours */
		return ev->attr.config == PERF_COUNT_SW_DUMMY ||
		       ev->attr.config == PERF_COUNT_SW_BPF_OUTPUT ? SV_NONE : SV_SAMPLE;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return SV_SAMPLE;
	}
	return SV_NONE;
}

int sample_view_ksymbol(struct sample_view *v, const struct pd_ksymbol *k)
{
	struct sv_ksym *s;

	if (k->ksym_type != PERF_RECORD_KSYMBOL_TYPE_BPF ||
	    (k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		return 0;
	if (array_room(&v->ksyms, &v->cap_ksyms, v->nr_ksyms, sizeof(*v->ksyms)))
		return -ENOMEM;
	s = &v->ksyms[v->nr_ksyms];
	s->name = strdup(k->name);
	if (!s->name)
		return -ENOMEM;
	s->addr = k->addr;
	s->len = k->len;
	v->nr_ksyms++;
	return 0;
}

/* x86-64: the kernel's half of the address space */
#define KERNEL_START	0xffff800000000000ULL

/* The newest BPF image holding @addr, or NULL. */
static const struct sv_ksym *find_ksym(const struct sample_view *v, __u64 addr)
{
	size_t i;

	for (i = v->nr_ksyms; i-- > 0;)
		if (addr - v->ksyms[i].addr < v->ksyms[i].len)
			return &v->ksyms[i];
	return NULL;
}

enum sv_where sample_view_where(const struct sample_view *v, __u64 addr)
{
	if (addr < KERNEL_START)
		return SV_USER;
	return find_ksym(v, addr) ? SV_BPF : SV_KERNEL;
}

const char *sample_view_sym(const struct sample_view *v, __u64 addr, __u64 *off)
{
	const struct sv_ksym *k;

	if (addr < KERNEL_START)
		return NULL;
	k = find_ksym(v, addr);
	if (k) {
		*off = addr - k->addr;
		return k->name;
	}
	return v->tep ? trace_fields_ksym(v->tep, addr, off) : NULL;
}
