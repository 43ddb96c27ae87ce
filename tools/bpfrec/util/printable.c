// SPDX-License-Identifier: GPL-2.0
/* Text from a recording made safe for a terminal. */
#include <stdio.h>
#include "util/printable.h"

/*
 * The length of the valid UTF-8 sequence at @s (2 to 4 bytes) that is
 * not a C1 control (U+0080 to U+009F, which terminals obey as they obey
 * ESC); 0 for anything else.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* C1 controls; overlong forms, surrogates and beyond U+10FFFF */
	if ((s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xe0 && s[1] < 0xa0) ||
	    (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

const char *printable(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t pos = 0;
	int n;

	if (!len)
		return buf;
	for (; p && *p && pos + 1 < len; p++) {
		unsigned char c = *p;

		if (c >= 0x80 && (n = utf8_len(p))) {
			if (pos + n >= len)
				break;
			while (n--)
				buf[pos++] = *p++;
			p--;
		} else if (c < 0x20 || c >= 0x7f) {
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
