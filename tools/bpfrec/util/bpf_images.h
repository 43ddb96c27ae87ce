/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's JIT images (BPF programs, trampolines, dispatchers) as a
 * recording's KSYMBOL records announce and withdraw them: replayed in
 * time order, the set answers which image an address was in at that
 * moment, also for a program unloaded long before the file is read.
 */
#ifndef BPFREC_BPF_IMAGES_H
#define BPFREC_BPF_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_image {
	__u64 addr;
	__u32 len;
	__u32 prog_id;			/* 0 until its PROG_LOAD names it */
	__u16 ksym_type;		/* PERF_RECORD_KSYMBOL_TYPE_* */
	char *name;			/* the KSYMBOL's, "bpf_prog_<tag>_<func>" */
	char *func;			/* BTF function name, NULL if unknown */
	char *prog;			/* the program's name, NULL if unknown */
};

struct bpf_images {
	struct bpf_image *v;		/* by address, not overlapping */
	size_t nr, cap;
};

/* A KSYMBOL registration; an image at the same address is replaced. */
int bpf_images_add(struct bpf_images *s, __u64 addr, __u32 len, __u16 ksym_type,
		   const char *name);
/* A KSYMBOL with PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER. */
void bpf_images_del(struct bpf_images *s, __u64 addr);
/* The image containing @addr now, or NULL. */
struct bpf_image *bpf_images_find(const struct bpf_images *s, __u64 addr);
/*
 * Program @id owns the image at @addr: @prog is its name and @func the
 * sub-program's function (either may be NULL).  -ENOENT: no image there.
 */
int bpf_images_set_prog(struct bpf_images *s, __u64 addr, __u32 id, const char *prog,
			const char *func);
/*
 * The function name of @img's code: its BTF name, else the KSYMBOL name
 * without "bpf_prog_<tag>_".
 */
const char *bpf_image_func(const struct bpf_image *img);
void bpf_images_free(struct bpf_images *s);

#endif /* BPFREC_BPF_IMAGES_H */
