// SPDX-License-Identifier: GPL-2.0
/* A section that libbpf 1.3 knows and Debian's 1.1 does not. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe.multi//bin/true:main")
int multi(void *ctx)
{
	return 0;
}
