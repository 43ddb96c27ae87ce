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
 * control character as \xNN: below 0x20, 0x7f, the C1 controls (0x80 to
 * 0x9f, raw or as UTF-8) and any byte that is not part of valid UTF-8;
 * the backslash as \\, so that what is shown can be told from an
 * escape.  A NULL @s is empty.  Returns @buf.
 */
const char *printable(const char *s, char *buf, size_t len);

#endif /* BPFREC_PRINTABLE_H */
