/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifecycle summary of `report`, printed to stdout from what
 * util/lifecycle.h gathered.
 */
#ifndef BPFREC_LIFECYCLE_PRINT_H
#define BPFREC_LIFECYCLE_PRINT_H

#include "util/lifecycle.h"
#include "util/timeline.h"

/* report --by: what the objects are grouped by. */
enum lc_by { LC_BY_NONE, LC_BY_LOADER, LC_BY_EXE, LC_BY_CGROUP, LC_BY_TARGET };

/* The "# " lines of the file @path: host, command line, events, records, losses, capture. */
void lifecycle_print_header(const char *path, const struct timeline *tl, const struct lifecycle *c);
/*
 * The objects by kind and type, by creating process, their lifetimes, the
 * maps' by name, the links detached and updated, and those alive at the
 * end, their names fitted to @width columns (0: no limit).  -ENOMEM.
 */
int lifecycle_print_tables(struct lifecycle *c, int width);
/* The one table of --by @by: objects by creator, or links by target.  -ENOMEM. */
int lifecycle_print_by(const struct lifecycle *c, enum lc_by by);

#endif /* BPFREC_LIFECYCLE_PRINT_H */
