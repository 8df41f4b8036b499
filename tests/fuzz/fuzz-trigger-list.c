// SPDX-License-Identifier: MIT
/* libFuzzer target: the trigger list read from sysfs ("none [timer] oneshot") parses into
 * names that are whole words, and the selected one is one of them. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "led-conf.h"
#include "string-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *in = strndup((const char *)data, size), *cur = NULL;
	_cleanup_strv_free_ char **names = NULL, **names2 = NULL;
	int r;

	if (!in)
		return 0;
	r = trigger_list_parse(in, &names, NULL);
	if (r < 0) {
		assert(r == -EBADMSG);
		return 0;
	}
	for (char **n = names; *n; n++)
		assert(**n && !strpbrk(*n, " \t\n"));
	r = trigger_list_parse(in, &names2, &cur);
	if (r >= 0) {
		assert(strv_contains(names2, cur));
		assert(strv_length(names2) == strv_length(names));
	} else
		assert(r == -EBADMSG && !cur);
	return 0;
}
