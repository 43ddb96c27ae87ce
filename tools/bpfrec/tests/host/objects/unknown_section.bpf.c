// SPDX-License-Identifier: GPL-2.0
/* A program in a section no libbpf knows. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("no_such_section/x")
int lost(void *ctx)
{
	return 0;
}
