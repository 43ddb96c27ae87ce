// SPDX-License-Identifier: GPL-2.0
/*
 * A printer of BPF instructions in the words of the kernel's verifier log
 * and of bpftool: every field is printed from the instruction itself,
 * whatever its bytes, so that a crafted file prints nonsense, never reads
 * past the instructions.
 */
#include <stdio.h>
#include "util/bpf_disasm.h"

static const char *const alu_ops[16] = {
	[BPF_ADD >> 4] = "+=", [BPF_SUB >> 4] = "-=", [BPF_MUL >> 4] = "*=",
	[BPF_DIV >> 4] = "/=", [BPF_OR >> 4] = "|=", [BPF_AND >> 4] = "&=",
	[BPF_LSH >> 4] = "<<=", [BPF_RSH >> 4] = ">>=", [BPF_MOD >> 4] = "%=",
	[BPF_XOR >> 4] = "^=", [BPF_MOV >> 4] = "=", [BPF_ARSH >> 4] = "s>>=",
};

static const char *const jmp_ops[16] = {
	[BPF_JEQ >> 4] = "==", [BPF_JGT >> 4] = ">", [BPF_JGE >> 4] = ">=",
	[BPF_JSET >> 4] = "&", [BPF_JNE >> 4] = "!=", [BPF_JSGT >> 4] = "s>",
	[BPF_JSGE >> 4] = "s>=", [BPF_JLT >> 4] = "<", [BPF_JLE >> 4] = "<=",
	[BPF_JSLT >> 4] = "s<", [BPF_JSLE >> 4] = "s<=",
};

static const char *const sizes[4] = {
	[BPF_W >> 3] = "u32", [BPF_H >> 3] = "u16", [BPF_B >> 3] = "u8", [BPF_DW >> 3] = "u64",
};

static int alu(const struct bpf_insn *in, char *buf, size_t len)
{
	char r = BPF_CLASS(in->code) == BPF_ALU64 ? 'r' : 'w';
	__u8 op = BPF_OP(in->code);

	if (op == BPF_END)
		return snprintf(buf, len, "(%02x) %c%d = %s%d %c%d", in->code, r, in->dst_reg,
				BPF_SRC(in->code) == BPF_TO_BE ? "be" : "le", in->imm, r, in->dst_reg);
	if (op == BPF_NEG)
		return snprintf(buf, len, "(%02x) %c%d = -%c%d", in->code, r, in->dst_reg, r,
				in->dst_reg);
	if (!alu_ops[op >> 4])
		return snprintf(buf, len, "(%02x) BUG_alu_%02x", in->code, in->code);
	if (BPF_SRC(in->code) == BPF_X)
		return snprintf(buf, len, "(%02x) %c%d %s %c%d", in->code, r, in->dst_reg,
				alu_ops[op >> 4], r, in->src_reg);
	return snprintf(buf, len, "(%02x) %c%d %s %d", in->code, r, in->dst_reg, alu_ops[op >> 4],
			in->imm);
}

static int atomic(const struct bpf_insn *in, const char *size, char *buf, size_t len)
{
	const char *w = BPF_SIZE(in->code) == BPF_DW ? "64" : "";
	static const char *const names[16] = {
		[BPF_ADD >> 4] = "add", [BPF_AND >> 4] = "and", [BPF_OR >> 4] = "or",
		[BPF_XOR >> 4] = "xor",
	};
	int op = in->imm & ~BPF_FETCH;

	if (in->imm == BPF_XCHG)
		return snprintf(buf, len, "(%02x) r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)",
				in->code, in->src_reg, w, size, in->dst_reg, in->off, in->src_reg);
	if (in->imm == BPF_CMPXCHG)
		return snprintf(buf, len, "(%02x) r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)",
				in->code, w, size, in->dst_reg, in->off, in->src_reg);
	if (op >= 0 && op < 256 && !(op & 0xf) && names[op >> 4] && (in->imm & BPF_FETCH))
		return snprintf(buf, len, "(%02x) r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)",
				in->code, in->src_reg, w, names[op >> 4], size, in->dst_reg,
				in->off, in->src_reg);
	if (op >= 0 && op < 256 && !(op & 0xf) && names[op >> 4])
		return snprintf(buf, len, "(%02x) lock *(%s *)(r%d %+d) %s r%d", in->code, size,
				in->dst_reg, in->off, alu_ops[op >> 4], in->src_reg);
	return snprintf(buf, len, "(%02x) BUG_atomic_%02x", in->code, in->imm & 0xff);
}

static int jmp(const struct bpf_insn *in, char *buf, size_t len)
{
	char r = BPF_CLASS(in->code) == BPF_JMP ? 'r' : 'w';
	__u8 op = BPF_OP(in->code);

	switch (op) {
	case BPF_CALL:
		/*
		 * A JITed program's dump has the sub-program's index in imm and
		 * the call's offset in off (the kernel's jit_subprogs()).
		 */
		if (in->src_reg == BPF_PSEUDO_CALL)
			return snprintf(buf, len, "(%02x) call pc%+d", in->code,
					in->off ? in->off : in->imm);
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			return snprintf(buf, len, "(%02x) call kernel-function", in->code);
		return snprintf(buf, len, "(%02x) call #%d", in->code, in->imm);
	case BPF_EXIT:
		return snprintf(buf, len, "(%02x) exit", in->code);
	case BPF_JA:
		if (BPF_CLASS(in->code) == BPF_JMP32)
			return snprintf(buf, len, "(%02x) gotol pc%+d", in->code, in->imm);
		return snprintf(buf, len, "(%02x) goto pc%+d", in->code, in->off);
	}
	if (!jmp_ops[op >> 4])
		return snprintf(buf, len, "(%02x) BUG_jmp_%02x", in->code, in->code);
	if (BPF_SRC(in->code) == BPF_X)
		return snprintf(buf, len, "(%02x) if %c%d %s %c%d goto pc%+d", in->code, r,
				in->dst_reg, jmp_ops[op >> 4], r, in->src_reg, in->off);
	return snprintf(buf, len, "(%02x) if %c%d %s 0x%x goto pc%+d", in->code, r, in->dst_reg,
			jmp_ops[op >> 4], (__u32)in->imm, in->off);
}

int bpf_disasm_insn(const struct bpf_insn *insns, size_t nr, size_t i, char *buf, size_t len)
{
	const struct bpf_insn *in = &insns[i];
	const char *size = sizes[BPF_SIZE(in->code) >> 3];
	__u64 imm;

	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		alu(in, buf, len);
		return 1;
	case BPF_JMP:
	case BPF_JMP32:
		jmp(in, buf, len);
		return 1;
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC)
			atomic(in, size, buf, len);
		else
			snprintf(buf, len, "(%02x) *(%s *)(r%d %+d) = r%d", in->code, size,
				 in->dst_reg, in->off, in->src_reg);
		return 1;
	case BPF_ST:
		snprintf(buf, len, "(%02x) *(%s *)(r%d %+d) = %d", in->code, size, in->dst_reg,
			 in->off, in->imm);
		return 1;
	case BPF_LDX:
		snprintf(buf, len, "(%02x) r%d = *(%s *)(r%d %+d)", in->code, in->dst_reg, size,
			 in->src_reg, in->off);
		return 1;
	}
	/* BPF_LD */
	if (BPF_MODE(in->code) == BPF_ABS) {
		snprintf(buf, len, "(%02x) r0 = *(%s *)skb[%d]", in->code, size, in->imm);
		return 1;
	}
	if (BPF_MODE(in->code) == BPF_IND) {
		snprintf(buf, len, "(%02x) r0 = *(%s *)skb[r%d + %d]", in->code, size, in->src_reg,
			 in->imm);
		return 1;
	}
	if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || i + 1 >= nr) {
		snprintf(buf, len, "(%02x) BUG_ld_%02x", in->code, in->code);
		return 1;
	}
	imm = (__u64)(__u32)insns[i + 1].imm << 32 | (__u32)in->imm;
	if (in->src_reg == BPF_PSEUDO_MAP_FD)
		snprintf(buf, len, "(%02x) r%d = map[id:%u]", in->code, in->dst_reg, (__u32)in->imm);
	else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
		snprintf(buf, len, "(%02x) r%d = map[id:%u][0]+%u", in->code, in->dst_reg,
			 (__u32)in->imm, (__u32)insns[i + 1].imm);
	else
		snprintf(buf, len, "(%02x) r%d = 0x%llx", in->code, in->dst_reg,
			 (unsigned long long)imm);
	return 2;
}

void bpf_disasm_print(FILE *f, const struct bpf_insn *insns, size_t nr)
{
	char buf[160];
	size_t i;
	int n;

	for (i = 0; i < nr; i += n) {
		n = bpf_disasm_insn(insns, nr, i, buf, sizeof(buf));
		fprintf(f, "%4zu: %s\n", i, buf);
	}
}
