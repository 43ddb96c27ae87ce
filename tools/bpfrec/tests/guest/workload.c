// SPDX-License-Identifier: GPL-2.0
/*
 * A small BPF workload for the recorder's guest tests and the `make run`
 * demo, with raw bpf() syscalls only (no libbpf) so that it links
 * statically and runs in a busybox initramfs.
 *
 * One round:
 *   1. BPF_BTF_LOAD of a tiny BTF blob: "int" and "struct demo_val";
 *   2. an array map "demo_map" with that BTF as key and value type
 *      (without BTF when the kernel refuses it);
 *   3. a raw_tracepoint program "demo_prog" that counts into the map;
 *   4. a link: BPF_RAW_TRACEPOINT_OPEN on sched_switch;
 *   5. close link, program, map and BTF, then wait until every id is
 *      gone, so that all release records (some come from a kworker) are
 *      emitted before the next round and before the workload exits.
 *
 *   usage: workload [-n ROUNDS] [-l FILE] [-w]
 *          workload -s COUNT [-l FILE]
 *          workload -c CGROUP_DIR [-l FILE]
 *          workload -o COUNT [-l FILE]
 *
 * -w holds each round's objects until a line (or EOF) arrives on stdin,
 * so that a test can start a recorder while they exist.
 *
 * -s is a storm of short-lived objects: one program, then COUNT times a
 * BTF, a map with it and a link of the program, each closed at once.
 *
 * -c changes a cgroup link's program: three cgroup_skb programs
 * (cg_prog_a, _b, _c), a link of a to CGROUP_DIR (ingress),
 * BPF_LINK_UPDATE to b (no flags), to c with BPF_F_REPLACE of b, then
 * BPF_LINK_DETACH, and close.
 *
 * -o races an opener against the creator of maps: a child named "opener"
 * opens every new map by id (BPF_MAP_GET_NEXT_ID, BPF_MAP_GET_FD_BY_ID)
 * as fast as it can, while the workload creates COUNT array maps
 * "race_map".  An opener can get its fd before the creator gets its own:
 * a recorder must still name the creator.  The creator closes each map only
 * once the opener holds it, so every map is opened by both tasks.
 *
 * -l FILE gets the ids, one object a line, read with
 * BPF_OBJ_GET_INFO_BY_FD while the object lives:
 *   pid PID
 *   btf ID SIZE
 *   map ID TYPE NAME
 *   prog ID TYPE NAME TAG
 *   link ID TYPE PROGID
 *   cglink ID PROG_A PROG_B PROG_C    (-c)
 *   opener PID HELD          (-o: how many of its maps the opener held)
 *   done                      (all released, just before exiting)
 * TYPE is libbpf's name of the map, program or link type.
 * Exit status: 0 ok, 1 a bpf() call failed, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#define MAP_NAME	"demo_map"
#define PROG_NAME	"demo_prog"
#define TP_NAME		"sched_switch"
#define RELEASE_WAIT_MS	20000

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

static FILE *ids;
static int hold;

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static __u64 ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

static __printf(1, 2) void id_line(const char *fmt, ...)
{
	va_list ap;

	if (!ids)
		return;
	va_start(ap, fmt);
	vfprintf(ids, fmt, ap);
	va_end(ap);
	fflush(ids);
}

static int obj_info(int fd, void *info, __u32 len)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = len;
	attr.info.info = ptr(info);
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

/* BTF: [1] int (32 bits, signed), [2] struct demo_val { int a; int b; } */
static const char btf_strs[] = "\0int\0demo_val\0a\0b";

struct demo_btf {
	struct btf_header hdr;
	__u32 types[3 + 1 + 3 + 2 * 3];
	char strs[sizeof(btf_strs)];
};

static int load_btf(void)
{
	static struct demo_btf b;
	static char log[4096];
	union bpf_attr attr;
	__u32 *t = b.types;
	int fd;

	memset(&b, 0, sizeof(b));
	/* int */
	*t++ = 1;				/* name_off "int" */
	*t++ = BTF_KIND_INT << 24;
	*t++ = 4;				/* size */
	*t++ = BTF_INT_SIGNED << 24 | 32;	/* encoding, offset 0, 32 bits */
	/* struct demo_val */
	*t++ = 5;				/* name_off "demo_val" */
	*t++ = BTF_KIND_STRUCT << 24 | 2;	/* two members */
	*t++ = 8;				/* size */
	*t++ = 14;				/* a: int, bit offset 0 */
	*t++ = 1;
	*t++ = 0;
	*t++ = 16;				/* b: int, bit offset 32 */
	*t++ = 1;
	*t++ = 32;
	memcpy(b.strs, btf_strs, sizeof(btf_strs));

	b.hdr.magic = BTF_MAGIC;
	b.hdr.version = BTF_VERSION;
	b.hdr.hdr_len = sizeof(b.hdr);
	b.hdr.type_off = 0;
	b.hdr.type_len = sizeof(b.types);
	b.hdr.str_off = sizeof(b.types);
	b.hdr.str_len = sizeof(b.strs);

	memset(&attr, 0, sizeof(attr));
	attr.btf = ptr(&b);
	attr.btf_size = offsetof(struct demo_btf, strs) + sizeof(btf_strs);
	fd = sys_bpf(BPF_BTF_LOAD, &attr);
	if (fd < 0) {
		int err = errno;

		/* again with a log, to say why */
		attr.btf_log_buf = ptr(log);
		attr.btf_log_size = sizeof(log);
		attr.btf_log_level = 1;
		log[0] = '\0';
		sys_bpf(BPF_BTF_LOAD, &attr);
		errno = err;
		fprintf(stderr, "workload: BPF_BTF_LOAD: %s\n%s", strerror(err), log);
	}
	return fd;
}

static int create_map(int btf_fd, int *with_btf)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	strncpy(attr.map_name, MAP_NAME, sizeof(attr.map_name) - 1);
	attr.btf_fd = btf_fd;
	attr.btf_key_type_id = 1;
	attr.btf_value_type_id = 2;
	fd = sys_bpf(BPF_MAP_CREATE, &attr);
	*with_btf = fd >= 0;
	if (fd < 0) {
		fprintf(stderr, "workload: map with BTF: %s; creating it without\n",
			strerror(errno));
		attr.btf_fd = 0;
		attr.btf_key_type_id = 0;
		attr.btf_value_type_id = 0;
		fd = sys_bpf(BPF_MAP_CREATE, &attr);
		if (fd < 0)
			fprintf(stderr, "workload: BPF_MAP_CREATE: %s\n", strerror(errno));
	}
	return fd;
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* value = lookup(map, 0); if (value) __sync_fetch_and_add(&value->a, 1); return 0; */
static int load_prog(int map_fd)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 0),
		INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_1, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_W, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[16384];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	attr.insns = ptr(insns);
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = ptr("GPL");
	strncpy(attr.prog_name, PROG_NAME, sizeof(attr.prog_name) - 1);
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		int err = errno;

		attr.log_buf = ptr(log);
		attr.log_size = sizeof(log);
		attr.log_level = 1;
		log[0] = '\0';
		sys_bpf(BPF_PROG_LOAD, &attr);
		fprintf(stderr, "workload: BPF_PROG_LOAD: %s\n%s", strerror(err), log);
	}
	return fd;
}

static int attach(int prog_fd)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = ptr(TP_NAME);
	attr.raw_tracepoint.prog_fd = prog_fd;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (fd < 0)
		fprintf(stderr, "workload: BPF_RAW_TRACEPOINT_OPEN %s: %s\n", TP_NAME,
			strerror(errno));
	return fd;
}

static __u32 map_count(int map_fd)
{
	__u32 key = 0, value[2] = { 0, 0 };
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = ptr(&key);
	attr.value = ptr(value);
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return 0;
	return value[0];
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* 1 while an object with @id exists, 0 once it is gone */
static int alive(int cmd, __u32 id)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	switch (cmd) {
	case BPF_BTF_GET_FD_BY_ID:
		attr.btf_id = id;
		break;
	case BPF_LINK_GET_FD_BY_ID:
		attr.link_id = id;
		break;
	case BPF_PROG_GET_FD_BY_ID:
		attr.prog_id = id;
		break;
	default:
		attr.map_id = id;
		break;
	}
	fd = sys_bpf(cmd, &attr);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno != ENOENT;
}

/* Wait until @id is released; 0 when it was, -1 after RELEASE_WAIT_MS. */
static int wait_gone(int cmd, __u32 id, const char *what)
{
	int ms;

	for (ms = 0; ms < RELEASE_WAIT_MS; ms++) {
		if (!alive(cmd, id))
			return 0;
		sleep_ms(1);
	}
	fprintf(stderr, "workload: %s id %u still exists after %d ms\n", what, id,
		RELEASE_WAIT_MS);
	return -1;
}

static int round_once(int round)
{
	int btf_fd = -1, map_fd = -1, prog_fd = -1, link_fd = -1;
	struct bpf_btf_info btf_info;
	struct bpf_map_info map_info;
	struct bpf_prog_info prog_info;
	struct bpf_link_info link_info;
	char tag[2 * BPF_TAG_SIZE + 1];
	int with_btf, ret = 1, i;

	btf_fd = load_btf();
	if (btf_fd < 0)
		goto out;
	memset(&btf_info, 0, sizeof(btf_info));
	if (obj_info(btf_fd, &btf_info, sizeof(btf_info))) {
		perror("workload: BTF info");
		goto out;
	}
	printf("round %d: loaded BTF id %u\n", round, btf_info.id);
	id_line("btf %u %u\n", btf_info.id, btf_info.btf_size);

	map_fd = create_map(btf_fd, &with_btf);
	if (map_fd < 0)
		goto out;
	memset(&map_info, 0, sizeof(map_info));
	if (obj_info(map_fd, &map_info, sizeof(map_info))) {
		perror("workload: map info");
		goto out;
	}
	printf("round %d: created map %s id %u (array%s)\n", round, map_info.name,
	       map_info.id, with_btf ? ", BTF struct demo_val" : "");
	id_line("map %u array %s\n", map_info.id, map_info.name);

	prog_fd = load_prog(map_fd);
	if (prog_fd < 0)
		goto out;
	memset(&prog_info, 0, sizeof(prog_info));
	if (obj_info(prog_fd, &prog_info, sizeof(prog_info))) {
		perror("workload: prog info");
		goto out;
	}
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", prog_info.tag[i]);
	printf("round %d: loaded prog %s id %u (raw_tracepoint, tag %s)\n", round,
	       prog_info.name, prog_info.id, tag);
	id_line("prog %u raw_tracepoint %s %s\n", prog_info.id, prog_info.name, tag);

	link_fd = attach(prog_fd);
	if (link_fd < 0)
		goto out;
	memset(&link_info, 0, sizeof(link_info));
	if (obj_info(link_fd, &link_info, sizeof(link_info))) {
		perror("workload: link info");
		goto out;
	}
	printf("round %d: attached link id %u (raw_tracepoint %s, prog %u)\n", round,
	       link_info.id, TP_NAME, link_info.prog_id);
	id_line("link %u raw_tracepoint %u\n", link_info.id, link_info.prog_id);

	sleep_ms(10);	/* a few context switches for the program */
	printf("round %d: demo_prog ran %u times\n", round, map_count(map_fd));
	if (hold) {
		char line[64];

		printf("round %d: holding the objects until a line on stdin\n", round);
		if (!fgets(line, sizeof(line), stdin))
			printf("round %d: EOF on stdin\n", round);
	}

	/* release in a known order: link, program, map, BTF */
	close(link_fd);
	close(prog_fd);
	close(map_fd);
	close(btf_fd);
	link_fd = -1;
	prog_fd = -1;
	map_fd = -1;
	btf_fd = -1;
	ret = 0;
	if (wait_gone(BPF_LINK_GET_FD_BY_ID, link_info.id, "link") ||
	    wait_gone(BPF_PROG_GET_FD_BY_ID, prog_info.id, "prog") ||
	    wait_gone(BPF_MAP_GET_FD_BY_ID, map_info.id, "map") ||
	    wait_gone(BPF_BTF_GET_FD_BY_ID, btf_info.id, "BTF"))
		ret = 1;
	printf("round %d: released link %u, prog %u, map %u, BTF %u%s\n", round,
	       link_info.id, prog_info.id, map_info.id, btf_info.id,
	       ret ? " (not all gone)" : "");
out:
	if (link_fd >= 0)
		close(link_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (map_fd >= 0)
		close(map_fd);
	if (btf_fd >= 0)
		close(btf_fd);
	fflush(stdout);
	return ret;
}

/* The id of the link (@link), map or program of @fd: each info has it after the type. */
static __u32 id_of(int fd, int link)
{
	struct bpf_link_info link_info;
	struct bpf_map_info map_info;

	if (link) {
		memset(&link_info, 0, sizeof(link_info));
		return obj_info(fd, &link_info, sizeof(link_info)) ? 0 : link_info.id;
	}
	/* bpf_map_info and bpf_prog_info: type, then id */
	memset(&map_info, 0, sizeof(map_info));
	return obj_info(fd, &map_info, sizeof(map_info)) ? 0 : map_info.id;
}

/* The storm's objects, waited for at its end. */
struct storm_ids {
	__u32 prog;
	__u32 *btf, *map, *link;
};

static int storm_one(int prog_fd, struct storm_ids *s, int i)
{
	struct bpf_btf_info btf_info;
	int btf_fd, map_fd = -1, link_fd = -1, with_btf, ret = 1;

	btf_fd = load_btf();
	if (btf_fd < 0)
		return 1;
	memset(&btf_info, 0, sizeof(btf_info));
	if (obj_info(btf_fd, &btf_info, sizeof(btf_info)))
		goto out;
	map_fd = create_map(btf_fd, &with_btf);
	if (map_fd < 0)
		goto out;
	link_fd = attach(prog_fd);
	if (link_fd < 0)
		goto out;
	s->btf[i] = btf_info.id;
	s->map[i] = id_of(map_fd, 0);
	s->link[i] = id_of(link_fd, 1);
	id_line("btf %u %u\n", btf_info.id, btf_info.btf_size);
	id_line("map %u array %s\n", s->map[i], MAP_NAME);
	id_line("link %u raw_tracepoint %u\n", s->link[i], s->prog);
	ret = !s->map[i] || !s->link[i];
out:
	if (link_fd >= 0)
		close(link_fd);
	if (map_fd >= 0)
		close(map_fd);
	close(btf_fd);
	return ret;
}

/* -s: @count of each, short-lived, then every one waited for. */
static int storm(int count)
{
	struct storm_ids s = {
		.btf = calloc(count, sizeof(__u32)),
		.map = calloc(count, sizeof(__u32)),
		.link = calloc(count, sizeof(__u32)),
	};
	int btf_fd, map_fd, prog_fd, with_btf, i, ret = 1;

	btf_fd = load_btf();
	map_fd = btf_fd < 0 ? -1 : create_map(btf_fd, &with_btf);
	prog_fd = map_fd < 0 ? -1 : load_prog(map_fd);
	if (!s.btf || !s.map || !s.link || prog_fd < 0)
		goto out;
	s.prog = id_of(prog_fd, 0);
	for (i = 0; i < count; i++)
		if (storm_one(prog_fd, &s, i))
			goto out;
	ret = 0;
	for (i = 0; i < count && !ret; i++)
		ret = wait_gone(BPF_LINK_GET_FD_BY_ID, s.link[i], "link") ||
		      wait_gone(BPF_MAP_GET_FD_BY_ID, s.map[i], "map") ||
		      wait_gone(BPF_BTF_GET_FD_BY_ID, s.btf[i], "BTF");
	printf("storm: %d BTF, maps and links created and released\n", count);
out:
	if (prog_fd >= 0)
		close(prog_fd);
	if (map_fd >= 0)
		close(map_fd);
	if (btf_fd >= 0)
		close(btf_fd);
	free(s.btf);
	free(s.map);
	free(s.link);
	return ret;
}

/* A cgroup_skb program that lets every packet through (return 1). */
static int load_cg_prog(const char *name)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_SKB;
	attr.expected_attach_type = BPF_CGROUP_INET_INGRESS;
	attr.insns = ptr(insns);
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = ptr("GPL");
	strncpy(attr.prog_name, name, sizeof(attr.prog_name) - 1);
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		fprintf(stderr, "workload: BPF_PROG_LOAD %s: %s\n", name, strerror(errno));
	return fd;
}

static int link_cmd(int cmd, int link_fd, int new_fd, int old_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_LINK_DETACH) {
		attr.link_detach.link_fd = link_fd;
	} else {
		attr.link_update.link_fd = link_fd;
		attr.link_update.new_prog_fd = new_fd;
		attr.link_update.flags = old_fd >= 0 ? BPF_F_REPLACE : 0;
		attr.link_update.old_prog_fd = old_fd >= 0 ? old_fd : 0;
	}
	if (sys_bpf(cmd, &attr)) {
		fprintf(stderr, "workload: %s: %s\n", cmd == BPF_LINK_DETACH ?
			"BPF_LINK_DETACH" : "BPF_LINK_UPDATE", strerror(errno));
		return 1;
	}
	return 0;
}

/* -c: a cgroup link of a, updated to b, to c replacing b, detached. */
static int cgroup_link(const char *dir)
{
	static const char *const names[3] = { "cg_prog_a", "cg_prog_b", "cg_prog_c" };
	int cg_fd, prog[3] = { -1, -1, -1 }, link_fd = -1, i, ret = 1;
	union bpf_attr attr;
	__u32 link_id = 0;

	cg_fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (cg_fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < 3; i++)
		if ((prog[i] = load_cg_prog(names[i])) < 0)
			goto out;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog[0];
	attr.link_create.target_fd = cg_fd;
	attr.link_create.attach_type = BPF_CGROUP_INET_INGRESS;
	link_fd = sys_bpf(BPF_LINK_CREATE, &attr);
	if (link_fd < 0) {
		fprintf(stderr, "workload: BPF_LINK_CREATE: %s\n", strerror(errno));
		goto out;
	}
	link_id = id_of(link_fd, 1);
	id_line("cglink %u %u %u %u\n", link_id, id_of(prog[0], 0), id_of(prog[1], 0),
		id_of(prog[2], 0));
	if (link_cmd(BPF_LINK_UPDATE, link_fd, prog[1], -1) ||
	    link_cmd(BPF_LINK_UPDATE, link_fd, prog[2], prog[1]) ||
	    link_cmd(BPF_LINK_DETACH, link_fd, -1, -1))
		goto out;
	printf("cgroup link %u: updated twice, detached\n", link_id);
	ret = 0;
out:
	if (link_fd >= 0)
		close(link_fd);
	for (i = 0; i < 3; i++)
		if (prog[i] >= 0)
			close(prog[i]);
	close(cg_fd);
	if (!ret && link_id)
		ret = wait_gone(BPF_LINK_GET_FD_BY_ID, link_id, "link");
	return ret;
}

/*
 * The opener of -o.  It opens each map newer than @last by id as soon as
 * BPF_MAP_GET_NEXT_ID shows it, so that it may win the race for a map's
 * first fd, and then holds that fd and writes the map's id to @got.  The
 * creator waits for that id before it closes its own fd, so the opener
 * holds an fd of every map while the creator still does, however the two
 * tasks are scheduled.  The opener stops when @stop has data and writes
 * how many maps it opened to @out.
 */
static void opener(__u32 last, int stop, int got, int out)
{
	union bpf_attr attr;
	unsigned int opened = 0;
	int fd, held = -1;
	char byte;

	prctl(PR_SET_NAME, "opener");
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = last;
		/* Nothing new: the time to look whether to stop. */
		if (sys_bpf(BPF_MAP_GET_NEXT_ID, &attr)) {
			if (read(stop, &byte, 1) >= 0 || errno != EAGAIN)
				break;
			continue;
		}
		last = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.map_id = last;
		fd = sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
		/* A map of another task may be gone already: not ours to report. */
		if (fd < 0)
			continue;
		if (held >= 0)
			close(held);
		held = fd;
		opened++;
		if (write(got, &last, sizeof(last)) != sizeof(last))
			_exit(1);
	}
	if (held >= 0)
		close(held);
	if (write(out, &opened, sizeof(opened)) != sizeof(opened))
		_exit(1);
	_exit(0);
}

/* The newest map id now, 0 when there is none. */
static __u32 newest_map(void)
{
	union bpf_attr attr;
	__u32 last = 0;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = last;
		if (sys_bpf(BPF_MAP_GET_NEXT_ID, &attr))
			return last;
		last = attr.next_id;
	}
}

static int race_map(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	strncpy(attr.map_name, "race_map", sizeof(attr.map_name) - 1);
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

/*
 * Waits until the opener says it holds map @id.  The opener reports every
 * map it opens in id order, other tasks' maps included, so the ids before
 * @id are skipped.  False when the opener is gone.
 */
static int opener_holds(int got, __u32 id)
{
	__u32 seen;

	do {
		if (read(got, &seen, sizeof(seen)) != sizeof(seen))
			return 0;
	} while (seen != id);
	return 1;
}

static int map_race(int count)
{
	int stop[2], got[2], out[2], fd, i, status, ret = 0;
	unsigned int opened = 0, held = 0;
	__u32 id, last;
	pid_t child;

	if (pipe(stop) || pipe(got) || pipe(out) || fcntl(stop[0], F_SETFL, O_NONBLOCK)) {
		perror("workload: pipe");
		return 1;
	}
	/* Taken before the fork, so that the opener cannot miss the first map. */
	last = newest_map();
	fflush(NULL);
	child = fork();
	if (child < 0) {
		perror("workload: fork");
		return 1;
	}
	if (!child) {
		close(got[0]);
		opener(last, stop[0], got[1], out[1]);
	}
	/* Only the opener writes @got: its end of file then means it is gone. */
	close(got[1]);
	for (i = 0; i < count && !ret; i++) {
		fd = race_map();
		id = fd < 0 ? 0 : id_of(fd, 0);
		if (!id) {
			fprintf(stderr, "workload: race_map: %s\n", strerror(errno));
			ret = 1;
		} else if (opener_holds(got[0], id)) {
			held++;
		} else {
			fprintf(stderr, "workload: the opener stopped before map %u\n", id);
			ret = 1;
		}
		if (fd >= 0)
			close(fd);
		id_line("map %u array race_map\n", id);
	}
	if (write(stop[1], "", 1) != 1 || read(out[0], &opened, sizeof(opened)) != sizeof(opened) ||
	    waitpid(child, &status, 0) != child || status) {
		fprintf(stderr, "workload: the opener failed\n");
		return 1;
	}
	id_line("opener %d %u\n", (int)child, held);
	printf("map race: %d maps created, %u held by the opener before the creator closed them (%u maps opened in all)\n",
	       count, held, opened);
	return ret;
}

static void print_usage(void)
{
	fprintf(stderr, "usage: workload [-n ROUNDS] [-l IDS_FILE] [-w]\n"
		"       workload -s COUNT [-l IDS_FILE]\n"
		"       workload -c CGROUP_DIR [-l IDS_FILE]\n"
		"       workload -o COUNT [-l IDS_FILE]\n");
	exit(2);
}

/* A count of rounds or objects: 1 to 100000. */
static int count_arg(const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || n < 1 || n > 100000)
		print_usage();
	return n;
}

/* After the last release: its record reaches the recorder's ring before we exit. */
static int done(void)
{
	sleep_ms(50);
	id_line("done\n");
	if (ids && fclose(ids)) {
		perror("workload: ids file");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *ids_path = NULL, *cgroup = NULL;
	int rounds = 1, count = 0, race = 0, opt, i;

	while ((opt = getopt(argc, argv, "n:l:ws:c:o:h")) != -1) {
		switch (opt) {
		case 'o':
			race = count_arg(optarg);
			break;
		case 's':
			count = count_arg(optarg);
			break;
		case 'c':
			cgroup = optarg;
			break;
		case 'n':
			rounds = count_arg(optarg);
			break;
		case 'l':
			ids_path = optarg;
			break;
		case 'w':
			hold = 1;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc)
		print_usage();
	if (ids_path) {
		ids = fopen(ids_path, "w");
		if (!ids) {
			fprintf(stderr, "workload: %s: %s\n", ids_path, strerror(errno));
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	id_line("pid %d\n", (int)getpid());
	if (count)
		return storm(count) || done();
	if (cgroup)
		return cgroup_link(cgroup) || done();
	if (race)
		return map_race(race) || done();
	printf("workload: pid %d, %d round%s of BTF, map, program and link\n",
	       (int)getpid(), rounds, rounds == 1 ? "" : "s");
	for (i = 1; i <= rounds; i++) {
		if (round_once(i))
			return 1;
	}
	return done();
}
