// SPDX-License-Identifier: GPL-2.0
/*
 * Loads a program whose .rodata map has one bpf_metadata_* variable, and
 * whose BTF holds, just past that section's variable list, bytes that read
 * as a second entry of the list: a capture that reads the list beyond the
 * section's vlen finds a variable bpf_metadata_ghost that the section does
 * not have.  Prints "prog=ID" on stdout.  Without -w it unloads the program
 * 1 ms later; with -w it holds it until stdin reaches its end.
 *   usage: meta-overread [-w]
 *
 * The BTF is built by hand, as no compiler lays it out this way: the
 * DATASEC is the last type, so its variable list ends where the string
 * section begins.  That section must start with a '\0' byte, so its first
 * 12 bytes cannot name a small type id: it carries the false entry in its
 * bytes 12 to 23, the second entry past the list's end.  The kernel keeps
 * the blob as it was loaded, so the capture reads these very bytes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <bpf/bpf.h>
#include "prog_hold.h"

/* Type ids of the BTF below. */
enum { T_INT = 1, T_VAR_A, T_VAR_GHOST, T_RODATA };

/* The section's value: a at 0, and at 4 what the false entry points at. */
#define VALUE_A		17
#define VALUE_GHOST	42
#define VALUE_SIZE	8

/*
 * The string section.  Its first 12 bytes are the entry right after the
 * list (type 0, void: skipped); the next 12 are the false entry; the names
 * follow.  The offsets below are those of the names in it.
 */
#define STR_INT		24
#define STR_A		(STR_INT + sizeof("int"))
#define STR_GHOST	(STR_A + sizeof("bpf_metadata_a"))
#define STR_RODATA	(STR_GHOST + sizeof("bpf_metadata_ghost"))

struct meta_btf {
	struct btf_header hdr;
	/* the type section */
	struct btf_type t_int;
	__u32 int_enc;
	struct btf_type t_var_a;
	struct btf_var var_a;
	struct btf_type t_var_ghost;
	struct btf_var var_ghost;
	struct btf_type t_rodata;
	struct btf_var_secinfo vsi[1];
	/* the string section, right after the last type */
	struct btf_var_secinfo void_entry;
	struct btf_var_secinfo false_entry;
	char names[sizeof("int") + sizeof("bpf_metadata_a") +
		   sizeof("bpf_metadata_ghost") + sizeof(".rodata")];
} __attribute__((packed));

_Static_assert(offsetof(struct meta_btf, names) - offsetof(struct meta_btf, void_entry) == STR_INT,
	       "the names start where STR_INT says");

static void build_btf(struct meta_btf *b)
{
	static const char names[] = "int\0bpf_metadata_a\0bpf_metadata_ghost\0.rodata";

	memset(b, 0, sizeof(*b));
	b->hdr.magic = BTF_MAGIC;
	b->hdr.version = BTF_VERSION;
	b->hdr.hdr_len = sizeof(b->hdr);
	b->hdr.type_off = 0;
	b->hdr.type_len = offsetof(struct meta_btf, void_entry) - sizeof(b->hdr);
	b->hdr.str_off = b->hdr.type_len;
	b->hdr.str_len = sizeof(*b) - offsetof(struct meta_btf, void_entry);

	b->t_int.name_off = STR_INT;
	b->t_int.info = BTF_KIND_INT << 24;
	b->t_int.size = 4;
	b->int_enc = BTF_INT_SIGNED << 24 | 32;

	b->t_var_a.name_off = STR_A;
	b->t_var_a.info = BTF_KIND_VAR << 24;
	b->t_var_a.type = T_INT;
	b->var_a.linkage = BTF_VAR_GLOBAL_ALLOCATED;

	/* a valid variable of no section, to be found only through the false entry */
	b->t_var_ghost.name_off = STR_GHOST;
	b->t_var_ghost.info = BTF_KIND_VAR << 24;
	b->t_var_ghost.type = T_INT;
	b->var_ghost.linkage = BTF_VAR_GLOBAL_ALLOCATED;

	b->t_rodata.name_off = STR_RODATA;
	b->t_rodata.info = BTF_KIND_DATASEC << 24 | 1;
	b->t_rodata.size = VALUE_SIZE;
	b->vsi[0] = (struct btf_var_secinfo){ .type = T_VAR_A, .offset = 0, .size = 4 };

	b->false_entry = (struct btf_var_secinfo){ .type = T_VAR_GHOST, .offset = 4, .size = 4 };
	memcpy(b->names, names, sizeof(names));
}

static int load_btf(void)
{
	LIBBPF_OPTS(bpf_btf_load_opts, opts);
	static char log[4096];
	struct meta_btf b;
	int fd;

	build_btf(&b);
	opts.log_buf = log;
	opts.log_size = sizeof(log);
	opts.log_level = 1;
	fd = bpf_btf_load(&b, sizeof(b), &opts);
	if (fd < 0)
		fprintf(stderr, "meta-overread: the kernel refused the BTF:\n%s\n", log);
	return fd;
}

/* The .rodata map as libbpf makes it: one frozen value, read-only to programs. */
static int rodata_map(int btf_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts,
		.btf_fd = btf_fd,
		.btf_value_type_id = T_RODATA,
		.map_flags = BPF_F_RDONLY_PROG);
	__u8 value[VALUE_SIZE];
	__u32 zero = 0;
	int a = VALUE_A, ghost = VALUE_GHOST;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, ".rodata", 4, VALUE_SIZE, 1, &opts);
	if (fd < 0) {
		perror("meta-overread: .rodata map");
		return -1;
	}
	memcpy(value, &a, 4);
	memcpy(value + 4, &ghost, 4);
	if (bpf_map_update_elem(fd, &zero, value, 0) || bpf_map_freeze(fd)) {
		perror("meta-overread: .rodata value");
		close(fd);
		return -1;
	}
	return fd;
}

/* r1 = the address of the map's value, so the map is one the program uses; r0 = 0. */
static int load_prog(int map_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_VALUE, .imm = map_fd },
		{ .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	static char log[4096];
	int fd;

	opts.log_buf = log;
	opts.log_size = sizeof(log);
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "meta_overread", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		fprintf(stderr, "meta-overread: the kernel refused the program:\n%s\n", log);
	return fd;
}

int main(int argc, char **argv)
{
	bool hold = argc == 2 && !strcmp(argv[1], "-w");
	int btf_fd, map_fd, prog_fd, err;

	if (argc != 1 + hold) {
		fprintf(stderr, "usage: meta-overread [-w]\n");
		return 2;
	}
	btf_fd = load_btf();
	if (btf_fd < 0)
		return 1;
	map_fd = rodata_map(btf_fd);
	if (map_fd < 0)
		return 1;
	prog_fd = load_prog(map_fd);
	if (prog_fd < 0)
		return 1;
	err = prog_print_and_hold("meta-overread", prog_fd, hold);
	close(prog_fd);
	close(map_fd);
	close(btf_fd);
	return err;
}
