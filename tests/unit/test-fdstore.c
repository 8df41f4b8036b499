// SPDX-License-Identifier: MIT
/* FDNAME escaping: systemd's character set out, the LED name back, and nothing else accepted. */
#include "fdstore.h"
#include "led-name.h"
#include "string-util.h"
#include "test.h"

static void check_round_trip(const char *name, const char *want)
{
	_cleanup_free_ char *esc = NULL, *back = NULL;

	CHECK_INT(led_name_escape(name, &esc), 0, "escape");
	CHECK_STR(esc, want, name);
	CHECK_INT(led_name_unescape(esc, &back), 0, "unescape");
	CHECK_STR(back, name, "round trip");
}

static void check_bad(const char *fdname)
{
	_cleanup_free_ char *back = NULL;

	CHECK_INT(led_name_unescape(fdname, &back), -EINVAL, fdname);
}

/* Every byte outside systemd's FDNAME set becomes %XX, and comes back. */
static void escaped_names_round_trip(void)
{
	check_round_trip("board:green:power", "board%3Agreen%3Apower");
	check_round_trip("plain_name-1.2", "plain_name-1.2");
	check_round_trip("100%", "100%25");
	check_round_trip("a b", "a%20b");
	check_round_trip("tab\there", "tab%09here");
	check_round_trip("caf\xc3\xa9", "caf%C3%A9");
	check_round_trip("del\x7f", "del%7F");
}

/* Only what escape writes: '%' and two hex digits, never NUL. */
static void unescape_accepts_only_what_escape_writes(void)
{
	check_bad("a%");
	check_bad("a%4");
	check_bad("a%zz");
	check_bad("a%00b");
}

int main(void)
{
	TEST_CASE(escaped_names_round_trip);
	TEST_CASE(unescape_accepts_only_what_escape_writes);
	return test_finish("test-fdstore");
}
