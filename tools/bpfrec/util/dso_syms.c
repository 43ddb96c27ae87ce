// SPDX-License-Identifier: GPL-2.0
/*
 * A sample gives an address in a mapping; the mapping gives the file and
 * the file offset.  The offset becomes the ELF's virtual address through
 * the PT_LOAD segment holding it, and libdwfl, which loaded the file at
 * its link address (plus its bias), gives the symbols.  Its own lookup,
 * dwfl_module_addrinfo(), scans the whole symbol table each time: a
 * compiler's hundred thousand symbols made a system-wide profile take
 * seconds per thousand samples.  The functions are sorted once instead,
 * and each address is a binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include "util/array.h"
#include "util/dso_syms.h"

struct dso_sym {
	GElf_Addr addr;			/* in dwfl's space: with the bias */
	GElf_Xword size;		/* 0: up to the next symbol */
	const char *name;		/* in the ELF's string table */
	int rank;			/* of aliases, the lowest is shown */
};

struct dso {
	Dwfl *dwfl;			/* NULL: the file is unusable */
	Dwfl_Module *mod;
	Elf *elf;			/* the main file, owned by dwfl */
	GElf_Addr bias;
	struct dso_sym *syms;		/* the functions, by address */
	size_t nr_syms;
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

static int sym_cmp(const void *a, const void *b)
{
	const struct dso_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * Of aliases, what perf and dwfl show: a sized symbol (it bounds the
 * lookup), global before weak before local ("free", not "__GI___free").
 */
static int alias_rank(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);

	return (sym->st_size ? 0 : 4) + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
}

/* The module's functions (symtab, or the debug file's), sorted. */
static void load_syms(struct dso *d)
{
	int i, n = dwfl_module_getsymtab(d->mod);
	size_t cap = 0;

	for (i = 1; i < n; i++) {
		const char *name;
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;

		name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		if (array_room(&d->syms, &cap, d->nr_syms, sizeof(*d->syms)))
			return;
		d->syms[d->nr_syms++] = (struct dso_sym){ addr, sym.st_size, name,
							   alias_rank(&sym) };
	}
	if (d->nr_syms)
		qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
}

static const struct dso_sym *find_sym(const struct dso *d, GElf_Addr addr)
{
	size_t lo = 0, hi = d->nr_syms;
	const struct dso_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* the first of the aliases at that address */
	s = &d->syms[lo - 1];
	while (s > d->syms && s[-1].addr == s->addr)
		s--;
	return !s->size || addr - s->addr < s->size ? s : NULL;
}

/*
 * The path comes from a MMAP record of the file: opened without blocking
 * (a FIFO would wait for a writer, a device could act on the open) and
 * kept only if it is a regular file; libdw gets the descriptor.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void dso_open(struct dso_syms *t, struct dso *d, const char *path,
		     const __u8 *build_id, size_t build_id_len)
{
	int fd;

	/* [vdso], [heap], anon: nothing to open */
	if (path[0] != '/')
		return;
	fd = open_regular(path);
	if (fd < 0)
		return;
	d->dwfl = dwfl_begin(&callbacks);
	if (!d->dwfl) {
		close(fd);
		return;
	}
	d->mod = dwfl_report_elf(d->dwfl, path, path, fd, 0, false);
	/* the descriptor is libdw's once the module is reported */
	if (!d->mod)
		close(fd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (d->mod && !same_build_id(d->mod, build_id, build_id_len)) {
		t->nr_changed++;
		d->mod = NULL;
	}
	if (d->mod)
		d->elf = dwfl_module_getelf(d->mod, &d->bias);
	if (d->elf)
		load_syms(d);
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
			  const __u8 *build_id, size_t build_id_len, __u64 file_off, __u64 *off)
{
	struct dso *d = dso_get(t, key, path, build_id, build_id_len);
	const struct dso_sym *s;
	GElf_Addr vaddr;

	if (!d || !d->dwfl)
		return NULL;
	vaddr = offset_to_vaddr(d->elf, file_off);
	if (!vaddr)
		return NULL;
	s = find_sym(d, vaddr + d->bias);
	if (s && off)
		*off = vaddr + d->bias - s->addr;
	return s ? s->name : NULL;
}

void dso_syms_free(struct dso_syms *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		if (t->v[i]->dwfl)
			dwfl_end(t->v[i]->dwfl);
		free(t->v[i]->syms);
		free(t->v[i]);
	}
	free(t->v);
	hashmap_free(&t->by_key);
	memset(t, 0, sizeof(*t));
}
