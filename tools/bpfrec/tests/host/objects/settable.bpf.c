// SPDX-License-Identifier: GPL-2.0
/*
 * Globals of every kind --set takes or refuses, sent through a ring
 * buffer at each exec so that the test sees the values the program saw.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

enum mode { MODE_OFF, MODE_ON, MODE_LOUD };

const volatile __u8 small = 1;
const volatile __s32 signed_val = -1;
const volatile __u64 big = 2;
const volatile bool flag = false;
const volatile enum mode mode = MODE_OFF;
const volatile char tag[8] = "none";
/* folded by the compiler: --set must refuse it */
const __u32 folded = 7;
__u32 counter;

/* the record of ring buffer "settings": bpfrec script decodes it */
struct settings {
	__u8 small;
	__s32 signed_val;
	__u64 big;
	bool flag;
	enum mode mode;
	char tag[8];
	__u32 folded;
	__u32 counter;
	char comm[16];
};

struct settings *settings_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} settings SEC(".maps");

SEC("tracepoint/sched/sched_process_exec")
int report(void *ctx)
{
	struct settings *s = bpf_ringbuf_reserve(&settings, sizeof(*s), 0);
	int i;

	if (!s)
		return 0;
	s->small = small;
	s->signed_val = signed_val;
	s->big = big;
	s->flag = flag;
	s->mode = mode;
	/* element by element: a cast away from volatile would read the initialiser */
	for (i = 0; i < sizeof(s->tag); i++)
		s->tag[i] = tag[i];
	s->folded = folded;
	s->counter = ++counter;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	bpf_ringbuf_submit(s, 0);
	return 0;
}
