// SPDX-License-Identifier: GPL-2.0
/*
 * storm: load N short-lived BPF programs back to back through the raw
 * bpf() syscall, each closed right after its load, so that a recorder has
 * to catch them while they exist for microseconds.
 *
 * Program i is named PREFIXi, returns i (so every tag differs) and
 * alternates between socket filter and sched_cls.  With -l FILE, it lists
 * "id name type tag" of every program, taken while the program was
 * loaded: the truth a recording is checked against.  With -k USEC, each
 * program lives that long before it is closed: long enough for a
 * recorder to find some of them still loaded.
 *
 * Usage: storm [-n N] [-p PREFIX] [-l FILE] [-k USEC]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int load(unsigned int i, const char *prefix)
{
	struct bpf_insn insns[] = {
		/* r0 = i; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = (int)i },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = i % 2 ? BPF_PROG_TYPE_SCHED_CLS : BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s%u", prefix, i);
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int list(FILE *out, int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	int i;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		return -errno;
	fprintf(out, "%u %s %u ", info.id, info.name, info.type);
	for (i = 0; i < BPF_TAG_SIZE; i++)
		fprintf(out, "%02x", info.tag[i]);
	fputc('\n', out);
	return 0;
}

int main(int argc, char **argv)
{
	const char *prefix = "storm", *path = NULL;
	unsigned int n = 2000, keep_us = 0, i;
	FILE *out = NULL;
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:p:l:k:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'l':
			path = optarg;
			break;
		case 'k':
			keep_us = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: storm [-n N] [-p PREFIX] [-l FILE] [-k USEC]\n");
			return 2;
		}
	}
	if (path && !(out = fopen(path, "w"))) {
		fprintf(stderr, "storm: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		fd = load(i, prefix);
		if (fd < 0) {
			fprintf(stderr, "storm: loading program %u: %s\n", i, strerror(errno));
			return 1;
		}
		if (out && list(out, fd)) {
			fprintf(stderr, "storm: info of program %u: %s\n", i, strerror(errno));
			return 1;
		}
		if (keep_us)
			usleep(keep_us);
		close(fd);
	}
	if (out && fclose(out)) {
		fprintf(stderr, "storm: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}
