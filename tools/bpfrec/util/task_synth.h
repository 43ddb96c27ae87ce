/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a sampled file needs about the tasks that existed before the
 * recording, as perf synthesises it: a COMM per thread and an MMAP2 per
 * executable mapping, so that user addresses can be symbolised later,
 * and the kernel's MMAP, by which perf places kernel addresses.
 */
#ifndef BPFREC_TASK_SYNTH_H
#define BPFREC_TASK_SYNTH_H

#include <sys/types.h>
#include "util/kallsyms_copy.h"
#include "util/perf_data/perf_data.h"

/* The threads of process @pid: an array to free(), or -ESRCH, -ENOMEM. */
int task_threads(pid_t pid, pid_t **tids, int *nr);

/*
 * COMM of each thread and MMAP2 of each executable mapping of the
 * processes @pids (every process when @pids is NULL), their trailers
 * from @s (its time and id; pid and tid are the task's).
 */
int synth_tasks(struct pd_writer *w, const struct pd_sample *s, const pid_t *pids, int nr);

/* The MMAP of "[kernel.kallsyms]_text" at _text, from the kallsyms read in @k. */
int synth_kernel_mmap(struct pd_writer *w, const struct pd_sample *s,
		      const struct kallsyms_copy *k);

#endif /* BPFREC_TASK_SYNTH_H */
