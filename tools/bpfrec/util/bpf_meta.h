/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program's bpf_metadata_* variables (bpftool prog show's "metadata:"),
 * printed as perf 6.16 and later print them in PERF_RECORD_BPF_METADATA:
 * the name after the prefix, and the value as libbpf's btf_dump prints
 * it (a char array as a string in double quotes, an integer in decimal).
 */
#ifndef BPFREC_BPF_META_H
#define BPFREC_BPF_META_H

#include <stddef.h>
#include <linux/types.h>
#include "util/bpf_obj.h"

struct cap_prog_meta;

/*
 * @value (@len of the variable's @size bytes) printed into @dst of @dlen
 * bytes by @fmt (enum cap_meta_fmt), cut to fit as perf cuts it.
 */
void meta_format(char *dst, size_t dlen, __u32 fmt, const __u8 *value, __u32 len, __u32 size);
/* The metadata the capture read at load into @p (PD_F_META). */
int meta_from_capture(struct pd_prog *p, const struct cap_prog_meta *m);
/*
 * The metadata of program @id through the syscalls, as perf and bpftool
 * read them (the .rodata map by id, its BTF by id), while it exists.
 */
int meta_resolve(struct pd_prog *p);

#endif /* BPFREC_BPF_META_H */
