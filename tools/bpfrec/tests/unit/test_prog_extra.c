// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what a file keeps of what a program is: its
 * bpf_metadata_* variables printed as perf prints them and read back
 * with its facts; its instructions kept in pieces (record --keep-insns)
 * and read back whole, or refused when a crafted file's pieces lie; and
 * the instructions printed as bpftool prints them; the capture's pieces
 * put together and hashed, with the accumulators reused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "tests/unit/unit.h"
#include "util/bpf_disasm.h"
#include "util/bpf_meta.h"
#include "util/prog_insns.h"
#include "util/perf_data/perf_data.h"
#include "bpf_skel/capture.h"

static bool formats(__u32 fmt, const void *v, __u32 len, __u32 size, const char *want)
{
	char buf[PD_META_VALUE_LEN];

	meta_format(buf, sizeof(buf), fmt, v, len, size);
	return CHECK(!strcmp(buf, want), "metadata of fmt %u, %u of %u bytes: '%s', want '%s'",
		     fmt, len, size, buf, want);
}

static void test_format(void)
{
	char lng[400];
	char want[PD_META_VALUE_LEN];
	__s32 neg = -42;
	__u8 u8 = 200;
	__s64 s64 = -5000000000LL;
	__u64 u128[2] = { 0x10, 0x2 }, u128lo[2] = { 0xabc, 0 };
	__u16 odd = 0x1234;

	formats(CAP_META_STRING, "bpfrec test", 12, 12, "\"bpfrec test\"");
	formats(CAP_META_STRING, "a\x01\"b\xff", 6, 8, "\"a\\x01\"b\\xff\"");
	formats(CAP_META_STRING, "", 1, 1, "\"\"");
	formats(CAP_META_SIGNED, &neg, 4, 4, "-42");
	formats(CAP_META_UNSIGNED, &neg, 4, 4, "4294967254");
	formats(CAP_META_UNSIGNED, &u8, 1, 1, "200");
	formats(CAP_META_SIGNED, &u8, 1, 1, "-56");
	formats(CAP_META_SIGNED, &s64, 8, 8, "-5000000000");
	formats(CAP_META_UNSIGNED, u128, 16, 16, "0x20000000000000010");
	formats(CAP_META_UNSIGNED, u128lo, 16, 16, "0xabc");
	/* a number not read whole, or of an odd size: its bytes */
	formats(CAP_META_SIGNED, &neg, 2, 4, "0xd6ff");
	formats(CAP_META_UNSIGNED, &odd, 2, 3, "0x3412");
	formats(CAP_META_BYTES, "\x01\x02", 2, 2, "0x0102");
	formats(CAP_META_PTR, &s64, 8, 8, "0xfffffffed5fa0e00");
	formats(CAP_META_PTR, "\0\0\0\0\0\0\0\0", 8, 8, "(nil)");
	/* cut as perf's 256 bytes cut it */
	memset(lng, 'x', sizeof(lng));
	want[0] = '"';
	memset(want + 1, 'x', sizeof(want) - 2);
	want[sizeof(want) - 1] = '\0';
	formats(CAP_META_STRING, lng, 256, sizeof(lng), want);
}

static const struct bpf_insn prog[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 0 },
	{ .code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = 10, .src_reg = 1, .off = -4 },
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_VALUE, .imm = 7 },
	{ .imm = 12 },
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2, .src_reg = BPF_PSEUDO_MAP_FD, .imm = 5 },
	{ 0 },
	{ .code = BPF_JMP | BPF_JSGT | BPF_K, .dst_reg = 1, .imm = 0, .off = 13 },
	{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 1, .off = 2 },
	{ .code = BPF_JMP | BPF_CALL, .imm = 14 },
	{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 6, .src_reg = 0, .imm = BPF_ADD },
	{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 0, .src_reg = 6, .off = 8 },
	{ .code = BPF_JMP | BPF_EXIT },
	/* a 64-bit load cut short by the end of the program */
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 3 },
};

static void test_disasm(void)
{
	static const char want[] =
		"   0: (b7) r1 = 0\n"
		"   1: (63) *(u32 *)(r10 -4) = r1\n"
		"   2: (18) r1 = map[id:7][0]+12\n"
		"   4: (18) r2 = map[id:5]\n"
		"   6: (65) if r1 s> 0x0 goto pc+13\n"
		"   7: (85) call pc+2\n"
		"   8: (85) call #14\n"
		"   9: (db) lock *(u64 *)(r6 +0) += r0\n"
		"  10: (79) r0 = *(u64 *)(r6 +8)\n"
		"  11: (95) exit\n"
		"  12: (18) BUG_ld_18\n";
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	bpf_disasm_print(f, prog, sizeof(prog) / sizeof(prog[0]));
	fclose(f);
	CHECK(got && !strcmp(got, want), "instructions as bpftool prints them:\n%s", got);
	free(got);
}

static struct pd_writer *writer(const char *file)
{
	static const __u64 ids[1] = { 1 };
	static struct perf_event_attr attr;

	attr = sideband_attr();
	return one_event_writer(file, &attr, ids, 1);
}

/* A program with metadata, and its instructions in 3 pieces, read back. */
static void test_round_trip(void)
{
	size_t n = 9000, i, len;	/* 72000 bytes: 3 pieces */
	struct bpf_insn *insns = calloc(n, sizeof(*insns));
	struct pd_meta meta[2] = { { "owner", "\"bpfrec test\"" }, { "level", "-42" } };
	struct pd_prog p = { .id = 42, .flags = PD_F_CAPTURED | PD_F_META, .type = 17,
			     .nr_meta = 2, .meta = meta };
	const struct pd_prog *q;
	struct pd_writer *w;
	struct pd_reader *r;
	char err[256] = "";
	void *got;

	for (i = 0; i < n; i++)
		insns[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = i };
	w = writer(path("rt.data"));
	CHECK(w && !pd_writer_add_prog(w, &p) && !pd_writer_add_insns(w, 42, insns, n * 8) &&
	      !pd_writer_add_insns(w, 43, insns, 8) && !pd_writer_close(w), "written");
	r = pd_reader_open(path("rt.data"), err, sizeof(err));
	if (!CHECK(r, "read: %s", err))
		return;
	q = pd_reader_prog(r, 42);
	CHECK(q && (q->flags & PD_F_META) && q->nr_meta == 2 && !strcmp(q->meta[0].key, "owner") &&
	      !strcmp(q->meta[0].value, "\"bpfrec test\"") && !strcmp(q->meta[1].key, "level") &&
	      !strcmp(q->meta[1].value, "-42"), "the metadata back with the facts");
	CHECK(!pd_reader_prog_insns(r, 42, &got, &len) && len == n * 8 && !memcmp(got, insns, len),
	      "72000 bytes of instructions back whole");
	free(got);
	CHECK(pd_reader_prog_insns(r, 44, &got, &len) == -ENOENT, "none of a program not kept");
	pd_reader_close(r);
	free(insns);
}

/*
 * The pieces of program 42 as a crafted file may have them: each case
 * a piece (id, total, off, len) and the bytes it says it has.
 */
static void test_crafted(void)
{
	static const struct {
		const char *what;
		__u32 total, off, len, nr;
		int want;
	} cases[] = {
		{ "a piece past its total", 16, 8, 16, 1, -EINVAL },
		{ "a piece missing", 24, 0, 8, 1, -EINVAL },
		{ "a total not of whole instructions", 12, 0, 12, 1, -EINVAL },
		{ "a total over 256 KiB", (256 << 10) + 8, 0, 8, 1, -EINVAL },
		{ "a length longer than the item", 16, 0, 16, 0, -EINVAL },
		{ "the pieces whole", 16, 0, 16, 2, 0 },
	};
	__u8 bytes[16] = { 0xb7, 0, 0, 0, 1, 0, 0, 0, 0x95 };
	size_t i, len, size;
	struct pd_writer *w;
	struct pd_reader *r;
	char err[256] = "";
	void *got;
	__u8 *d;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		w = writer(path("c.data"));
		/* a piece of the true length, patched in the file below */
		CHECK(w && !pd_writer_add_insns(w, 42, bytes, 16) && !pd_writer_close(w), "written");
		d = slurp(path("c.data"), &size);
		/* the item: fact header 16, item header 8, then id total off len */
		for (len = 0; d && len + 24 + 16 <= size; len += 8) {
			__u32 *f = (__u32 *)(d + len);

			if (f[0] == 42 && f[1] == 16 && f[2] == 0 && f[3] == 16) {
				f[1] = cases[i].total;
				f[2] = cases[i].off;
				f[3] = cases[i].nr ? cases[i].len : 4096;
				break;
			}
		}
		FILE *out = fopen(path("c.data"), "w");

		fwrite(d, 1, size, out);
		fclose(out);
		free(d);
		r = pd_reader_open(path("c.data"), err, sizeof(err));
		if (!CHECK(r, "read: %s", err))
			continue;
		got = NULL;
		CHECK(pd_reader_prog_insns(r, 42, &got, &len) == cases[i].want, "%s: %s",
		      cases[i].what, cases[i].want ? "refused" : "read");
		free(got);
		pd_reader_close(r);
	}
}


/* What prog_insns_piece() reported: the last hash of each of a few ids. */
struct hashed {
	__u8 sha[8][32];
	int calls[8];
};

static int on_hashed(void *ctx, __u32 id, const __u8 *sha256, const void *insns, size_t len)
{
	struct hashed *h = ctx;

	(void)insns;
	(void)len;
	if (id < 8) {
		memcpy(h->sha[id], sha256, 32);
		h->calls[id]++;
	}
	return 0;
}

/* Piece @off..@off+@len of @buf (@total bytes) of program @id. */
static int piece(struct prog_insns *pi, struct hashed *h, __u32 id, const __u8 *buf,
		 __u32 total, __u32 off, __u32 len)
{
	static struct cap_prog_insns c;

	c.kind = CAP_PROG_INSNS;
	c.id = id;
	c.off = off;
	c.len = len;
	c.total = total;
	memcpy(c.data, buf + off, len);
	return prog_insns_piece(pi, &c, on_hashed, h);
}

/* @total bytes of instructions that dump form leaves alone (no map loads), seeded. */
static __u8 *insns_of(__u32 total, unsigned int seed)
{
	struct bpf_insn *insns = calloc(1, total);
	__u32 i;

	for (i = 0; insns && i < total / sizeof(*insns); i++) {
		insns[i].code = BPF_ALU64 | BPF_ADD | BPF_K;
		insns[i].imm = seed * 1000 + i;
	}
	return (__u8 *)insns;
}

static bool sha_is(const struct hashed *h, __u32 id, const __u8 *buf, __u32 total)
{
	__u8 want[32];

	return EVP_Digest(buf, total, want, NULL, EVP_sha256(), NULL) &&
	       !memcmp(h->sha[id], want, 32);
}

/*
 * Two programs whose pieces interleave, as two CPUs send them; then more
 * programs than the accumulators kept for reuse, two large ones then a
 * small one, so that a reused one must forget the size and the pieces
 * counted of the program before; then a program whose piece could not
 * be read, which is dropped, and its id used again.
 */
static void test_pieces(void)
{
	struct prog_insns pi = {};
	const __u32 no_maps[1] = { 0 };
	__u32 big = CAP_INSNS_CHUNK + 64, small = 16 * 8, i, total;
	__u8 *a = insns_of(big, 1), *b = insns_of(small, 2), *c;
	struct hashed h = {};
	int ok = 0;

	prog_insns_ids(&pi, 1, no_maps, 0);
	prog_insns_ids(&pi, 2, no_maps, 0);
	piece(&pi, &h, 1, a, big, 0, CAP_INSNS_CHUNK);
	piece(&pi, &h, 2, b, small, 0, small);
	CHECK(h.calls[2] == 1 && h.calls[1] == 0 && sha_is(&h, 2, b, small),
	      "the small program hashed whole while the big one waits for its last piece");
	piece(&pi, &h, 1, a, big, CAP_INSNS_CHUNK, 64);
	CHECK(h.calls[1] == 1 && sha_is(&h, 1, a, big), "the big program hashed once whole");
	CHECK(pi.nr == 0, "no program left half put together: %zu", pi.nr);

	for (i = 0; i < 3 * PROG_INSNS_SPARE; i++) {
		total = i % 3 == 2 ? small : big;
		c = insns_of(total, 10 + i);
		prog_insns_ids(&pi, 3, no_maps, 0);
		piece(&pi, &h, 3, c, total, 0, total < CAP_INSNS_CHUNK ? total : CAP_INSNS_CHUNK);
		if (total > CAP_INSNS_CHUNK)
			piece(&pi, &h, 3, c, total, CAP_INSNS_CHUNK, total - CAP_INSNS_CHUNK);
		ok += h.calls[3] == (int)i + 1 && sha_is(&h, 3, c, total);
		free(c);
	}
	CHECK(ok == 3 * PROG_INSNS_SPARE, "%d of %d programs in a row hashed right",
	      ok, 3 * PROG_INSNS_SPARE);

	prog_insns_ids(&pi, 4, no_maps, 0);
	piece(&pi, &h, 4, a, big, 0, CAP_INSNS_CHUNK);
	piece(&pi, &h, 4, a, big, CAP_INSNS_CHUNK, 0);
	CHECK(h.calls[4] == 0 && pi.nr == 0, "a piece the kernel could not read drops its program");
	prog_insns_ids(&pi, 4, no_maps, 0);
	piece(&pi, &h, 4, b, small, 0, small);
	CHECK(h.calls[4] == 1 && sha_is(&h, 4, b, small), "its id, used again, hashed right");
	prog_insns_free(&pi);
	free(a);
	free(b);
}

int main(void)
{
	unit_setup();
	test_format();
	test_disasm();
	test_round_trip();
	test_crafted();
	test_pieces();
	return unit_done();
}
