/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols, from text in /proc/kallsyms' format ("ADDR TYPE NAME
 * [MODULE]"): the nearest symbol at or below an address.  The JIT images
 * of BPF programs ("[bpf]") are left out: a recording names them in its
 * KSYMBOL records, which also know the programs unloaded since.
 */
#ifndef BPFREC_KSYMS_H
#define BPFREC_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
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

/*
 * A kernel frame of the off-CPU profiler itself: its stacks are taken in
 * its sched_switch and sched_waking handlers, whose callers (the BPF
 * program, the tracepoint's run and iterator functions) lead every stack.
 * They are not the task's: the recorder leaves them out of the file, and
 * readers out of the files that still have them (older recordings, perf's).
 */
static inline bool ksym_profiler_frame(const char *sym)
{
	static const char *const own[] = {
		"bpf_trace_run", "__bpf_trace_", "__traceiter_", "bpf_prog_", "__bpf_prog_",
		"bpf_trampoline_",
	};
	size_t i;

	for (i = 0; sym && i < sizeof(own) / sizeof(own[0]); i++)
		if (!strncmp(sym, own[i], strlen(own[i])))
			return true;
	return false;
}

#endif /* BPFREC_KSYMS_H */
