// SPDX-License-Identifier: MIT
/* The basic helpers, and the LED name rule that depends on them (UTF-8 only, as D-Bus wants). */
#include <limits.h>

#include "conf-load.h"
#include "conf-parse.h"
#include "conf.h"
#include "string-util.h"
#include "trigger-names.h"
#include "test.h"

static void test_safe_atou(void)
{
	unsigned v = 0;

	CHECK(safe_atou("0", &v) == 0 && v == 0, "0");
	CHECK(safe_atou("4294967295", &v) == 0 && v == UINT_MAX, "UINT_MAX");
	CHECK_INT(safe_atou("4294967296", &v), -ERANGE, "UINT_MAX + 1");
	CHECK_INT(safe_atou("-1", &v), -EINVAL, "-1");
	CHECK_INT(safe_atou("+1", &v), -EINVAL, "+1");
	CHECK_INT(safe_atou(" 1", &v), -EINVAL, "leading space");
	CHECK_INT(safe_atou("1 ", &v), -EINVAL, "trailing space");
	CHECK_INT(safe_atou("", &v), -EINVAL, "empty");
}

static void test_strv(void)
{
	_cleanup_strv_free_ char **l = NULL;
	size_t n = 0;

	CHECK_INT(strv_push(&l, &n, strdup("a")), 0, "push");
	CHECK_INT(strv_push(&l, NULL, strdup("b")), 0, "push without a cached length");
	n = strv_length(l);
	CHECK_INT(strv_push(&l, &n, strdup("c")), 0, "push with the length");
	CHECK_INT(n, 3, "length");
	CHECK(l[3] == NULL, "NULL-terminated");
	CHECK(strv_contains(l, "b") && !strv_contains(l, "d"), "contains");
	CHECK_INT(strv_push(&l, &n, NULL), -ENOMEM, "a failed strdup is -ENOMEM");
}

static void test_utf8(void)
{
	_cleanup_free_ char *esc = NULL;

	CHECK(utf8_is_valid("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x92\xa1"),
	      "valid 2-, 3-, 4-byte forms");
	CHECK(!utf8_is_valid("\xff"), "0xff");
	CHECK(!utf8_is_valid("caf\xc3"), "cut sequence");
	CHECK(!utf8_is_valid("\xc0\xaf"), "overlong '/'");
	CHECK(!utf8_is_valid("\xed\xa0\x80"), "surrogate");
	CHECK(!utf8_is_valid("\xf4\x90\x80\x80"), "above U+10FFFF");
	esc = utf8_escape_invalid("a\xff"
				  "b\xc3\xa9");
	CHECK_STR(esc, "a\\xffb\xc3\xa9", "invalid bytes escaped, valid ones kept");
}

/* One LED named by raw bytes: invalid UTF-8 is a FILE:LINE error, and the error is UTF-8. */
static void test_led_name_utf8(void)
{
	static const char text[] = "[ok:\xc3\xa9]\n\n[bad:\xff\xfe]\nmax_brightness = 1\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct conf *c;

	if (!f || conf_new(&c) < 0)
		exit(2);
	conf_parse_stream(c, "t.conf", f);
	conf_finish(c);
	fclose(f);
	CHECK(conf_find(c, "ok:\xc3\xa9") != NULL, "a UTF-8 name is valid");
	CHECK(!conf_find(c, "bad:\xff\xfe"), "a name that is not UTF-8 is refused");
	CHECK_INT(c->n_errors, 1, "one error");
	if (c->n_errors == 1) {
		CHECK_STR(c->errors[0],
			  "t.conf:3: [bad:\\xff\\xfe] is not a valid LED name: it is not valid "
			  "UTF-8 (write the name in UTF-8).",
			  "error with FILE:LINE");
		CHECK(utf8_is_valid(c->errors[0]),
		      "the error itself is UTF-8 (D-Bus Reload returns it)");
	}
	conf_free(c);
}

static void edit_distance_counts_edits(void)
{
	CHECK_INT((int)edit_distance("timer", "timer"), 0, "equal names: 0");
	CHECK_INT((int)edit_distance("timre", "timer"), 2, "a swap is two edits");
	CHECK_INT((int)edit_distance("heatbeat", "heartbeat"), 1, "a missing letter is one");
	CHECK_INT((int)edit_distance("", "abc"), 3, "from nothing: the length");
}

static void trigger_nearest_of_a_sysfs_list(void)
{
	char list[] = "none [timer] heartbeat pattern netdev";
	char far[] = "none timer";

	CHECK_STR(trigger_nearest(list, "heatbeat"), "heartbeat", "a typo: the nearest name");
	CHECK(trigger_nearest(far, "bluetooth") == NULL, "nothing within 3 edits: NULL");
	CHECK_STR(trigger_device_source("phy0tx") ? "device" : "", "device",
		  "phy0tx comes with a wireless device");
	CHECK(trigger_device_source("timer") == NULL, "timer is no device's trigger");
}

static void shared_strings_are_one_copy(void)
{
	char a[] = "/etc/uledsd.d/10-board.conf", b[] = "/etc/uledsd.d/10-board.conf";
	const char *x = str_shared(a), *y = str_shared(b), *z = str_shared("other.conf");

	CHECK(x && x == y, "equal strings share one copy");
	CHECK(x != a && x != b, "the copy is not the caller's buffer");
	CHECK(z && z != x, "another string has its own copy");
	a[0] = 'X';
	CHECK_STR(x, "/etc/uledsd.d/10-board.conf", "the copy does not follow the caller's buffer");
	str_unshare(x);
	CHECK_STR(y, "/etc/uledsd.d/10-board.conf", "alive while one reference is left");
	CHECK(str_shared(b) == y, "found again while alive");
	str_unshare(y);
	str_unshare(y);
	str_unshare(z);
	str_unshare(NULL);
	/* All gone: a new copy, and nothing leaked (the sanitizer build checks). */
	x = str_shared(b);
	CHECK_STR(x, "/etc/uledsd.d/10-board.conf", "made again after the last reference went");
	str_unshare(x);
}

int main(void)
{
	TEST_CASE(shared_strings_are_one_copy);
	TEST_CASE(edit_distance_counts_edits);
	TEST_CASE(trigger_nearest_of_a_sysfs_list);
	TEST_CASE(test_safe_atou);
	TEST_CASE(test_strv);
	TEST_CASE(test_utf8);
	TEST_CASE(test_led_name_utf8);
	return test_finish("test-string-util");
}
