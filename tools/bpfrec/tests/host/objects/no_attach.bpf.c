// SPDX-License-Identifier: GPL-2.0
/* An XDP program: it needs an interface, which bpfrec is not told. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("xdp")
int pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
