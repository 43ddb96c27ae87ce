// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/core_btf.c: the part of a kernel's BTF that an
 * object's CO-RE relocations can use, taken from BTF built here.  Whether
 * libbpf relocates real programs alike against it and against the whole
 * is checked on every kernel by tests/capture/core-check.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "util/core_btf.h"
#include "tests/unit/unit.h"

/*
 * A kernel's BTF: task_struct holds an int, a bitfield, a pointer to
 * mm_struct, an embedded sched_entity (with a kuid_t and an array) and an
 * anonymous union; an enum, an enum64, and types nobody names.
 */
static struct btf *kernel_btf(void)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	int mm = btf__add_struct(btf, "mm_struct", 8);
	int mm_ptr, anon, kuid, arr, se, un;

	btf__add_field(btf, "arg_start", u64, 0, 0);
	mm_ptr = btf__add_ptr(btf, mm);
	anon = btf__add_struct(btf, NULL, 4);
	btf__add_field(btf, "val", i32, 0, 0);
	kuid = btf__add_typedef(btf, "kuid_t", anon);
	arr = btf__add_array(btf, i32, u64, 3);
	se = btf__add_struct(btf, "sched_entity", 32);
	btf__add_field(btf, "uid", kuid, 0, 0);
	btf__add_field(btf, "sum", arr, 64, 0);
	un = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "a", u64, 0, 0);
	btf__add_field(btf, "b", i32, 0, 0);
	btf__add_struct(btf, "task_struct", 64);
	btf__add_field(btf, "pid", i32, 0, 0);
	btf__add_field(btf, "flags", i32, 32, 3);
	btf__add_field(btf, "mm", mm_ptr, 64, 0);
	btf__add_field(btf, "se", se, 128, 0);
	btf__add_field(btf, NULL, un, 384, 0);
	btf__add_enum(btf, "bpf_link_type", 4);
	btf__add_enum_value(btf, "BPF_LINK_TYPE_CGROUP", 3);
	btf__add_enum_value(btf, "BPF_LINK_TYPE_MAX", 0x80000000LL);
	btf__add_enum64(btf, "wide", 8, false);
	btf__add_enum64_value(btf, "WIDE_ONE", 1ULL << 40);
	btf__add_struct(btf, "unrelated", 4);
	btf__add_field(btf, "x", i32, 0, 0);
	btf__add_fwd(btf, "file", BTF_FWD_STRUCT);
	return btf;
}

/* An object's BTF: a flavor of task_struct, the enums, and no mm_struct. */
static struct btf *object_btf(void)
{
	struct btf *btf = btf__new_empty();
	int i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);

	btf__add_struct(btf, "task_struct___v2", 4);
	btf__add_field(btf, "pid", i32, 0, 0);
	btf__add_enum(btf, "bpf_link_type", 4);
	btf__add_enum_value(btf, "BPF_LINK_TYPE_CGROUP", 3);
	btf__add_enum(btf, "wide", 8);
	btf__add_enum_value(btf, "WIDE_ONE", 1);
	return btf;
}

static const struct btf_type *find(const struct btf *btf, const char *name, int kind)
{
	int id = btf__find_by_name_kind(btf, name, kind);

	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

/* The type of member @i of @t. */
static const struct btf_type *member_type(const struct btf *btf, const struct btf_type *t, int i)
{
	return btf__type_by_id(btf, btf_members(t)[i].type);
}

static void test_subset(void)
{
	struct btf *kernel = kernel_btf(), *object = object_btf(), *sub;
	const struct btf_type *t, *m;
	const struct btf_member *mm;
	int fd;

	sub = core_btf_subset(object, kernel);
	if (!CHECK(sub, "a subset is taken%s%s", sub ? "" : ": ", sub ? "" : strerror(errno)))
		return;

	t = find(sub, "task_struct", BTF_KIND_STRUCT);
	CHECK(t, "a flavored name (task_struct___v2) finds its type");
	if (t) {
		CHECK(btf_vlen(t) == 5 && t->size == 64, "task_struct whole: %u members, %u bytes",
		      btf_vlen(t), t->size);
		mm = btf_members(t);
		CHECK(!strcmp(btf__name_by_offset(sub, mm[1].name_off), "flags") &&
		      btf_member_bit_offset(t, 1) == 32 && btf_member_bitfield_size(t, 1) == 3,
		      "a bitfield keeps its offset and width");
		m = member_type(sub, t, 2);
		CHECK(btf_is_ptr(m) && m->type == 0, "a pointer member points to void");
		CHECK(btf_member_bit_offset(t, 3) == 128 &&
		      member_type(sub, t, 3) == find(sub, "sched_entity", BTF_KIND_STRUCT),
		      "an embedded struct comes along, at its offset");
		m = member_type(sub, t, 4);
		CHECK(btf_is_union(m) && btf_vlen(m) == 2 && m->name_off == 0,
		      "an anonymous union member comes along whole");
	}
	t = find(sub, "sched_entity", BTF_KIND_STRUCT);
	if (CHECK(t && btf_vlen(t) == 2, "sched_entity whole")) {
		m = member_type(sub, t, 0);
		CHECK(btf_is_typedef(m) &&
		      !strcmp(btf__name_by_offset(sub, m->name_off), "kuid_t") &&
		      btf_is_struct(btf__type_by_id(sub, m->type)),
		      "a typedef member comes along with what it names");
		m = member_type(sub, t, 1);
		CHECK(btf_is_array(m) && btf_array(m)->nelems == 3 &&
		      btf__type_by_id(sub, btf_array(m)->type)->size == 8,
		      "an array member keeps its element type and length");
	}
	CHECK(!find(sub, "mm_struct", BTF_KIND_STRUCT),
	      "a struct only pointed to, and not named by the object, is left out");
	CHECK(!find(sub, "unrelated", BTF_KIND_STRUCT), "a struct nobody names is left out");
	CHECK(!find(sub, "file", BTF_KIND_FWD), "a forward declaration nobody names is left out");
	t = find(sub, "bpf_link_type", BTF_KIND_ENUM);
	CHECK(t && btf_vlen(t) == 2 && btf_enum(t)[0].val == 3 &&
	      (__u32)btf_enum(t)[1].val == 0x80000000U && !btf_kflag(t),
	      "an enum keeps its values, unsigned");
	t = find(sub, "wide", BTF_KIND_ENUM64);
	CHECK(t && btf_vlen(t) == 1 && btf_enum64_value(btf_enum64(t)) == 1ULL << 40,
	      "an enum64 is found by an enum's name and keeps its 64-bit value");
	/* void, int, u64, anon, kuid_t, array, sched_entity, union, task_struct, 2 enums, ptr */
	CHECK(btf__type_cnt(sub) == 12, "exactly the types named and what they embed: %u",
	      btf__type_cnt(sub) - 1);

	fd = core_btf_memfd(sub);
	if (CHECK(fd >= 0, "the subset in a memfd")) {
		char path[32];
		struct btf *back;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		back = btf__parse(path, NULL);
		CHECK(back && btf__type_cnt(back) == btf__type_cnt(sub) &&
		      find(back, "task_struct", BTF_KIND_STRUCT),
		      "libbpf parses the memfd back into the same types");
		btf__free(back);
		close(fd);
	}
	btf__free(sub);
	btf__free(object);
	btf__free(kernel);
}

/* An object that names nothing of the kernel's: an empty subset, not an error. */
static void test_nothing_named(void)
{
	struct btf *kernel = kernel_btf(), *object = btf__new_empty(), *sub;

	btf__add_int(object, "my_own_int", 4, 0);
	sub = core_btf_subset(object, kernel);
	CHECK(sub && btf__type_cnt(sub) == 1, "an object naming no kernel type: an empty subset");
	btf__free(sub);
	btf__free(object);
	btf__free(kernel);
}

int main(void)
{
	unit_setup();
	test_subset();
	test_nothing_named();
	return unit_done();
}
