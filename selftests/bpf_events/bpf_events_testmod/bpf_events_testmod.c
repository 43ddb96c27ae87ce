// SPDX-License-Identifier: GPL-2.0
/*
 * A module with BTF of its own, for obj_events' module_btf_load: loading
 * it publishes the module's split BTF, whose BTF_LOAD record must say
 * that it is kernel BTF of a module, and which one.
 */
#include <linux/init.h>
#include <linux/module.h>

/* A type of the module's own, so that its BTF is not empty. */
struct bpf_events_testmod_state {
	int loads;
};

static struct bpf_events_testmod_state bpf_events_testmod_state;

static int __init bpf_events_testmod_init(void)
{
	bpf_events_testmod_state.loads++;
	return 0;
}
module_init(bpf_events_testmod_init);

MODULE_DESCRIPTION("Module BTF for the bpf_events selftests");
MODULE_LICENSE("GPL");
