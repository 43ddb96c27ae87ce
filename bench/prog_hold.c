// SPDX-License-Identifier: GPL-2.0
/*
 * A machine with many BPF programs, all of them running: loads N XDP
 * programs and test-runs each of them RUNS times every second, until
 * killed.  The --all-progs benchmark (bench/run-stat-bench.sh) watches
 * them.
 *
 *   prog_hold [-n N] [-r RUNS]
 *
 * Prints "held N" (flushed) once every program is loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

static int load(void)
{
	const struct bpf_insn insns[] = {
		/* r0 = XDP_PASS; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_held", "GPL", insns, 2, NULL);
}

int main(int argc, char **argv)
{
	int n = 1000, runs = 10, opt, i, *fds;
	char pkt[64] = {};

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'r': runs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: prog_hold [-n N] [-r RUNS]\n");
			return 2;
		}
	}
	fds = calloc(n, sizeof(*fds));
	if (!fds)
		return 1;
	for (i = 0; i < n; i++) {
		fds[i] = load();
		if (fds[i] < 0) {
			fprintf(stderr, "prog_hold: loading program %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("held %d\n", n);
	fflush(stdout);
	for (;;) {
		for (i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
				    .repeat = runs);

			if (bpf_prog_test_run_opts(fds[i], &o)) {
				fprintf(stderr, "prog_hold: test run: %s\n", strerror(errno));
				return 1;
			}
		}
		sleep(1);
	}
}
