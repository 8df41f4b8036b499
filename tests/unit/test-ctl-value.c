// SPDX-License-Identifier: MIT
/* uledsctl's value parser: number, on, off, N%, and what it refuses. */
#include <errno.h>
#include <stdint.h>

#include "test.h"
#include "value.h"

/* Parses S for max M; returns the brightness, or -errno (a brightness is at most UINT32_MAX). */
static long long parse(const char *s, uint32_t m)
{
	uint32_t v = 12345;
	int r;

	r = ctl_parse_value(s, m, 0, &v);
	return r < 0 ? r : (long long)v;
}

/* The same from the current brightness CUR (toggle, +/- steps). */
static long long step(const char *s, uint32_t m, uint32_t cur)
{
	uint32_t v = 12345;
	int r;

	r = ctl_parse_value(s, m, cur, &v);
	return r < 0 ? r : (long long)v;
}

static void relative_values(void)
{
	CHECK_INT(step("toggle", 255, 0), 255, "toggle of an off LED: max");
	CHECK_INT(step("toggle", 255, 7), 0, "toggle of a lit LED: off");
	CHECK_INT(step("+10", 255, 100), 110, "+10 from 100");
	CHECK_INT(step("-1", 255, 100), 99, "-1 from 100");
	CHECK_INT(step("+10%", 200, 100), 120, "+10% of 200 from 100");
	CHECK_INT(step("-50%", 255, 100), 0, "-50% from 100 of 255 stops at 0");
	CHECK_INT(step("+300", 255, 100), 255, "+300 from 100 stops at max (no error)");
	CHECK_INT(step("+1", 1, 1), 1, "+1 at max stays at max");
	CHECK_INT(step("-5", 255, 0), 0, "-5 at 0 stays at 0");
	CHECK_INT(step("+", 255, 10), -EINVAL, "a sign alone is not a value");
	CHECK_INT(step("+-1", 255, 10), -EINVAL, "two signs are not a value");
	CHECK_INT(step("+101%", 255, 10), -ERANGE, "+101% is out of range");
	CHECK(ctl_value_is_relative("-1") && ctl_value_is_relative("TOGGLE") &&
		  !ctl_value_is_relative("50%") && !ctl_value_is_relative("on"),
	      "relative forms are told apart");
}

/* Numbers within range, both ends. */
static void numbers_within_range(void)
{
	CHECK_INT(parse("0", 255), 0, "0 of 255");
	CHECK_INT(parse("255", 255), 255, "255 of 255 (the maximum itself)");
	CHECK_INT(parse("42", 255), 42, "42 of 255");
	CHECK_INT(parse("007", 255), 7, "leading zeros are decimal, not octal");
	CHECK_INT(parse("1", 1), 1, "1 of an on/off LED");
	CHECK_INT(parse("4294967295", UINT32_MAX), UINT32_MAX, "UINT32_MAX of UINT32_MAX");
}

/* on/off, any case. */
static void on_and_off_in_any_case(void)
{
	CHECK_INT(parse("on", 255), 255, "on is max");
	CHECK_INT(parse("ON", 7), 7, "ON is max too");
	CHECK_INT(parse("off", 255), 0, "off is 0");
	CHECK_INT(parse("Off", 1), 0, "Off is 0");
}

/* Percentages, rounded to the nearest step. */
static void percentages_round_to_the_nearest_step(void)
{
	CHECK_INT(parse("0%", 255), 0, "0% is off");
	CHECK_INT(parse("100%", 255), 255, "100% is max");
	CHECK_INT(parse("50%", 255), 128, "50% of 255 rounds 127.5 up");
	CHECK_INT(parse("50%", 100), 50, "50% of 100");
	CHECK_INT(parse("10%", 1000), 100, "10% of 1000");
	CHECK_INT(parse("1%", 1), 1, "1% of an on/off LED lights it");
	CHECK_INT(parse("49%", 1), 1, "49% of an on/off LED lights it");
	CHECK_INT(parse("1%", 255), 3, "1% of 255 is 2.55, rounded to 3");
	CHECK_INT(parse("100%", UINT32_MAX), UINT32_MAX, "100% of UINT32_MAX does not overflow");
}

/* Out of range. */
static void out_of_range_is_erange(void)
{
	CHECK_INT(parse("256", 255), -ERANGE, "256 for max 255");
	CHECK_INT(parse("2", 1), -ERANGE, "2 for an on/off LED");
	CHECK_INT(parse("101%", 255), -ERANGE, "101%");
	CHECK_INT(parse("4294967296", UINT32_MAX), -ERANGE, "UINT32_MAX + 1");
	CHECK_INT(parse("99999999999999999999999", 255), -ERANGE,
		  "a number that overflows 64 bits");
	CHECK_INT(parse("99999999999999999999%", 255), -ERANGE, "a huge percentage");
}

/* Not a value at all. */
static void not_a_value_is_einval(void)
{
	CHECK_INT(parse("", 255), -EINVAL, "empty");
	CHECK_INT(ctl_parse_value(NULL, 255, 0, &(uint32_t){0}), -EINVAL, "NULL");
	CHECK_INT(parse("-1", 255), 0, "-1 is a step down (from 0: 0), not a negative number");
	CHECK_INT(parse("+1", 255), 1, "+1 is a step up");
	CHECK_INT(parse(" 1", 255), -EINVAL, "a leading blank");
	CHECK_INT(parse("1 ", 255), -EINVAL, "a trailing blank");
	CHECK_INT(parse("0x10", 255), -EINVAL, "hex");
	CHECK_INT(parse("1.5", 255), -EINVAL, "a fraction");
	CHECK_INT(parse("50.5%", 255), -EINVAL, "a fractional percentage");
	CHECK_INT(parse("%", 255), -EINVAL, "a bare %");
	CHECK_INT(parse("50%%", 255), -EINVAL, "50%%");
	CHECK_INT(parse("50 %", 255), -EINVAL, "a blank before %");
	CHECK_INT(parse("max", 255), -EINVAL, "max (not a keyword)");
	CHECK_INT(parse("onn", 255), -EINVAL, "onn");
	CHECK_INT(parse("99999999999999999999x", 255), -EINVAL, "a huge number with junk is junk");
}

int main(void)
{
	TEST_CASE(numbers_within_range);
	TEST_CASE(on_and_off_in_any_case);
	TEST_CASE(percentages_round_to_the_nearest_step);
	TEST_CASE(out_of_range_is_erange);
	TEST_CASE(not_a_value_is_einval);
	TEST_CASE(relative_values);
	return test_finish("test-ctl-value");
}
