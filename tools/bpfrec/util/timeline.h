/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of a perf.data that script and report show, in time order,
 * with the comm of the task each one came from.
 */
#ifndef BPFREC_TIMELINE_H
#define BPFREC_TIMELINE_H

#include <stddef.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"

struct user_syms;

/* The longest name of a kernel symbol (KSYM_NAME_LEN). */
#define TL_NAME_LEN		512

struct tl_event {
	__u32 type;			/* PERF_RECORD_BPF_EVENT, _KSYMBOL, _LOST, _SAMPLE */
	int event;			/* a SAMPLE's, in pd_file_info.events */
	bool has_sample;
	struct pd_sample sample;
	const char *comm;		/* NULL when no record names the task */
	/*
	 * PROG_LOAD and PROG_UNLOAD: the name the program's KSYMBOL record
	 * gave just before (the kernel's full name, from BTF when the
	 * program has it), NULL when none did.
	 */
	const char *ksym_name;
	/*
	 * LINK_UPDATE: the program the link ran before, as its record
	 * names it (BPF_F_REPLACE), else as the link's previous record in
	 * the file did; 0 when none did.
	 */
	__u32 old_prog_id;
	union {
		struct pd_bpf_event bpf;
		struct pd_ksymbol ksymbol;
		__u64 lost;
	};
};

/*
 * A reading of the file: events come one at a time, and each is valid
 * until the next one (the strings it points to included).
 */
struct timeline {
	struct pd_reader *reader;
	struct pd_ordered *ordered;
	const struct pd_file_info *info;
	size_t nr;			/* events delivered so far */
	size_t *nr_samples;		/* PERF_RECORD_SAMPLEs read, per event */
	struct hashmap comms;		/* tid -> its comm (malloc'ed) */
	struct hashmap images;		/* tid -> its program images not yet paired */
	struct hashmap link_progs;	/* link id -> the program its last record named */
	size_t nr_link_progs;		/* of them not 0 */
	char ksym_name[TL_NAME_LEN];	/* the current event's ksym_name */
	__u64 *self_addrs;		/* JIT images of the recorder's programs */
	size_t nr_self_addrs;
	bool samples;			/* set to have SAMPLEs delivered too */
	struct user_syms *users;	/* set to have it follow the task records */
	__u64 kernel_text;		/* the kernel MMAP's _text, 0 until one is read */
};

/* Who created the recorder's own objects (PD_F_SELF), as shown. */
#define TL_SELF_NAME	"bpfrec (self)"

/* Open @path; on failure one line in @err. */
int timeline_open(struct timeline *tl, const char *path, char *err, size_t errlen);
/*
 * The next event in time order: 1 and *e, 0 at the end, or a negative
 * errno with one line in @err.
 */
int timeline_next(struct timeline *tl, struct tl_event *e, char *err, size_t errlen);
void timeline_close(struct timeline *tl);

/* Comm of @e: its task's COMM record, else the object's creator. */
const char *timeline_comm(const struct timeline *tl, const struct tl_event *e);

/*
 * Whether @e is about one of the recorder's own objects: a BPF record of
 * an object marked PD_F_SELF, or the KSYMBOL of such a program's image.
 */
bool timeline_self(const struct timeline *tl, const struct tl_event *e);

/*
 * Whether KSYMBOL @k is the image of a program ("bpf_prog_<tag>[_<name>]"),
 * which its PROG_LOAD or PROG_UNLOAD record reports too; if so, and @name
 * is given, the name it holds ("" for none) goes to @name (TL_NAME_LEN).
 */
bool timeline_prog_image(const struct pd_ksymbol *k, __u8 tag[BPF_TAG_SIZE], char *name);

/* "12.345678": perf's sec.usec rendering of a sample time. */
void timeline_time(__u64 ns, char *buf, size_t len);
/* "250 ns", "1.5 us", "12.3 ms", "1.002 s": a duration, as report shows it. */
void timeline_duration(__u64 ns, char *buf, size_t len);

#endif /* BPFREC_TIMELINE_H */
