/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's BTF, for questions asked of it at start-up (which
 * attr bits it has, which functions a trampoline can hook).
 */
#ifndef BPFREC_VMLINUX_BTF_H
#define BPFREC_VMLINUX_BTF_H

struct btf;

/* The vmlinux BTF to btf__free(); NULL (errno set) without one. */
struct btf *vmlinux_btf_load(void);
/*
 * The same, only if one of its strings is @name (NULL, errno ENOENT, when
 * none is): finding no string costs a scan, not a parse.
 */
struct btf *vmlinux_btf_load_naming(const char *name);
/*
 * A memfd holding the raw vmlinux BTF, for libbpf's btf_custom_path (its
 * own reading of the sysfs file takes the 4 KiB reads); -1 without one.
 */
int vmlinux_btf_memfd(void);

#endif /* BPFREC_VMLINUX_BTF_H */
