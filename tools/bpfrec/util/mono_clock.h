/* SPDX-License-Identifier: GPL-2.0 */
/* CLOCK_MONOTONIC in ns: bpfrec's intervals, and the records it times itself. */
#ifndef BPFREC_MONO_CLOCK_H
#define BPFREC_MONO_CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* BPFREC_MONO_CLOCK_H */
