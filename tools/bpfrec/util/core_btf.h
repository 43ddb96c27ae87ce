/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of the kernel's BTF that a BPF object's CO-RE relocations can
 * use: libbpf relocates against it as against the whole, without a scan of
 * every kernel type for each type the object relocates (util/core_btf.c).
 */
#ifndef BPFREC_CORE_BTF_H
#define BPFREC_CORE_BTF_H

struct btf;

/*
 * The types of @vmlinux that share a name with one of @local's, and all
 * they embed, with every pointer a pointer to void; NULL (errno set) on
 * failure.  btf__free() it.
 */
struct btf *core_btf_subset(const struct btf *local, const struct btf *vmlinux);
/* A memfd holding @btf's raw data, for libbpf's btf_custom_path; -1 on failure. */
int core_btf_memfd(const struct btf *btf);

#endif /* BPFREC_CORE_BTF_H */
