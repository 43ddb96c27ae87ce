// SPDX-License-Identifier: GPL-2.0
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "util/syscall_cost.h"

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

double syscall_cost_ns(long calls, int rounds)
{
	double best = 0, t0, ns;
	long i;
	int r;

	for (r = 0; r < rounds; r++) {
		t0 = thread_ns();
		/* the raw syscall, so that no libc cache answers it */
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
		ns = (thread_ns() - t0) / calls;
		if (!r || ns < best)
			best = ns;
	}
	return best;
}
