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
 * One line per kind, "KIND ok" or "KIND failed: WHY" with the verifier's
 * reason; exit 1 if a kind failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

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

static int check_kind(const char *obj_path, const char *btf_path, const char *prefix)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct bpf_program *prog;
	struct bpf_object *obj;
	int err, n = 0;

	why[0] = 0;
	obj = bpf_object__open_file(obj_path, &opts);
	if (!obj)
		return -errno;
	bpf_object__for_each_program(prog, obj) {
		bool mine = !strncmp(bpf_program__name(prog), prefix, strlen(prefix)) &&
			    bpf_program__type(prog) != BPF_PROG_TYPE_TRACING;

		bpf_program__set_autoload(prog, mine);
		n += mine;
	}
	err = n ? bpf_object__load(obj) : -ENOENT;
	bpf_object__close(obj);
	return err;
}

int main(int argc, char **argv)
{
	size_t i;
	int err, rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: core-check CAPTURE_BPF_O VMLINUX\n");
		return 2;
	}
	libbpf_set_print(keep_reason);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		err = check_kind(argv[1], argv[2], prefixes[i]);
		if (err == -ENOENT && !why[0])
			snprintf(why, sizeof(why), "no syscall-path program");
		if (err) {
			printf("%.*s failed: %s\n", (int)strlen(prefixes[i]) - 1, prefixes[i], why);
			rc = 1;
		} else {
			printf("%.*s ok\n", (int)strlen(prefixes[i]) - 1, prefixes[i]);
		}
	}
	return rc;
}
