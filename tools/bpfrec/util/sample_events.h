/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events `bpfrec record -e` samples: software and hardware events by
 * perf's names, and tracepoints as SUBSYS:NAME, turned into the attrs
 * perf record would open.
 */
#ifndef BPFREC_SAMPLE_EVENTS_H
#define BPFREC_SAMPLE_EVENTS_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include <linux/types.h>

/* perf record's default frequency */
#define SAMPLE_DEFAULT_FREQ	4000

struct sampling {
	unsigned long freq;	/* -F HZ, 0 when not given */
	unsigned long period;	/* -c PERIOD, 0 when not given */
	bool callchain;		/* -g: kernel and user stacks */
	__u32 dwarf_size;	/* --call-graph dwarf: user stack bytes copied; 0: fp */
};

/* perf's default stack copy of --call-graph dwarf, and its most */
#define SAMPLE_DWARF_DEFAULT	8192
#define SAMPLE_DWARF_MAX	65528

/*
 * --call-graph MODE: "fp" (frame pointers, as -g), or "dwarf[,SIZE]":
 * frame pointers too, plus the user registers and SIZE bytes of the user
 * stack (rounded up to 8), which the reader unwinds with the files' CFI
 * where frame pointers are missing.  0, or -EINVAL for anything else.
 */
int sampling_parse_call_graph(const char *arg, struct sampling *o);

/*
 * -F above the kernel's perf_event_max_sample_rate is refused, as perf
 * does: one line printed and -EINVAL.
 */
int sampling_check(const struct sampling *o);

/*
 * The attr of @spec, disabled, its samples carrying IDENTIFIER (several
 * events share the file), IP, TID, TIME, CPU and PERIOD, plus CALLCHAIN
 * with -g and RAW for a tracepoint.  On error prints one line and returns
 * -EINVAL for bad input (an unknown event or tracepoint), -EOPNOTSUPP for
 * an event this machine cannot count, or another negative errno.
 */
int sample_event_attr(const char *spec, const struct sampling *o,
		      struct perf_event_attr *attr);

/*
 * perf's default event: cycles where the machine counts it, else
 * cpu-clock (a VM, this project's hosts), as perf falls back.
 */
const char *sample_default_event(void);

/*
 * @fn for @spec, or for each tracepoint a glob SUBSYS:NAME names
 * ('sched:*', '*:sys_enter_bpf'), in name order; a glob that names none
 * is bad input (one line, -EINVAL).  The first error of @fn ends it.
 */
int sample_event_glob(const char *spec, int (*fn)(const char *name, void *ctx), void *ctx);

#endif /* BPFREC_SAMPLE_EVENTS_H */
