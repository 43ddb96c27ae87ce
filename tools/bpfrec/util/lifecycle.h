/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifecycle of the BPF objects of a recording, for `report`: each
 * object's lifetimes (a creation and a release paired by id), who
 * created it, the link detaches and updates and who made them, and the
 * losses and times of the file.  One reading of the file in time order
 * gathers it all; util/lifecycle_print.c prints the summary from it.
 */
#ifndef BPFREC_LIFECYCLE_H
#define BPFREC_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/hashmap.h"
#include "util/perf_data/perf_data.h"
#include "util/timeline.h"

/* One lifetime of one object id: creation and destruction, as seen. */
struct lc_obj {
	enum pd_kind kind;
	__u32 id;
	bool created;			/* creation record seen */
	bool destroyed;
	__u64 t_create;
	__u64 t_destroy;
	__u32 pid;			/* creating process, 0 if unknown */
	char *comm;			/* malloc'ed; NULL if unknown */
	size_t seq;			/* position of its first record, in time order */
	char type[40];
	char name[PD_BTF_NAME_LEN];	/* the facts', else its record's description */
	bool synthesised;
	bool unresolved;
	bool self;			/* the recorder's own (PD_F_SELF) */
	const struct pd_loader *loader;	/* its creator, as the capture saw it (the reader's) */
	char *target;			/* a link's, from the facts (malloc'ed); NULL: unknown */
	size_t detaches, updates;	/* a link's LINK_DETACH and LINK_UPDATE records */
};

/* A LINK_DETACH or LINK_UPDATE, by whom (report --by). */
struct lc_change {
	__u32 pid;
	char *comm;			/* malloc'ed; NULL if unknown */
	const struct pd_loader *loader;	/* the reader's */
};

/* What one reading of the file gathers. */
struct lifecycle {
	struct lc_obj *objs;
	size_t nr, cap;
	struct hashmap open;		/* kind << 32 | id -> its latest obj */
	struct hashmap link_changes;	/* link type << 1 | updated -> LINK_DETACH/UPDATE records */
	struct lc_change *changes;		/* every LINK_DETACH and LINK_UPDATE, by whom */
	size_t nr_changes, cap_changes;
	__u64 lost, first, last;	/* LOST total, times of the records */
	size_t nr_lost, nr_records;
	/*
	 * What the file could have records of: programs always; maps, links
	 * and BTF when the recorder's kernel had bpf_obj_event, or a record
	 * says so.  The others are not recorded: no row of zeros stands for
	 * them.
	 */
	bool recorded[PD_NR_KINDS];
};

/*
 * Read the file of @tl once, in time order, into @c (zeroed by the
 * caller): its objects sorted by kind, id and time.  A negative errno
 * and a message in @err on failure.
 */
int lifecycle_collect(struct timeline *tl, struct lifecycle *c, char *err, size_t errlen);
/* Only the objects that the tasks named @comms created (report --comm). */
void lifecycle_only_comms(struct lifecycle *c, const char *const *comms, size_t nr_comms);
void lifecycle_free(struct lifecycle *c);

#endif /* BPFREC_LIFECYCLE_H */
