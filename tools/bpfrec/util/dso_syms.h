/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User symbols: the ELF symbol an offset of a mapped file falls in,
 * through elfutils' libdwfl (the file's .symtab or .dynsym, or the
 * separate debug file found by its build-id).  Each file is opened once.
 */
#ifndef BPFREC_DSO_SYMS_H
#define BPFREC_DSO_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"

struct dso;

struct dso_syms {
	struct hashmap by_key;		/* caller's key of a path -> index + 1 */
	struct dso **v;
	size_t nr, cap;
	size_t nr_changed;		/* files whose build-id differs from the record */
};

/*
 * The symbol at offset @file_off of file @path (a mapping's pgoff plus
 * the distance into it), and the distance into the symbol in @off (may
 * be NULL); NULL when the file cannot be read or no symbol covers it.  @key names @path for the cache (an interned id); @build_id
 * (may be NULL) is what the recording saw: a file that changed since is
 * not symbolised.  The name stays valid until dso_syms_free().
 */
const char *dso_syms_find(struct dso_syms *t, __u64 key, const char *path,
			  const __u8 *build_id, size_t build_id_len, __u64 file_off, __u64 *off);
void dso_syms_free(struct dso_syms *t);

#endif /* BPFREC_DSO_SYMS_H */
