// SPDX-License-Identifier: GPL-2.0
/*
 * Loads the program of a BPF object (libbpf, not attached) and prints
 * "prog=ID" on stdout.  Without -w it unloads it 1 ms later; with -w it
 * holds it until stdin reaches its end, so that a test can look at it
 * with bpftool while it lives.
 *   usage: meta-load [-w] OBJECT
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "prog_hold.h"

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	bool hold = argc == 3 && !strcmp(argv[1], "-w");
	int err;

	if (argc != 2 + hold) {
		fprintf(stderr, "usage: meta-load [-w] OBJECT\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[argc - 1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "meta-load: cannot load %s\n", argv[argc - 1]);
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	err = prog_print_and_hold("meta-load", prog ? bpf_program__fd(prog) : -1, hold);
	bpf_object__close(obj);
	return err;
}
