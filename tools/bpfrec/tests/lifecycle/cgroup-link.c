// SPDX-License-Identifier: GPL-2.0
/*
 * The lifecycle test's loader and detacher, one binary that the test
 * copies under two names and paths:
 *
 *   cgroup-link load CGROUP_DIR   creates a hash map and an array of one
 *       entry, loads a cgroup_skb program that uses both (a map pointer and
 *       a pointer into the array's value, as a global variable is), attaches
 *       it to the cgroup with a link, prints "prog=P map=M array=A link=L",
 *       then waits for a line on stdin and exits: the program lives as long
 *       as the test holds it, no longer.
 *   cgroup-link detach LINK_ID     detaches that link (BPF_LINK_DETACH).
 *   cgroup-link attach CGROUP_DIR  loads the same program and attaches it
 *       the legacy way (BPF_PROG_ATTACH, BPF_F_ALLOW_MULTI, egress), prints
 *       "prog=P", then waits for a line on stdin and exits: the attachment
 *       keeps the program until someone detaches it.
 *   cgroup-link unattach CGROUP_DIR PROG_ID   detaches that program from
 *       the cgroup (BPF_PROG_DETACH, naming it).
 *   cgroup-link xlated PROG_ID     prints the SHA-256 of the program's
 *       instructions as BPF_OBJ_GET_INFO_BY_FD gives them (to compare).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <openssl/evp.h>

#define LD_MAP(reg, src, fd, off)						\
	{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = reg, .src_reg = src, .imm = fd },	\
	{ .imm = off }

static int info_id(int fd, void *info, __u32 len)
{
	memset(info, 0, len);
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -1 : 0;
}

/* The program of the test: what it does matters not, only that it is there. */
static int load_prog(int map, int array)
{
	struct bpf_insn insns[] = {
		/* r1 = &lc_hash; r2 = &lc_array[0] + 8; r0 = *(u64 *)r2 */
		LD_MAP(BPF_REG_1, BPF_PSEUDO_MAP_FD, map, 0),
		LD_MAP(BPF_REG_2, BPF_PSEUDO_MAP_VALUE, array, 8),
		{ .code = BPF_LDX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_2 },
		/* return 1: let the packet through */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_CGROUP_INET_INGRESS);

	return bpf_prog_load(BPF_PROG_TYPE_CGROUP_SKB, "lc_ingress", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

static int load(const char *cgroup)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi, ai;
	struct bpf_link_info li;
	int map, array, prog, cg, link;
	char line[16];

	map = bpf_map_create(BPF_MAP_TYPE_HASH, "lc_hash", 4, 8, 16, NULL);
	array = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lc_array", 4, 16, 1, NULL);
	if (map < 0 || array < 0) {
		perror("bpf_map_create");
		return 1;
	}
	prog = load_prog(map, array);
	if (prog < 0) {
		perror("bpf_prog_load");
		return 1;
	}
	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		perror(cgroup);
		return 1;
	}
	link = bpf_link_create(prog, cg, BPF_CGROUP_INET_INGRESS, NULL);
	if (link < 0) {
		perror("bpf_link_create");
		return 1;
	}
	if (info_id(prog, &pi, sizeof(pi)) || info_id(map, &mi, sizeof(mi)) ||
	    info_id(array, &ai, sizeof(ai)) || info_id(link, &li, sizeof(li))) {
		perror("bpf_obj_get_info_by_fd");
		return 1;
	}
	printf("prog=%u map=%u array=%u link=%u\n", pi.id, mi.id, ai.id, li.id);
	fflush(stdout);
	/* the test says when: after the detacher ran */
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}

/* The legacy attachment: no link, the cgroup keeps the program. */
static int attach(const char *cgroup)
{
	int map, array, prog, cg;
	struct bpf_prog_info pi;
	char line[16];

	map = bpf_map_create(BPF_MAP_TYPE_HASH, "lc_hash", 4, 8, 16, NULL);
	array = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lc_array", 4, 16, 1, NULL);
	prog = map < 0 || array < 0 ? -1 : load_prog(map, array);
	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (prog < 0 || cg < 0 ||
	    bpf_prog_attach(prog, cg, BPF_CGROUP_INET_EGRESS, BPF_F_ALLOW_MULTI) ||
	    info_id(prog, &pi, sizeof(pi))) {
		perror("attach");
		return 1;
	}
	printf("prog=%u\n", pi.id);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}

static int unattach(const char *cgroup, __u32 id)
{
	int prog = bpf_prog_get_fd_by_id(id);
	int cg = open(cgroup, O_RDONLY | O_DIRECTORY);

	if (prog < 0 || cg < 0 || bpf_prog_detach2(prog, cg, BPF_CGROUP_INET_EGRESS)) {
		perror("unattach");
		return 1;
	}
	return 0;
}

static int detach(__u32 id)
{
	int fd = bpf_link_get_fd_by_id(id);

	if (fd < 0 || bpf_link_detach(fd)) {
		perror("detach");
		return 1;
	}
	return 0;
}

static int xlated(__u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), i, n;
	unsigned char sha[32];
	void *insns;
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("prog");
		return 1;
	}
	n = info.xlated_prog_len;
	insns = calloc(1, n);
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n;
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	len = sizeof(info);
	if (!insns || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    !EVP_Digest(insns, n, sha, NULL, EVP_sha256(), NULL)) {
		perror("xlated");
		return 1;
	}
	for (i = 0; i < sizeof(sha); i++)
		printf("%02x", sha[i]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "load"))
		return load(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "attach"))
		return attach(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "unattach"))
		return unattach(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "detach"))
		return detach(strtoul(argv[2], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "xlated"))
		return xlated(strtoul(argv[2], NULL, 0));
	fprintf(stderr, "usage: %s load CGROUP_DIR | detach LINK_ID | attach CGROUP_DIR | unattach CGROUP_DIR PROG_ID | xlated PROG_ID\n", argv[0]);
	return 2;
}
