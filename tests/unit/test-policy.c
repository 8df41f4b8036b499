// SPDX-License-Identifier: MIT
/* The trust model's settings ([uledsd], policy.c): defaults, keys, errors, reserved names. */
#include <stdio.h>

#include "conf-load.h"
#include "conf-parse.h"
#include "conf.h"
#include "log.h"
#include "policy.h"
#include "string-util.h"
#include "test.h"
#include "transient.h"

/* conf_parse_stream of text as "test.conf". */
static struct conf *parse_text(const char *text)
{
	struct conf *c = NULL;
	FILE *f;

	if (conf_new(&c) < 0)
		return NULL;
	f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return c;
	(void)conf_parse_stream(c, "test.conf", f);
	fclose(f);
	conf_finish(c);
	return c;
}

static void test_defaults(void)
{
	struct policy p;

	CHECK_INT(policy_init(&p), 0, "policy_init");
	CHECK_INT(p.transient_max_per_user, 16, "transient_max_per_user's default");
	CHECK_INT(p.transient_max, 64, "transient_max's default");
	CHECK_INT(p.record_max_per_user, 8, "record_max_per_user's default");
	CHECK_INT(p.record_max, 32, "record_max's default");
	CHECK_INT(p.pending_max_per_user, 8, "pending_max_per_user's default");
	CHECK_INT(p.pending_max, 64, "pending_max's default");
	CHECK(policy_trigger_allowed(&p, "timer"), "timer is allowed by default");
	CHECK(policy_trigger_allowed(&p, "none"), "none is allowed by default");
	CHECK(!policy_trigger_allowed(&p, "tty"), "tty is not allowed by default");
	CHECK(!policy_trigger_allowed(&p, "disk-activity"), "disk-activity is not by default");
	policy_done(&p);
}

static void test_section_sets_keys(void)
{
	struct conf *c = parse_text("[uledsd]\n"
				    "manage_triggers = default tty\n"
				    "transient_max_per_user = 2\n"
				    "pending_max = 0\n"
				    "[a]\n"
				    "max_brightness = 1\n");

	CHECK(c && c->n_errors == 0, "a valid [uledsd] has no errors (%s)",
	      c && c->n_errors ? c->errors[0] : "");
	CHECK(c && c->n_leds == 1 && streq(c->leds[0]->name, "a"),
	      "[uledsd] is no LED, the section after it is");
	CHECK(c && policy_trigger_allowed(&c->policy, "tty"), "'default tty' adds tty");
	CHECK(c && policy_trigger_allowed(&c->policy, "heartbeat"), "... and keeps the defaults");
	CHECK(c && c->policy.transient_max_per_user == 2, "transient_max_per_user = 2");
	CHECK(c && c->policy.pending_max == 0, "pending_max = 0");
	CHECK(c && c->policy.record_max == 32, "a key not given keeps its default");
	conf_free(c);
}

static void test_replacing_list(void)
{
	struct conf *c = parse_text("[uledsd]\nmanage_triggers = timer\n");

	CHECK(c && policy_trigger_allowed(&c->policy, "timer"), "timer listed");
	CHECK(c && !policy_trigger_allowed(&c->policy, "heartbeat"),
	      "a list without 'default' replaces the defaults");
	CHECK(c && policy_trigger_allowed(&c->policy, "none"), "none is always allowed");
	conf_free(c);
}

/* error: the substring the first error must contain. */
static void check_error(const char *text, const char *error, const char *what)
{
	struct conf *c = parse_text(text);

	CHECK(c && c->n_errors == 1 && strstr(c->errors[0], error), "%s: got '%s'", what,
	      c && c->n_errors ? c->errors[0] : "(no error)");
	conf_free(c);
}

static void test_errors(void)
{
	check_error("[uledsd]\nmax_brightness = 1\n",
		    "test.conf:2: unknown key 'max_brightness' in [uledsd], the section of uledsd's "
		    "own settings (an LED needs another name)",
		    "an LED key in [uledsd]");
	check_error("[uledsd]\ntransient_max = lots\n",
		    "test.conf:2: transient_max = lots: give a number from 0 to 100000 (built-in: 64)",
		    "a quota that is not a number");
	check_error("[uledsd]\nrecord_max = 100001\n", "give a number from 0 to 100000",
		    "a quota above the limit");
	check_error("[uledsd]\nmanage_triggers = timer ../x\n", "'../x' is not a trigger name",
		    "a trigger list with a path");
	check_error("[uledsd]\nrecord_max = 1\nrecord_max = 2\n",
		    "test.conf:3: 'record_max' is set twice in [uledsd] (first at line 2)",
		    "a key twice in one file");
}

static void test_later_file_overrides(void)
{
	struct conf *c = parse_text("[uledsd]\nrecord_max = 1\n");
	FILE *f;

	if (!c)
		return;
	f = fmemopen((void *)"[uledsd]\nrecord_max = 5\n", 24, "r");
	if (f) {
		(void)conf_parse_stream(c, "later.conf", f);
		fclose(f);
	}
	CHECK(c->n_errors == 0, "the same key in a later drop-in is no error");
	CHECK_INT(c->policy.record_max, 5, "the later drop-in's value");
	conf_free(c);
}

static void test_reserved_names(void)
{
	CHECK_STR(policy_reserved_name("x::kbd_backlight"), "kbd_backlight", "x::kbd_backlight");
	CHECK_STR(policy_reserved_name("x::kbd_backlight_1"), "kbd_backlight",
		  "a suffix after the function");
	CHECK_STR(policy_reserved_name("kbd_backlight:x"), "kbd_backlight",
		  "kbd_backlight as the device part");
	CHECK_STR(policy_reserved_name("x::KBD_Backlight"), "kbd_backlight", "any case");
	CHECK_STR(policy_reserved_name("hda::micmute"), "micmute", "micmute");
	CHECK_STR(policy_reserved_name("platform::mute_1"), "mute", "mute with a suffix");
	CHECK(policy_reserved_name("board:green:status") == NULL, "an ordinary name passes");
}

static void test_transient_refuses_section_name(void)
{
	char *pairs[] = {"transient_max", "1000", NULL};
	struct led_conf *lc = NULL;
	char *err = NULL;

	CHECK(transient_parse(POLICY_SECTION, pairs, &lc, &err) < 0 && err &&
		  strstr(err, "the section of uledsd's own settings"),
	      "CreateLED of 'uledsd' cannot set the policy: %s", err ? err : "(accepted)");
	free(err);
	led_conf_free(lc);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	TEST_CASE(test_defaults);
	TEST_CASE(test_section_sets_keys);
	TEST_CASE(test_replacing_list);
	TEST_CASE(test_errors);
	TEST_CASE(test_later_file_overrides);
	TEST_CASE(test_reserved_names);
	TEST_CASE(test_transient_refuses_section_name);
	return test_finish("test-policy");
}
