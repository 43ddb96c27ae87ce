// SPDX-License-Identifier: GPL-2.0
/*
 * A program's instructions from the capture, put together, made as the
 * kernel dumps them, and hashed with OpenSSL's SHA-256.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <openssl/evp.h>
#include "util/prog_insns.h"
/* after the types it uses: it is shared with the BPF side, which has no uapi headers */
#include "bpf_skel/capture.h"

/* Opcodes of the kernel's internal instructions (include/linux/filter.h). */
#define BPF_TAIL_CALL_OP	0xf0
#define BPF_CALL_ARGS_OP	0xe0
#define BPF_PROBE_MEM_MODE	0x20
#define BPF_PROBE_MEM32_MODE	0xa0

struct prog_acc {
	__u8 *buf;
	__u32 cap;		/* bytes allocated at buf, kept when the acc is reused */
	__u32 total, got;
	bool has_ids, has_maps;
	__u32 nr_ids, nr_maps;
	__u32 ids[CAP_MAX_MAP_IDS];
	__u64 addrs[CAP_MAX_MAP_IDS];
	__u64 values[CAP_MAX_MAP_IDS];
	__u32 value_sizes[CAP_MAX_MAP_IDS];
};

/*
 * A storm sends thousands of programs a second, each put together in its
 * own acc: a few accs whose pieces are all in are kept, with their
 * buffers, for the next programs, rather than freed and allocated again.
 */
static struct prog_acc *acc_new(struct prog_insns *pi)
{
	struct prog_acc *a;

	if (!pi->nr_spare)
		return calloc(1, sizeof(struct prog_acc));
	a = pi->spare[--pi->nr_spare];
	/*
	 * The arrays are read only up to their counts, which start at 0; a
	 * total of 0 makes the first piece start the count of bytes again.
	 */
	a->total = 0;
	a->has_ids = false;
	a->has_maps = false;
	a->nr_ids = 0;
	a->nr_maps = 0;
	return a;
}

static struct prog_acc *acc_of(struct prog_insns *pi, __u32 id, bool create)
{
	__u64 *slot = create ? hashmap_add(&pi->progs, id, NULL) : hashmap_find(&pi->progs, id);
	struct prog_acc *a;

	if (!slot)
		return NULL;
	if (*slot)
		return (struct prog_acc *)(uintptr_t)*slot;
	if (!create)
		return NULL;
	a = acc_new(pi);
	if (a) {
		*slot = (uintptr_t)a;
		pi->nr++;
	}
	return a;
}

static void acc_drop(struct prog_insns *pi, __u32 id)
{
	__u64 *slot = hashmap_find(&pi->progs, id);
	struct prog_acc *a = slot && *slot ? (struct prog_acc *)(uintptr_t)*slot : NULL;

	if (!a)
		return;
	if (pi->nr_spare < PROG_INSNS_SPARE) {
		pi->spare[pi->nr_spare++] = a;
	} else {
		free(a->buf);
		free(a);
	}
	*slot = 0;
	pi->nr--;
	hashmap_prune(&pi->progs, pi->nr);
}

/*
 * The SHA-256 of @len bytes at @buf into @sha.  The digest and its
 * context are fetched once: OpenSSL 3 looks the algorithm up on every
 * EVP_Digest() call, which cost more than hashing a small program.
 */
int prog_insns_sha256(struct prog_insns *pi, const void *buf, size_t len, __u8 *sha)
{
	if (!pi->md_ctx) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
		pi->md = EVP_MD_fetch(NULL, "SHA256", NULL);
#else
		pi->md = (EVP_MD *)EVP_sha256();
#endif
		pi->md_ctx = EVP_MD_CTX_new();
		if (!pi->md || !pi->md_ctx)
			return -ENOMEM;
	}
	if (!EVP_DigestInit_ex(pi->md_ctx, pi->md, NULL) ||
	    !EVP_DigestUpdate(pi->md_ctx, buf, len) ||
	    !EVP_DigestFinal_ex(pi->md_ctx, sha, NULL))
		return -EINVAL;
	return 0;
}

int prog_insns_maps(struct prog_insns *pi, const struct cap_prog_maps *m)
{
	struct prog_acc *a = acc_of(pi, m->id, true);
	__u32 nr = m->nr < CAP_MAX_MAP_IDS ? m->nr : CAP_MAX_MAP_IDS;

	if (!a)
		return -ENOMEM;
	a->has_maps = true;
	a->nr_maps = nr;
	memcpy(a->addrs, m->addrs, nr * sizeof(*a->addrs));
	memcpy(a->values, m->values, nr * sizeof(*a->values));
	memcpy(a->value_sizes, m->value_sizes, nr * sizeof(*a->value_sizes));
	return 0;
}

/* The map of the address a 64-bit load holds: its index, and the offset into its value. */
static int map_of(__u64 imm, const __u64 *addrs, const __u64 *values,
		  const __u32 *value_sizes, __u32 nr, bool *value, __u32 *off)
{
	__u32 i;

	for (i = 0; i < nr; i++) {
		if (imm == addrs[i]) {
			*value = false;
			*off = 0;
			return i;
		}
		if (value_sizes[i] && imm >= values[i] && imm < values[i] + value_sizes[i]) {
			*value = true;
			*off = imm - values[i];
			return i;
		}
	}
	return -1;
}

void prog_insns_dump_form(struct bpf_insn *insns, size_t nr, const __u32 *ids,
			  const __u64 *addrs, const __u64 *values,
			  const __u32 *value_sizes, __u32 nr_maps)
{
	bool value;
	__u32 off;
	size_t i;
	__u64 imm;
	__u8 code;
	int m;

	for (i = 0; i < nr; i++) {
		code = insns[i].code;
		if (code == (BPF_JMP | BPF_TAIL_CALL_OP)) {
			insns[i].code = BPF_JMP | BPF_CALL;
			insns[i].imm = BPF_FUNC_tail_call;
			continue;
		}
		if (code == (BPF_JMP | BPF_CALL_ARGS_OP)) {
			insns[i].code = BPF_JMP | BPF_CALL;
			continue;
		}
		if (BPF_CLASS(code) == BPF_LDX && BPF_MODE(code) == BPF_PROBE_MEM_MODE) {
			insns[i].code = BPF_LDX | BPF_SIZE(code) | BPF_MEM;
			continue;
		}
		if ((BPF_CLASS(code) == BPF_LDX || BPF_CLASS(code) == BPF_STX ||
		     BPF_CLASS(code) == BPF_ST) && BPF_MODE(code) == BPF_PROBE_MEM32_MODE) {
			insns[i].code = BPF_CLASS(code) | BPF_SIZE(code) | BPF_MEM;
			continue;
		}
		if (code != (BPF_LD | BPF_IMM | BPF_DW) || i + 1 >= nr)
			continue;
		imm = (__u64)(__u32)insns[i + 1].imm << 32 | (__u32)insns[i].imm;
		m = map_of(imm, addrs, values, value_sizes, nr_maps, &value, &off);
		if (m < 0)
			continue;
		insns[i].src_reg = value ? BPF_PSEUDO_MAP_VALUE : BPF_PSEUDO_MAP_FD;
		insns[i].imm = ids[m];
		insns[i + 1].imm = off;
	}
}

int prog_insns_piece(struct prog_insns *pi, const struct cap_prog_insns *c,
		     prog_insns_fn fn, void *ctx)
{
	struct prog_acc *a;
	__u8 sha[32];
	int err;

	if (!c->total || c->total % sizeof(struct bpf_insn) ||
	    c->total > CAP_INSNS_MAX_CHUNKS * CAP_INSNS_CHUNK || c->len > CAP_INSNS_CHUNK ||
	    c->off > c->total - c->len)
		return 0;
	a = acc_of(pi, c->id, true);
	if (!a)
		return -ENOMEM;
	if (a->total != c->total) {
		if (a->cap < c->total) {
			free(a->buf);
			a->cap = 0;
			a->buf = malloc(c->total);
			if (!a->buf) {
				acc_drop(pi, c->id);
				return -ENOMEM;
			}
			a->cap = c->total;
		}
		a->total = c->total;
		a->got = 0;
	}
	/* a piece the kernel could not read makes the whole unknown */
	if (!c->len) {
		acc_drop(pi, c->id);
		return 0;
	}
	memcpy(a->buf + c->off, c->data, c->len);
	a->got += c->len;
	if (a->got < a->total)
		return 0;
	/* the maps of a program with maps came before its instructions, or not at all */
	err = 0;
	if (a->has_ids && (!a->nr_ids || a->has_maps)) {
		prog_insns_dump_form((struct bpf_insn *)a->buf, a->total / sizeof(struct bpf_insn),
				     a->ids, a->addrs, a->values, a->value_sizes,
				     a->nr_maps < a->nr_ids ? a->nr_maps : a->nr_ids);
		if (!prog_insns_sha256(pi, a->buf, a->total, sha))
			err = fn(ctx, c->id, sha, a->buf, a->total);
	}
	acc_drop(pi, c->id);
	return err;
}

int prog_insns_ids(struct prog_insns *pi, __u32 id, const __u32 *ids, __u32 nr)
{
	struct prog_acc *a;

	if (nr > CAP_MAX_MAP_IDS) {
		acc_drop(pi, id);
		return 0;
	}
	a = acc_of(pi, id, true);
	if (!a)
		return -ENOMEM;
	a->has_ids = true;
	a->nr_ids = nr;
	memcpy(a->ids, ids, nr * sizeof(*ids));
	return 0;
}

void prog_insns_free(struct prog_insns *pi)
{
	size_t i;

	for (i = 0; i < pi->progs.cap; i++) {
		struct prog_acc *a = (struct prog_acc *)(uintptr_t)pi->progs.e[i].val;

		if (pi->progs.e[i].used && a) {
			free(a->buf);
			free(a);
		}
	}
	hashmap_free(&pi->progs);
	pi->nr = 0;
	while (pi->nr_spare) {
		struct prog_acc *a = pi->spare[--pi->nr_spare];

		free(a->buf);
		free(a);
	}
	EVP_MD_CTX_free(pi->md_ctx);
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	EVP_MD_free(pi->md);
#endif
	pi->md_ctx = NULL;
	pi->md = NULL;
}
