// SPDX-License-Identifier: MIT
/* An LED name as a file or fd name: reversible, and safe for systemd's FDNAME. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "led-name.h"

/* systemd rejects FDNAMEs with ':' or control characters (and the fd then comes back named
 * "stored"): escape those, '%' itself and anything outside printable ASCII as %XX. */
static bool fdname_char_ok(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != ':' && c != '%';
}

int led_name_escape(const char *name, char **ret)
{
	char *s = malloc(strlen(name) * 3 + 1), *p = s;

	if (!s)
		return -ENOMEM;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (fdname_char_ok(*c))
			*p++ = (char)*c;
		else
			p += sprintf(p, "%%%02X", *c);
	*p = 0;
	*ret = s;
	return 0;
}

int led_name_unescape(const char *fdname, char **ret)
{
	char *s = malloc(strlen(fdname) + 1), *p = s;

	if (!s)
		return -ENOMEM;
	for (const char *c = fdname; *c; c++) {
		unsigned v;

		if (*c != '%') {
			*p++ = *c;
			continue;
		}
		/* Only what led_name_escape() writes: two hex digits, not NUL. */
		if (!isxdigit((unsigned char)c[1]) || !isxdigit((unsigned char)c[2]) ||
		    sscanf(c + 1, "%2x", &v) != 1 || v == 0) {
			free(s);
			return -EINVAL;
		}
		*p++ = (char)v;
		c += 2;
	}
	*p = 0;
	*ret = s;
	return 0;
}
