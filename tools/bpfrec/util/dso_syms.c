// SPDX-License-Identifier: GPL-2.0
/*
 * A sample gives an address in a mapping; the mapping gives the file and
 * the file offset.  The offset becomes the ELF's virtual address through
 * the PT_LOAD segment holding it, and libdwfl, which loaded the file at
 * its link address (plus its bias), names the symbol there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include "util/array.h"
#include "util/dso_syms.h"

struct dso {
	Dwfl *dwfl;			/* NULL: the file is unusable */
	Dwfl_Module *mod;
	Elf *elf;			/* the main file, owned by dwfl */
	GElf_Addr bias;
};

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool same_build_id(Dwfl_Module *mod, const __u8 *id, size_t len)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (!id || !len)
		return true;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	return n > 0 && (size_t)n == len && !memcmp(bits, id, len);
}

static void dso_open(struct dso_syms *t, struct dso *d, const char *path,
		     const __u8 *build_id, size_t build_id_len)
{
	/* [vdso], [heap], anon: nothing to open */
	if (path[0] != '/')
		return;
	d->dwfl = dwfl_begin(&callbacks);
	if (!d->dwfl)
		return;
	d->mod = dwfl_report_elf(d->dwfl, path, path, -1, 0, false);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (d->mod && !same_build_id(d->mod, build_id, build_id_len)) {
		t->nr_changed++;
		d->mod = NULL;
	}
	if (d->mod)
		d->elf = dwfl_module_getelf(d->mod, &d->bias);
	if (!d->elf) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
	}
}

static struct dso *dso_get(struct dso_syms *t, __u64 key, const char *path,
			   const __u8 *build_id, size_t build_id_len)
{
	__u64 *slot;
	bool added;

	slot = hashmap_add(&t->by_key, key, &added);
	if (!slot)
		return NULL;
	if (!added)
		return t->v[*slot - 1];
	if (array_room(&t->v, &t->cap, t->nr, sizeof(*t->v)))
		return NULL;
	t->v[t->nr] = calloc(1, sizeof(struct dso));
	if (!t->v[t->nr])
		return NULL;
	dso_open(t, t->v[t->nr], path, build_id, build_id_len);
	*slot = ++t->nr;
	return t->v[t->nr - 1];
}

/* The virtual address file offset @off is loaded at, 0 if none. */
static GElf_Addr offset_to_vaddr(Elf *elf, __u64 off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz)
			return off - ph.p_offset + ph.p_vaddr;
	}
	return 0;
}

const char *dso_syms_find(struct dso_syms *t, __u64 key, const char *path,
			  const __u8 *build_id, size_t build_id_len, __u64 file_off)
{
	struct dso *d = dso_get(t, key, path, build_id, build_id_len);
	GElf_Addr vaddr, off;
	GElf_Sym sym;

	if (!d || !d->dwfl)
		return NULL;
	vaddr = offset_to_vaddr(d->elf, file_off);
	if (!vaddr)
		return NULL;
	return dwfl_module_addrinfo(d->mod, vaddr + d->bias, &off, &sym, NULL, NULL, NULL);
}

void dso_syms_free(struct dso_syms *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		if (t->v[i]->dwfl)
			dwfl_end(t->v[i]->dwfl);
		free(t->v[i]);
	}
	free(t->v);
	hashmap_free(&t->by_key);
	memset(t, 0, sizeof(*t));
}
