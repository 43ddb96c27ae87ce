// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the capture loads on another kernel, checked on this one.
 *
 *   core-check CAPTURE_BPF_O VMLINUX
 *
 * For each kind of object (its programs are named "prog_", "map_", "link_"
 * and "btf_"), the kind's syscall-path programs are relocated against the
 * BTF of VMLINUX (another kernel's vmlinux, or its BTF) and loaded here.
 * A field or type that kernel lacks makes libbpf put an invalid call in
 * place of the access; if the program can reach it, the verifier refuses
 * the program, as it would on that kernel.  Offsets do not matter to the
 * verifier on this path: the programs read the kernel with
 * bpf_probe_read_kernel().  The trampoline programs are left out, as the
 * host may refuse them; they share their readers with the syscall path.
 *
 * Each kind is then loaded again, relocated against the part of that BTF
 * the recorder gives libbpf (util/core_btf.c), and every instruction must
 * be what it was against the whole BTF.
 *
 * One line per kind, "KIND ok" or "KIND failed: WHY" with the verifier's
 * reason or the first instruction that differs; exit 1 if a kind failed,
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/core_btf.h"

static const char *const prefixes[] = { "prog_", "map_", "link_", "btf_" };

/* Why the last kind failed: the verifier's last word, or else libbpf's first. */
static char why[256];

/* @len bytes of @line into why[] */
static void say_why(const char *line, size_t len)
{
	snprintf(why, sizeof(why), "%.*s", (int)len, line);
}

/*
 * A refused program's verifier log comes as one message; its reason is
 * the line before "processed N insns" (libbpf turns a reached invalid
 * call into "failed to resolve CO-RE relocation ...").
 */
static int keep_reason(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	const char *end, *start;
	char *msg;

	if (level == LIBBPF_DEBUG || vasprintf(&msg, fmt, ap) < 0)
		return 0;
	end = strstr(msg, "\nprocessed ");
	if (end) {
		for (start = end; start > msg && start[-1] != '\n'; start--)
			;
		say_why(start, end - start);
	} else if (!why[0]) {
		say_why(msg, strcspn(msg, "\n"));
	}
	free(msg);
	return 0;
}

/*
 * @obj_path opened to relocate against the BTF at @btf_path, its syscall-path
 * programs of kind @prefix loaded; NULL (*err set) on failure.
 */
static struct bpf_object *load_kind(const char *obj_path, const char *btf_path,
				    const char *prefix, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int n = 0;

	obj = bpf_object__open_file(obj_path, &opts);
	if (!obj) {
		*err = -errno;
		return NULL;
	}
	bpf_object__for_each_program(prog, obj) {
		bool mine = !strncmp(bpf_program__name(prog), prefix, strlen(prefix)) &&
			    bpf_program__type(prog) != BPF_PROG_TYPE_TRACING;

		bpf_program__set_autoload(prog, mine);
		n += mine;
	}
	*err = n ? bpf_object__load(obj) : -ENOENT;
	if (*err) {
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

/* Whether @a and @b are the same instruction but for a map's fd, which each object has its own of. */
static bool same_insn(const struct bpf_insn *a, const struct bpf_insn *b)
{
	if (a->code == (BPF_LD | BPF_IMM | BPF_DW) &&
	    (a->src_reg == BPF_PSEUDO_MAP_FD || a->src_reg == BPF_PSEUDO_MAP_VALUE))
		return a->code == b->code && a->src_reg == b->src_reg &&
		       a->dst_reg == b->dst_reg && a->off == b->off;
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Whether the programs of @whole and @part were relocated alike: the
 * recorder relocates against part of the kernel's BTF (util/core_btf.c).
 */
static bool same_relocations(struct bpf_object *whole, struct bpf_object *part)
{
	struct bpf_program *p = NULL, *q = NULL;
	size_t i, n;

	while ((p = bpf_object__next_program(whole, p)) &&
	       (q = bpf_object__next_program(part, q))) {
		if (!bpf_program__autoload(p))
			continue;
		n = bpf_program__insn_cnt(p);
		if (n != bpf_program__insn_cnt(q)) {
			snprintf(why, sizeof(why), "%s has %zu instructions relocated against "
				 "the subset, %zu against the whole", bpf_program__name(p),
				 bpf_program__insn_cnt(q), n);
			return false;
		}
		for (i = 0; i < n; i++) {
			if (!same_insn(&bpf_program__insns(p)[i], &bpf_program__insns(q)[i])) {
				snprintf(why, sizeof(why), "%s's instruction %zu is relocated "
					 "differently against the subset", bpf_program__name(p), i);
				return false;
			}
		}
	}
	return true;
}

static int check_kind(const char *obj_path, const char *btf_path, const char *subset_path,
		      const char *prefix)
{
	struct bpf_object *whole, *part;
	int err;

	why[0] = 0;
	whole = load_kind(obj_path, btf_path, prefix, &err);
	if (!whole)
		return err;
	part = load_kind(obj_path, subset_path, prefix, &err);
	if (part && !same_relocations(whole, part))
		err = -EINVAL;
	else if (!part && !why[0])
		snprintf(why, sizeof(why), "relocated against the subset: %s", strerror(-err));
	else if (!part)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), " (against the subset)");
	bpf_object__close(whole);
	bpf_object__close(part);
	return err;
}

/* The subset of @vmlinux's BTF the recorder relocates @obj_path against, in a memfd. */
static int subset_fd(const char *obj_path, const char *vmlinux_path)
{
	struct btf *vmlinux = btf__parse(vmlinux_path, NULL);
	struct bpf_object *obj = bpf_object__open_file(obj_path, NULL);
	struct btf *subset = NULL;
	int fd = -1;

	if (vmlinux && obj)
		subset = core_btf_subset(bpf_object__btf(obj), vmlinux);
	if (subset)
		fd = core_btf_memfd(subset);
	btf__free(subset);
	bpf_object__close(obj);
	btf__free(vmlinux);
	return fd;
}

int main(int argc, char **argv)
{
	char subset_path[32];
	size_t i;
	int err, fd, rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: core-check CAPTURE_BPF_O VMLINUX\n");
		return 2;
	}
	libbpf_set_print(keep_reason);
	fd = subset_fd(argv[1], argv[2]);
	if (fd < 0) {
		fprintf(stderr, "core-check: cannot take the subset of %s's BTF the capture uses\n",
			argv[2]);
		return 1;
	}
	snprintf(subset_path, sizeof(subset_path), "/proc/self/fd/%d", fd);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		err = check_kind(argv[1], argv[2], subset_path, prefixes[i]);
		if (err == -ENOENT && !why[0])
			snprintf(why, sizeof(why), "no syscall-path program");
		if (err) {
			printf("%.*s failed: %s\n", (int)strlen(prefixes[i]) - 1, prefixes[i], why);
			rc = 1;
		} else {
			printf("%.*s ok\n", (int)strlen(prefixes[i]) - 1, prefixes[i]);
		}
	}
	close(fd);
	return rc;
}
