// SPDX-License-Identifier: GPL-2.0
/* Text from a recording made safe for a terminal. */
#include <stdio.h>
#include "util/printable.h"

const char *printable(const char *s, char *buf, size_t len)
{
	size_t pos = 0;

	for (; *s && pos + 1 < len; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f) {
			if (pos + 5 >= len)
				break;
			pos += snprintf(buf + pos, len - pos, "\\x%02x", c);
		} else if (c == '\\') {
			if (pos + 3 >= len)
				break;
			buf[pos++] = '\\';
			buf[pos++] = '\\';
		} else {
			buf[pos++] = c;
		}
	}
	buf[pos] = '\0';
	return buf;
}
