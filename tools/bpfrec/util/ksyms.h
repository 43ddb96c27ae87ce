/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols, from text in /proc/kallsyms' format ("ADDR TYPE NAME
 * [MODULE]"): the nearest symbol at or below an address.  The JIT images
 * of BPF programs ("[bpf]") are left out: a recording names them in its
 * KSYMBOL records, which also know the programs unloaded since.
 */
#ifndef BPFREC_KSYMS_H
#define BPFREC_KSYMS_H

#include <stddef.h>
#include <linux/types.h>

struct ksym {
	__u64 addr;
	const char *name;		/* in ksyms.text */
	const char *module;		/* NULL: the kernel image */
};

struct ksyms {
	struct ksym *syms;		/* by address */
	size_t nr;
	char *text;			/* a copy of the text, names cut in place */
};

/* Parse @len bytes of kallsyms text: 0, -ENOMEM, -ENOENT when there is
 * no symbol, or -EPERM when every address reads 0 (kptr_restrict hid them). */
int ksyms_parse(struct ksyms *k, const char *text, size_t len);
/* Read and parse a kallsyms file: 0 or a negative errno. */
int ksyms_load(struct ksyms *k, const char *path);
/* The symbol @addr falls in, NULL outside the kernel's symbols. */
const struct ksym *ksyms_find(const struct ksyms *k, __u64 addr);
/* The address of symbol @name, 0 when there is none. */
__u64 ksyms_addr(const struct ksyms *k, const char *name);
void ksyms_free(struct ksyms *k);

#endif /* BPFREC_KSYMS_H */
