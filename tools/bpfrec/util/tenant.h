/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --cgroup PATH and --exe PATH: one tenant's objects only.  An
 * object is the tenant's when the task that created it ran in that
 * cgroup v2 (or below it) and from that executable, as the capture saw
 * the task at the creation.  The verdict is made once per object, at its
 * creation, and every later record of the object (its release, a
 * detach, an update, by whomever) follows it.
 */
#ifndef BPFREC_TENANT_H
#define BPFREC_TENANT_H

#include <stdbool.h>
#include <linux/types.h>
#include "util/bpf_obj.h"
#include "util/hashmap.h"

enum tenant_verdict {
	TENANT_UNDECIDED,	/* its creation was not seen (yet) */
	TENANT_KEEP,
	TENANT_DROP,
};

struct tenant {
	bool on;			/* --cgroup or --exe given */
	char cgroup[PD_PATH_LEN];	/* below the cgroup v2 root ("/a/b"), "" for any */
	char exe[PD_PATH_LEN];		/* the executable's real path, "" for any */
	struct hashmap objects;		/* kind << 32 | id -> enum tenant_verdict */
	__u64 left_out;			/* records of other objects not written */
};

/*
 * The cgroup v2 directory @path (absolute, or relative to where cgroup v2
 * is mounted), as the capture names a task's cgroup.  -EINVAL with the
 * error line built (errmsg_set()) when it is not one.
 */
int tenant_set_cgroup(struct tenant *t, const char *path);
/* The executable file @path; -EINVAL with the error line built when it is not one. */
int tenant_set_exe(struct tenant *t, const char *path);
/* Whether the task @d describes is the tenant's (a path the capture cut is not). */
bool tenant_task(const struct tenant *t, const struct pd_loader *d);
/* The verdict on object @id of @kind. */
enum tenant_verdict tenant_verdict(const struct tenant *t, enum pd_kind kind, __u32 id);
/* The verdict on object @id of @kind at its creation, unless made already: the one that holds. */
enum tenant_verdict tenant_decide(struct tenant *t, enum pd_kind kind, __u32 id, bool keep);
void tenant_free(struct tenant *t);

#endif /* BPFREC_TENANT_H */
