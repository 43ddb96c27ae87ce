/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from a recording (comms, names) made safe for a terminal: a comm
 * is whatever a task wrote to /proc/self/comm, escape sequences included.
 */
#ifndef BPFREC_PRINTABLE_H
#define BPFREC_PRINTABLE_H

#include <stddef.h>

/*
 * @s into @buf (@len bytes, NUL included, cut if longer) with every
 * control character (below 0x20, and 0x7f) as \xNN and the backslash as
 * \\, so that what is shown can be told from an escape.  Returns @buf.
 */
const char *printable(const char *s, char *buf, size_t len);

#endif /* BPFREC_PRINTABLE_H */
