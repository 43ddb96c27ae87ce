/* SPDX-License-Identifier: GPL-2.0 */
/* Where tracefs is: the tracepoints' ids and formats are read from it. */
#ifndef BPFREC_TRACEFS_H
#define BPFREC_TRACEFS_H

/*
 * The tracefs directory, mounted at /sys/kernel/tracing first when no
 * tracefs is mounted (said on stderr); NULL with one line printed when
 * there is none.
 */
const char *tracefs_dir(void);

#endif /* BPFREC_TRACEFS_H */
