// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF object model's own operations: the kinds' names, deep copies
 * and release, and the id order script and report look facts up in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/bpf_obj.h"

const char *pd_kind_name(enum pd_kind kind)
{
	static const char *const names[PD_NR_KINDS] = {
		[PD_PROG] = "prog", [PD_MAP] = "map", [PD_LINK] = "link", [PD_BTF] = "btf",
	};

	return (unsigned int)kind < PD_NR_KINDS ? names[kind] : "?";
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
	p->meta = NULL;
	p->nr_meta = 0;
	p->nr_map_ids = p->nr_ksyms = p->nr_func_info = 0;
	p->nr_line_info = p->nr_func_names = 0;
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
	free(p->meta);
	forget_arrays(p);
}

int pd_btf_copy(struct pd_btf *dst, const struct pd_btf *src)
{
	*dst = *src;
	if (!src->data)
		dst->data_len = 0;
	dst->data = array_dup(src->data, dst->data_len, 1);
	return dst->data_len && !dst->data ? -ENOMEM : 0;
}

void pd_btf_release(struct pd_btf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
