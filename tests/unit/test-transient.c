// SPDX-License-Identifier: MIT
/* CreateLED's settings (transient_parse): exactly the named LED, or a message that says why. */
#include "led-conf.h"
#include "log.h"
#include "string-util.h"
#include "test.h"
#include "transient.h"

/* transient_parse(name, pairs...): 0 and the LED's name, or the error message. */
static int parse(const char *name, char **pairs, char **ret_text)
{
	struct led_conf *lc = NULL;
	char *err = NULL;
	int r;

	r = transient_parse(name, pairs, &lc, &err);
	if (r >= 0) {
		*ret_text = strdup(lc->name);
		led_conf_free(lc);
	} else
		*ret_text = err ? err : strdup("(no message)");
	return r;
}

static char *ok[] = {"max_brightness", "1", "backends", "log", NULL};

static void plain_create_gives_the_named_led(void)
{
	char *text;

	CHECK_INT(parse("t:green", ok, &text), 0, "a plain CreateLED");
	CHECK_STR(text, "t:green", "the LED has the name asked for");
	free(text);
}

/* Found by fuzz-bus-args: the section "[ax] ;]" was the LED "ax". */
static void names_with_brackets_or_slashes_are_refused(void)
{
	char *odd[] = {"r ", NULL};
	char *text;

	CHECK(parse("ax] ;", odd, &text) < 0 && strstr(text, "contains ']'"),
	      "a name with ']' is refused, not cut: %s", text);
	free(text);
	CHECK(parse("a]b", ok, &text) < 0, "'a]b' is refused (%s)", text);
	free(text);
	CHECK(parse("a/b", ok, &text) < 0 && strstr(text, "contains '/'"), "'/' is refused: %s",
	      text);
	free(text);
}

static void bad_settings_name_their_key(void)
{
	char *bad_key[] = {"trigger.../x", "1", NULL};
	char *bad_value[] = {"max_brightness", "x", NULL};
	char *text;

	CHECK(parse("t", bad_key, &text) < 0 && strstr(text, "trigger.../x"),
	      "an attribute path is refused and named: %s", text);
	free(text);
	CHECK(parse("t", bad_value, &text) < 0 && strstr(text, "max_brightness"),
	      "a bad value names its key: %s", text);
	free(text);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	TEST_CASE(plain_create_gives_the_named_led);
	TEST_CASE(names_with_brackets_or_slashes_are_refused);
	TEST_CASE(bad_settings_name_their_key);
	return test_finish("test-transient");
}
