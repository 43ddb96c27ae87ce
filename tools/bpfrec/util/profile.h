/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile: the samples of a perf.data, symbolised and summed per
 * stack.  Every record is replayed in time order, so each address is
 * named as it was when the sample was taken: user addresses through the
 * process's mappings and the files' ELF symbols, BPF code through the
 * JIT images of the KSYMBOL records (also programs unloaded since), the
 * rest of the kernel through kallsyms.
 */
#ifndef BPFREC_PROFILE_H
#define BPFREC_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/bpf_images.h"
#include "util/hashmap.h"
#include "util/intern.h"
#include "util/ksyms.h"
#include "util/perf_data/perf_data.h"
#include "util/unwind.h"
#include "util/user_syms.h"

/* The event of `bpfrec record --off-cpu`: PERIOD is the time off CPU, in ns. */
#define PROFILE_OFFCPU_EVENT	"offcpu-time"
/* Its wakers (--wakers): a sample before the interval, ADDR the woken thread. */
#define PROFILE_WAKER_EVENT	"offcpu-waker"

enum frame_kind { FRAME_USER, FRAME_KERNEL, FRAME_BPF };

/* One symbolised address; the strings are ids in profile.strs. */
struct frame {
	__u32 sym;			/* function, or "[dso]" / "[unknown]" */
	__u32 dso;			/* file, "[kernel.kallsyms]", "[bpf]" */
	__u32 bpf;			/* "PROG (id N)" of BPF code, "-" elsewhere */
	__u32 kind;			/* enum frame_kind */
};

/*
 * A stack, as interned in profile.stacks: STACK_EVENT, STACK_COMM,
 * STACK_STATE, STACK_WAKER and STACK_PID words, then frame ids from the
 * root to the leaf.  STACK_STATE is the off-CPU state bit the interval
 * recorded (0: none, or a CPU sample), STACK_WAKER the id + 1 of the
 * stack of the interval's waker (0: none), STACK_PID the process.
 */
#define STACK_EVENT	0
#define STACK_COMM	1
#define STACK_STATE	2
#define STACK_WAKER	3
#define STACK_PID	4
#define STACK_FRAMES	5

struct profile {
	struct pd_reader *reader;
	const struct pd_file_info *info;
	struct intern strs, frames, stacks;
	__u64 *period, *samples;	/* by stack id */
	size_t cap;
	__u64 *event_samples;		/* by event: samples read */
	__u64 lost_samples;		/* LOST records' count */
	/* where the names come from */
	struct ksyms ksyms;
	bool have_ksyms;
	char ksyms_note[256];		/* how kernel addresses were named */
	struct bpf_images images;
	struct user_syms users;		/* paths interned in strs */
	struct unwind unwind;		/* user stacks of --call-graph dwarf */
	__u64 ubuf[UNWIND_MAX_FRAMES];	/* one sample's, unwound */
	struct hashmap comms;		/* tid -> comm string id */
	struct hashmap kcache;		/* kernel address -> frame id */
	struct hashmap ucache;		/* path id << 40 | file offset -> frame id */
	struct hashmap btfs;		/* BTF id -> struct btf * (of perf's files) */
	__u32 unknown, none;		/* "[unknown]" and "-" */
	int offcpu_event, waker_event;	/* -1: none in the file */
	struct hashmap wakers;		/* woken tid -> waker stack id + 1 ... */
	struct hashmap waker_times;	/* ... for the interval of this time */
	__u32 swapper;			/* the idle task's name, as perf's */
	/* one sample's frames, leaf first */
	__u32 *scratch;
	size_t scratch_cap;
};

/*
 * Read every sample of @path: 0, or -1 with one line in @err.  Kernel
 * addresses are named from the kallsyms the file kept, else from the
 * file @kallsyms (NULL: this machine's, if the file was recorded here).
 */
int profile_read(struct profile *p, const char *path, const char *kallsyms, char *err,
		 size_t errlen);
/* The event named @name, or -1. */
int profile_event(const struct profile *p, const char *name);
/* The first event other than off-CPU time with samples, or -1. */
int profile_cpu_event(const struct profile *p);
const char *profile_event_name(const struct profile *p, int event);
/* Stack @id's words (see STACK_*), and how many. */
const __u32 *profile_stack(const struct profile *p, __u32 id, size_t *nr);
const struct frame *profile_frame(const struct profile *p, __u32 id);
static inline const char *profile_str(const struct profile *p, __u32 id)
{
	return intern_str_get(&p->strs, id);
}
void profile_free(struct profile *p);

#endif /* BPFREC_PROFILE_H */
