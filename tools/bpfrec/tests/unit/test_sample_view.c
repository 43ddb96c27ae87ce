// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF images of script's sample view: a sample names the image its
 * address was in when it was taken, and the view holds only the images
 * alive, so that reading a storm of many distinct programs does not grow
 * with their number.
 */
#include <stdio.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "util/sample_view.h"

#define BASE	0xffffffffc0000000ULL

static int ksym(struct sample_view *v, __u64 addr, const char *name, bool unregister)
{
	struct pd_ksymbol k = {
		.addr = addr,
		.len = 0x100,
		.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
		.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0,
		.name = name,
	};

	return sample_view_ksymbol(v, &k);
}

static void test_replay(void)
{
	struct sample_view v;
	const char *name;
	__u64 off = 0;

	memset(&v, 0, sizeof(v));
	CHECK(!ksym(&v, BASE, "bpf_prog_0123456789abcdef_first", false), "first registered");
	name = sample_view_sym(&v, BASE + 8, &off);
	CHECK(name && !strcmp(name, "bpf_prog_0123456789abcdef_first") && off == 8,
	      "an address in it names it, offset 8: %s+%#llx", name ? name : "(none)", off);
	CHECK(sample_view_where(&v, BASE + 8) == SV_BPF, "and is in BPF code");
	name = sample_view_sym(&v, BASE, &off);
	CHECK(name && !strcmp(name, "bpf_prog_0123456789abcdef_first") && off == 0,
	      "its first byte names it, offset 0: %s+%#llx", name ? name : "(none)", off);

	CHECK(!ksym(&v, BASE, "bpf_prog_0123456789abcdef_first", true), "first unregistered");
	CHECK(sample_view_where(&v, BASE + 8) == SV_KERNEL && !sample_view_sym(&v, BASE + 8, &off),
	      "after it, the address is no BPF image's");

	CHECK(!ksym(&v, BASE, "bpf_prog_fedcba9876543210_second", false),
	      "second registered at the same address");
	name = sample_view_sym(&v, BASE + 0x10, &off);
	CHECK(name && !strcmp(name, "bpf_prog_fedcba9876543210_second"),
	      "the reused address names the later program: %s", name ? name : "(none)");
	sample_view_free(&v);
}

/* A storm: 200000 programs of distinct names, each unloaded at once. */
static void test_storm(void)
{
	struct sample_view v;
	size_t most = 0;
	char name[64];
	int i, err = 0;

	memset(&v, 0, sizeof(v));
	for (i = 0; i < 200000 && !err; i++) {
		__u64 addr = BASE + (__u64)i * 0x1000;

		snprintf(name, sizeof(name), "bpf_prog_0123456789abcdef_storm%d", i);
		err = ksym(&v, addr, name, false);
		if (v.images.nr > most)
			most = v.images.nr;
		err = err ?: ksym(&v, addr, name, true);
	}
	CHECK(!err, "200000 programs registered and unregistered");
	CHECK(most == 1 && v.images.nr == 0,
	      "at most one image held at a time (%zu), none at the end (%zu)", most, v.images.nr);
	CHECK(v.images.cap <= 64, "the array kept its first allocation: %zu entries", v.images.cap);
	sample_view_free(&v);
}

int main(void)
{
	unit_setup();
	test_replay();
	test_storm();
	return unit_done();
}
