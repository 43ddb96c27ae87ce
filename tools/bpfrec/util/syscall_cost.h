/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one cheap syscall costs the calling thread now.  The recorder
 * measures it before and after it enables the bpf() syscall tracepoints,
 * which send every syscall of every task through the kernel's slower
 * traced path, so that it can tell the user the price of that choice.
 */
#ifndef BPFREC_SYSCALL_COST_H
#define BPFREC_SYSCALL_COST_H

/*
 * Nanoseconds per getppid() call in the thread's own CPU time: the
 * fastest of @rounds rounds of @calls calls, so that time taken by other
 * tasks of a busy machine does not count.  Also bench/syscall_loop.c's.
 */
double syscall_cost_ns(long calls, int rounds);

/*
 * The recorder's quick measurement: many short rounds, because on a busy
 * machine (or a virtual one, where time the host steals counts as the
 * thread's) some rounds are slowed, and the fastest of many is rarely
 * among them.  10,000 calls take about 2 ms, and the recorder measures
 * twice, so the figure costs little of its start-up.  On a loaded machine
 * it can still be off by tens of percent.
 */
static inline double syscall_cost_quick_ns(void)
{
	return syscall_cost_ns(400, 25);
}

#endif /* BPFREC_SYSCALL_COST_H */
