// SPDX-License-Identifier: MIT
/* libFuzzer target: the arguments of D-Bus method calls as their handlers check them (an
 * sd_bus_message needs a started bus, so the checks are called directly): LED names
 * (CreateLED, GetLED, RemoveLED, Record), trigger names (SetTrigger), attribute names
 * (SetTriggerAttributes) and CreateLED's settings, which become a configuration section.
 * Input: NUL-separated strings, "name\0key\0value\0key\0value...". */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "led-conf.h"
#include "log.h"
#include "string-util.h"
#include "transient.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_strv_free_ char **words = NULL;
	_cleanup_free_ char *err = NULL;
	struct led_conf *lc = NULL;
	const char *reason;
	size_t n = 0;
	int r;

	log_set_max_level(LOG_EMERG);
	for (size_t off = 0; off < size;) {
		size_t len = strnlen((const char *)data + off, size - off);

		/* sd-bus hands the handlers valid UTF-8 only: skip what it would refuse. */
		if (strv_push(&words, &n, strndup((const char *)data + off, len)) < 0)
			return 0;
		if (!utf8_is_valid(words[n - 1]))
			return 0;
		off += len + 1;
	}
	if (n == 0)
		return 0;
	/* A valid name passes the kernel's rules: fits, no '/', not a dot name. */
	if (led_name_is_valid(words[0], &reason)) {
		assert(strlen(words[0]) <= LED_NAME_MAX && !strchr(words[0], '/'));
		assert(!streq(words[0], ".") && !streq(words[0], ".."));
	} else
		assert(reason);
	for (size_t i = 0; i < n; i++) {
		if (trigger_name_is_valid(words[i]))
			assert(!strpbrk(words[i], " /[]\n"));
		if (trigger_attr_name_is_valid(words[i]))
			assert(!strchr(words[i], '/') && !streq(words[i], "..") &&
			       !streq(words[i], "brightness"));
	}
	/* CreateLED(name, settings): one LED of exactly that name, or a message. */
	r = transient_parse(words[0], words + 1, &lc, &err);
	if (r >= 0) {
		assert(lc && streq(lc->name, words[0]));
		led_conf_free(lc);
	} else
		assert(err);
	return 0;
}
