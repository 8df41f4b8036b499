// SPDX-License-Identifier: MIT
/* Brightness values as a person types them: a number, on, off, N%, toggle, and +/- steps. */
#include <errno.h>
#include <stdbool.h>
#include <strings.h>

#include "value.h"

/* A number or N% (of max) alone; above max (but not above 100%) only when relative. */
static int parse_amount(const char *value, uint32_t max, bool relative, uint32_t *ret)
{
	uint64_t v = 0;
	bool big = false;
	const char *p;

	/* Digits only: no sign, no blanks, no hex. strtoul would take " -1" as a huge number. */
	for (p = value; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX) {
			/* Keep scanning so "99999999999x" is still "not a value", not "out of
			 * range". */
			big = true;
			v = UINT32_MAX + (uint64_t)1;
		}
	}
	if (p == value)
		return -EINVAL;
	if (p[0] == '%' && p[1] == '\0') {
		if (big || v > 100)
			return -ERANGE;
		/* Rounded to the nearest step; any percentage above 0 lights the LED, so 1% of an
		 * on/off LED (max 1) is on rather than a silent no-op. */
		*ret = (uint32_t)((v * max + 50) / 100);
		if (v > 0 && *ret == 0)
			*ret = 1;
		return 0;
	}
	if (*p)
		return -EINVAL;
	if (big || (!relative && v > max))
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

bool ctl_value_is_relative(const char *value)
{
	return value && (value[0] == '+' || value[0] == '-' || strcasecmp(value, "toggle") == 0);
}

int ctl_parse_value(const char *value, uint32_t max, uint32_t current, uint32_t *ret)
{
	uint32_t step;
	int r;

	if (!value || !*value)
		return -EINVAL;
	if (strcasecmp(value, "on") == 0) {
		*ret = max;
		return 0;
	}
	if (strcasecmp(value, "off") == 0) {
		*ret = 0;
		return 0;
	}
	if (strcasecmp(value, "toggle") == 0) {
		*ret = current ? 0 : max;
		return 0;
	}
	if (value[0] != '+' && value[0] != '-')
		return parse_amount(value, max, false, ret);
	/* A step up or down from the current brightness, kept within 0 to max (brightnessctl
	 * does the same). */
	r = parse_amount(value + 1, max, true, &step);
	if (r < 0)
		return r;
	if (current > max)
		current = max;
	if (value[0] == '+')
		*ret = step >= max - current ? max : current + step;
	else
		*ret = step >= current ? 0 : current - step;
	return 0;
}
