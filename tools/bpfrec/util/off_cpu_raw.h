/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raw data of an offcpu-time sample.  Recent perf (7.2 here) reads the
 * raw data of every bpf-output event named offcpu-time in the layout its
 * own off-CPU sampler writes (__set_offcpu_sample() in perf's evsel.c):
 *
 *	u32 pid, u32 tid, u64 period, u64 nr, u64 ips[nr], u64 cgroup
 *
 * It takes the sample's pid, tid, period, callchain and cgroup from there,
 * and it rejects the whole file when the data is shorter.  bpfrec writes
 * that layout and then a field of its own that perf does not read: the
 * state the thread left the CPU in, a u32 (enum offcpu_state_bit).  Files
 * that bpfrec wrote before it used this layout carry the state alone (4
 * bytes); the reader takes both.
 */
#ifndef BPFREC_OFF_CPU_RAW_H
#define BPFREC_OFF_CPU_RAW_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

/* The u64 words before the state: pid and tid, period, nr, ips[nr], cgroup. */
#define OFFCPU_RAW_WORDS(nr)	(4 + (nr))

/* The size of the raw data for a callchain of @nr entries. */
static inline __u32 offcpu_raw_size(__u32 nr)
{
	return OFFCPU_RAW_WORDS(nr) * sizeof(__u64) + sizeof(__u32);
}

/*
 * Fill @buf, offcpu_raw_size(@nr) bytes, and return that size.  4 bytes
 * after the raw size field that precedes it, the data is not 8-byte aligned
 * in the file, so the words are copied, not stored through a __u64 pointer.
 */
static inline __u32 offcpu_raw_fill(void *buf, __u32 pid, __u32 tid, __u64 period,
				    __u32 nr, const __u64 *ips, __u64 cgroup, __u32 state)
{
	char *p = buf;
	__u64 n = nr;

	memcpy(p, &pid, sizeof(pid));
	memcpy(p + 4, &tid, sizeof(tid));
	memcpy(p + 8, &period, sizeof(period));
	memcpy(p + 16, &n, sizeof(n));
	if (nr)
		memcpy(p + 24, ips, nr * sizeof(*ips));
	memcpy(p + 24 + nr * sizeof(*ips), &cgroup, sizeof(cgroup));
	memcpy(p + OFFCPU_RAW_WORDS(nr) * sizeof(__u64), &state, sizeof(state));
	return offcpu_raw_size(nr);
}

/*
 * The state in raw data of @size bytes, of either layout; false when the
 * data is neither (the file is damaged, or another tool wrote it).
 */
static inline bool offcpu_raw_state(const void *raw, __u32 size, __u32 *state)
{
	const char *p = raw;
	__u64 nr;

	if (!raw)
		return false;
	if (size == sizeof(*state)) {
		memcpy(state, p, sizeof(*state));
		return true;
	}
	if (size < offcpu_raw_size(0))
		return false;
	memcpy(&nr, p + 16, sizeof(nr));
	if (nr > (size - offcpu_raw_size(0)) / sizeof(__u64))
		return false;
	memcpy(state, p + OFFCPU_RAW_WORDS(nr) * sizeof(__u64), sizeof(*state));
	return true;
}

#endif /* BPFREC_OFF_CPU_RAW_H */
