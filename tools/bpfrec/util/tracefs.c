// SPDX-License-Identifier: GPL-2.0
/*
 * Finding tracefs.  Hosts here boot with it unmounted: it is mounted
 * where the kernel documents it, and the user is told, so that the mount
 * left behind is no surprise.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "util/debug.h"
#include "util/tracefs.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_DEBUG	"/sys/kernel/debug/tracing"

const char *tracefs_dir(void)
{
	if (!access(TRACEFS "/events", F_OK))
		return TRACEFS;
	if (!access(TRACEFS_DEBUG "/events", F_OK))
		return TRACEFS_DEBUG;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		int err = -errno;

		errmsg_set(err, "tracefs is not mounted and mounting it on %s failed: %s (mount -t tracefs nodev %s)",
			   TRACEFS, strerror(-err), TRACEFS);
		return NULL;
	}
	pr_info("mounted tracefs on %s\n", TRACEFS);
	return TRACEFS;
}
