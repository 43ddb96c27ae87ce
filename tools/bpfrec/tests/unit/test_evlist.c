// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/evlist.c that need no perf events: whether a kernel
 * has attr.bpf_obj_event, read from BTF built here the way each kernel
 * lays out struct perf_event_attr's flags word (bit 0 at bit 320).
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "util/evlist.h"
#include "util/vmlinux_btf.h"
#include "tests/unit/unit.h"

/* A BTF whose perf_event_attr has sigtrap at bit 37, then @name at @bit (none: NULL). */
static struct btf *attr_btf(const char *name, int bit)
{
	struct btf *btf = btf__new_empty();
	int u32 = btf__add_int(btf, "unsigned int", 4, 0);
	int u64 = btf__add_int(btf, "long long unsigned int", 8, 0);

	/* fields go to the type added last */
	btf__add_struct(btf, "perf_event_attr", 136);
	btf__add_field(btf, "type", u32, 0, 0);
	btf__add_field(btf, "sigtrap", u64, 320 + 37, 1);
	if (name)
		btf__add_field(btf, name, u64, 320 + bit, 1);
	return btf;
}

static void test_obj_event_bit(void)
{
	struct btf *btf;

	btf = attr_btf("bpf_obj_event", 38);
	CHECK(evlist_obj_event_bit(btf) == 38, "the series: bpf_obj_event at bit 38");
	btf__free(btf);

	/* a kernel that takes bit 38 for something else: not ours */
	btf = attr_btf("defer_callchain", 38);
	CHECK(evlist_obj_event_bit(btf) == -1, "mainline's next bit after sigtrap is not bpf_obj_event");
	btf__free(btf);

	btf = attr_btf("bpf_obj_event", 40);
	CHECK(evlist_obj_event_bit(btf) == 40, "a moved bpf_obj_event is found where it is");
	btf__free(btf);

	btf = attr_btf(NULL, 0);
	CHECK(evlist_obj_event_bit(btf) == -1, "a stock kernel: none");
	btf__free(btf);

	btf = btf__new_empty();
	CHECK(evlist_obj_event_bit(btf) == -1, "no struct perf_event_attr: none");
	btf__free(btf);
}

/*
 * The running kernel's BTF is parsed only when it has the string asked
 * for: a whole string, not a part of one.
 */
static void test_load_naming(void)
{
	struct btf *btf;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		skip("vmlinux BTF by name", "the kernel has no /sys/kernel/btf/vmlinux");
		return;
	}
	btf = vmlinux_btf_load_naming("perf_event_attr");
	CHECK(btf && btf__find_by_name_kind(btf, "perf_event_attr", BTF_KIND_STRUCT) > 0,
	      "a string of the BTF: parsed, perf_event_attr in it");
	btf__free(btf);
	errno = 0;
	btf = vmlinux_btf_load_naming("perf_event_att");
	CHECK(!btf && errno == ENOENT, "the start of a string only: not parsed, ENOENT");
	errno = 0;
	btf = vmlinux_btf_load_naming("erf_event_attr");
	CHECK(!btf && errno == ENOENT, "the end of a string only: not parsed, ENOENT");
	btf = vmlinux_btf_load_naming("bpfrec_no_such_string");
	CHECK(!btf && errno == ENOENT, "no such string: not parsed, ENOENT");
}

int main(void)
{
	unit_setup();
	test_obj_event_bit();
	test_load_naming();
	return unit_done();
}
