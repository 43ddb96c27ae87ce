/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of a perf.data that script and report show, in time order,
 * with the comm of the task each one came from.
 */
#ifndef BPFREC_TIMELINE_H
#define BPFREC_TIMELINE_H

#include <stddef.h>
#include "util/perf_data/perf_data.h"

struct tl_event {
	__u32 type;			/* PERF_RECORD_BPF_EVENT, _KSYMBOL, _LOST */
	bool has_sample;
	struct pd_sample sample;
	const char *comm;		/* NULL when no record names the task */
	union {
		struct pd_bpf_event bpf;
		struct pd_ksymbol ksymbol;	/* name owned by the timeline */
		__u64 lost;
	};
};

struct timeline {
	struct pd_reader *reader;
	const struct pd_facts *facts;
	const struct pd_file_info *info;
	struct tl_event *ev;
	size_t nr;
	char **comms;			/* owned strings events point to */
	size_t nr_comms;
	__u64 *self_addrs;		/* JIT images of the recorder's programs */
	size_t nr_self_addrs;
};

/* Who created the recorder's own objects (PD_F_SELF), as shown. */
#define TL_SELF_NAME	"bpfrec (self)"


/* Load and sort @path; on failure one line in @err. */
int timeline_load(struct timeline *tl, const char *path, char *err,
		  size_t errlen);
void timeline_free(struct timeline *tl);

/* Comm of @e: its task's COMM record, else the object's creator. */
const char *timeline_comm(const struct timeline *tl, const struct tl_event *e);

/*
 * Whether @e is about one of the recorder's own objects: a BPF record of
 * an object marked PD_F_SELF, or the KSYMBOL of such a program's image.
 */
bool timeline_self(const struct timeline *tl, const struct tl_event *e);

/* "12.345678": perf's sec.usec rendering of a sample time. */
void timeline_time(__u64 ns, char *buf, size_t len);

#endif /* BPFREC_TIMELINE_H */
