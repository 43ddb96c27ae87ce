/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's /proc/kallsyms, read once per recording: the
 * kernel map at the start and the tracing data at the end both need it,
 * and the kernel formats all of its 100k+ lines at each read.
 */
#ifndef BPFREC_KALLSYMS_COPY_H
#define BPFREC_KALLSYMS_COPY_H

#include <stdbool.h>
#include <stddef.h>

struct kallsyms_copy {
	char *text;		/* /proc/kallsyms as read, len bytes */
	size_t len;
	char *modules;		/* the modules' names and addresses then */
	size_t modules_len;
};

/* Read /proc/kallsyms now, and which modules it covers; a negative errno. */
int kallsyms_copy_read(struct kallsyms_copy *k);
/*
 * Read it again if modules came or went since (their symbols changed);
 * what was read stays when it cannot be.
 */
void kallsyms_copy_refresh(struct kallsyms_copy *k);
/* The address of symbol @name, false when it is absent or hidden (zero). */
bool kallsyms_copy_addr(const struct kallsyms_copy *k, const char *name,
			unsigned long long *addr);
void kallsyms_copy_free(struct kallsyms_copy *k);

#endif /* BPFREC_KALLSYMS_COPY_H */
