/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF instructions printed one a line as `bpftool prog dump xlated`
 * prints them ("   3: (bf) r6 = r1"): Debian's libbpf has no
 * disassembler, and bpftool's is its own.  Maps are named by id as the
 * kernel dumps them; helpers by their number, as a file has no kernel to
 * look their addresses up in.
 */
#ifndef BPFREC_BPF_DISASM_H
#define BPFREC_BPF_DISASM_H

#include <stddef.h>
#include <stdio.h>
#include <linux/bpf.h>

/*
 * Instruction @i of @nr at @insns into @buf (without its index); returns
 * how many instructions it took (2 for a 64-bit load, else 1).
 */
int bpf_disasm_insn(const struct bpf_insn *insns, size_t nr, size_t i, char *buf, size_t len);
/* All of them, each line "%4zu: TEXT". */
void bpf_disasm_print(FILE *f, const struct bpf_insn *insns, size_t nr);

#endif /* BPFREC_BPF_DISASM_H */
