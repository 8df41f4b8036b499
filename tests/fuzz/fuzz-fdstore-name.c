// SPDX-License-Identifier: MIT
/* libFuzzer target: fd-store names (LISTEN_FDNAMES, from systemd or whoever set it) unescape
 * without crashing, and escaping is exactly reversible for every LED name. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "led-name.h"
#include "macro.h"
#include "string-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *in = strndup((const char *)data, size), *name = NULL, *esc = NULL,
			    *back = NULL;

	if (!in)
		return 0;
	/* Any input as an escaped name: either a name or -EINVAL. */
	if (led_name_unescape(in, &name) >= 0) {
		assert(led_name_escape(name, &esc) >= 0);
		assert(led_name_unescape(esc, &back) >= 0);
		assert(streq(back, name));
		free(esc);
		free(back);
		esc = back = NULL;
	}
	/* Any input as a name: its escape is a valid FDNAME (printable ASCII, no ':') and
	 * comes back unchanged. */
	assert(led_name_escape(in, &esc) >= 0);
	for (const char *p = esc; *p; p++)
		assert(*p > 0x20 && *p < 0x7f && *p != ':');
	assert(led_name_unescape(esc, &back) >= 0);
	assert(streq(back, in));
	return 0;
}
