// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF programs the stat tests and benchmarks count: loads the target
 * (tests/stat/target.bpf.c, with BTF), or one without BTF, or test-runs a
 * program already loaded, with BPF_PROG_TEST_RUN.
 *
 *   stat-prog [-n] [-f] [-m] [-T] [-W] [-r RUNS] [-k REPEAT] [-s SEC] [-w SPIN] [-i ID]
 *   stat-prog -L
 *
 * Prints "id N" (and flushes) once the program is loaded, then runs it
 * RUNS times (test runs of REPEAT each: RUNS must be a multiple), prints
 * "ran N NS ns/run" (the kernel's mean time per run), holds it SEC seconds
 * (a fraction too: -s 0.05 is 50 ms)
 * (default 0) and exits, which unloads it.
 *   -n       a program without BTF (raw instructions, no func_info)
 *   -w SPIN  each run first adds up SPIN numbers in the program (at most
 *            10000: the verifier walks the loop), for profiles of its code
 *   -m       with -w: every tenth run adds up 100 x SPIN numbers (SPIN at
 *            most 100): run times of two modes, for stat -b --hist
 *   -i ID    run the loaded program ID instead of loading one
 *   -T       a caller and its callee (tests/stat/tailcall.bpf.c): each run
 *            of the caller tail-calls the callee once; "id CALLER" and
 *            "callee ID" are printed.  With -i ID, a caller loaded so: after
 *            the runs, "tail calls N", the callee's runs since its load as
 *            the programs count them in their .bss
 *   -W       wait for a line on stdin before the runs (a test's cue)
 *   -f       attach fentry and fexit programs that do nothing to it first
 *            (tests/stat/floor.bpf.c: the floor of the stat -b benchmark)
 *   -L       list the links that trace a BPF program, one line each:
 *            "traces PROG_ID ATTACH_TYPE", as BPF_OBJ_GET_INFO_BY_FD
 *            reports them (target_obj_id, attach_type), and exit
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tests/stat/floor.skel.h"
#include "tests/stat/target.skel.h"
#include "tests/stat/tailcall.skel.h"

static int load_no_btf(void)
{
	const struct bpf_insn insns[] = {
		/* r0 = XDP_PASS; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "stat_no_btf", "GPL", insns, 2, NULL);
}

/* Mean ns per run (the kernel's measure) in *ns. */
static int test_run(int fd, unsigned long runs, unsigned long repeat, double *ns)
{
	char pkt[64] = {};
	unsigned long done;
	double sum = 0;

	for (done = 0; done < runs; done += repeat) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = repeat);

		if (bpf_prog_test_run_opts(fd, &opts)) {
			fprintf(stderr, "stat-prog: test run: %s\n", strerror(errno));
			return -1;
		}
		sum += (double)opts.duration * repeat;
	}
	*ns = runs ? sum / runs : 0;
	return 0;
}

/* -T: the caller and callee loaded, the callee in the caller's slot 0; the caller's fd. */
static int load_tailcall(struct tailcall_bpf **tp)
{
	struct tailcall_bpf *t = tailcall_bpf__open_and_load();
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), key = 0;
	int fd;

	*tp = t;
	if (!t)
		return -1;
	fd = bpf_program__fd(t->progs.stat_tail_callee);
	if (bpf_map_update_elem(bpf_map__fd(t->maps.callees), &key, &fd, BPF_ANY) ||
	    bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	printf("callee %u\n", info.id);
	return bpf_program__fd(t->progs.stat_tail_caller);
}

/* -T -i: the callee's runs, from the .bss of the caller @fd (tailcall.bpf.c's struct). */
static int tail_calls(int fd, unsigned long long *n)
{
	__u32 ids[16], len = sizeof(struct bpf_prog_info), key = 0, i;
	struct bpf_prog_info info = { .nr_map_ids = 16, .map_ids = (unsigned long)ids };
	__u64 val[64];

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	for (i = 0; i < info.nr_map_ids && i < 16; i++) {
		struct bpf_map_info m = {};
		__u32 mlen = sizeof(m);
		int mfd = bpf_map_get_fd_by_id(ids[i]);
		size_t nl;

		if (mfd < 0)
			continue;
		nl = bpf_obj_get_info_by_fd(mfd, &m, &mlen) ? 0 : strlen(m.name);
		if (nl >= 4 && !strcmp(m.name + nl - 4, ".bss") && m.value_size >= 16 &&
		    m.value_size <= sizeof(val) && !bpf_map_lookup_elem(mfd, &key, val)) {
			close(mfd);
			*n = val[1];
			return 0;
		}
		close(mfd);
	}
	errno = ENOENT;
	return -1;
}

/* The info of program @id in *info, or -1. */
static int prog_info(__u32 id, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_prog_get_fd_by_id(id), err;

	if (fd < 0)
		return -1;
	memset(info, 0, sizeof(*info));
	err = bpf_obj_get_info_by_fd(fd, info, &len);
	close(fd);
	return err;
}

/*
 * -L: every tracing link whose target is a BPF program.  A link's target
 * object id is a program's or a BTF object's (vmlinux, a module): the two
 * kinds of id can be equal.  It is a program's when the tracing program
 * was loaded against a program: once attached, the kernel keeps no attach
 * BTF for it, so its attach_btf_obj_id is 0.
 */
static int list_tracing_links(void)
{
	struct bpf_prog_info tracer;
	__u32 id = 0;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* gone since */
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			info.type = BPF_LINK_TYPE_UNSPEC;
		close(fd);
		if (info.type == BPF_LINK_TYPE_TRACING && !prog_info(info.prog_id, &tracer) &&
		    !tracer.attach_btf_obj_id)
			printf("traces %u %u\n", info.tracing.target_obj_id, info.tracing.attach_type);
	}
	return errno == ENOENT ? 0 : 1;
}

/* The benchmark's floor: bare fentry and fexit on the target @fd. */
static struct floor_bpf *attach_floor(int fd)
{
	struct floor_bpf *floor = floor_bpf__open();

	if (!floor ||
	    bpf_program__set_attach_target(floor->progs.floor_entry, fd, "stat_target_with_a_long_name") ||
	    bpf_program__set_attach_target(floor->progs.floor_exit, fd, "stat_target_with_a_long_name") ||
	    floor_bpf__load(floor) || floor_bpf__attach(floor)) {
		fprintf(stderr, "stat-prog: attaching the floor programs: %s\n", strerror(errno));
		floor_bpf__destroy(floor);
		return NULL;
	}
	return floor;
}

int main(int argc, char **argv)
{
	unsigned long runs = 0, repeat = 1, id = 0, spin = 0;
	double hold = 0;
	struct target_bpf *skel = NULL;
	struct floor_bpf *floor = NULL;
	struct tailcall_bpf *tail = NULL;
	unsigned long long calls;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	bool no_btf = false, with_floor = false, bimodal = false, cue = false, tailcall = false;
	bool list = false;
	char line[16];
	double ns;
	int opt, fd;

	while ((opt = getopt(argc, argv, "nfmTWLr:k:s:w:i:")) != -1) {
		switch (opt) {
		case 'n': no_btf = true; break;
		case 'm': bimodal = true; break;
		case 'T': tailcall = true; break;
		case 'f': with_floor = true; break;
		case 'W': cue = true; break;
		case 'L': list = true; break;
		case 'r': runs = strtoul(optarg, NULL, 10); break;
		case 'k': repeat = strtoul(optarg, NULL, 10); break;
		case 's': hold = strtod(optarg, NULL); break;
		case 'w': spin = strtoul(optarg, NULL, 10); break;
		case 'i': id = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: stat-prog [-n] [-f] [-m] [-T] [-W] [-r RUNS] [-k REPEAT] [-s SEC] [-w SPIN] [-i ID] | -L\n");
			return 2;
		}
	}
	if (list)
		return list_tracing_links();
	if (!repeat || runs % repeat) {
		fprintf(stderr, "stat-prog: RUNS must be a multiple of REPEAT\n");
		return 2;
	}
	if (spin > 10000 || (bimodal && spin > 100)) {
		fprintf(stderr, "stat-prog: SPIN is at most 10000 (100 with -m)\n");
		return 2;
	}
	if (id) {
		fd = bpf_prog_get_fd_by_id(id);
	} else if (tailcall) {
		fd = load_tailcall(&tail);
	} else if (no_btf) {
		fd = load_no_btf();
	} else {
		skel = target_bpf__open();
		if (skel) {
			skel->rodata->spin = spin;
			skel->rodata->bimodal = bimodal;
		}
		if (skel && target_bpf__load(skel)) {
			target_bpf__destroy(skel);
			skel = NULL;
		}
		fd = skel ? bpf_program__fd(skel->progs.stat_target_with_a_long_name) : -1;
	}
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "stat-prog: loading: %s\n", strerror(errno));
		return 1;
	}
	printf("id %u\n", info.id);
	fflush(stdout);
	if (with_floor) {
		floor = attach_floor(fd);
		if (!floor)
			return 1;
	}
	if (cue && !fgets(line, sizeof(line), stdin))
		return 1;
	if (test_run(fd, runs, repeat, &ns))
		return 1;
	printf("ran %lu %.2f ns/run\n", runs, ns);
	if (tailcall && id) {
		if (tail_calls(fd, &calls)) {
			fprintf(stderr, "stat-prog: reading the tail calls: %s\n", strerror(errno));
			return 1;
		}
		printf("tail calls %llu\n", calls);
	}
	fflush(stdout);
	usleep(hold * 1e6);
	floor_bpf__destroy(floor);
	target_bpf__destroy(skel);
	tailcall_bpf__destroy(tail);
	return 0;
}
