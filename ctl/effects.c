// SPDX-License-Identifier: MIT
/* uledsctl blink, heartbeat and pattern: the kernel triggers people want without knowing their
 * attributes, each a 'uledsctl trigger NAME TRIGGER ATTR=VALUE...' underneath. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

#define EFFECT_MAX_MS 3600000UL /* an hour: longer is a typo, not a blink */

/* A duration in milliseconds, MIN to an hour. */
static bool parse_ms(const char *s, unsigned long min, unsigned long *ms)
{
	char *end;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return false;
	errno = 0;
	*ms = strtoul(s, &end, 10);
	return !errno && !*end && *ms >= min && *ms <= EFFECT_MAX_MS;
}

/* A brightness of a pattern step: 0 to 255 here; the kernel clamps to max_brightness. */
static bool parse_level(const char *s)
{
	char *end;
	unsigned long v;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	return !errno && !*end && v <= 65535;
}

/* trigger NAME TRIGGER ATTR=VALUE... with the attributes in ATTRS (owned by the caller). */
static int run_trigger(struct ctl *c, const char *name, const char *trigger, char **attrs,
		       size_t n_attrs)
{
	char *args[3 + 2] = {(char *)name, (char *)trigger};

	if (n_attrs > 3)
		return ctl_fail(c, CTL_EXIT_FAILURE, "internal: too many attributes");
	for (size_t i = 0; i < n_attrs; i++)
		args[2 + i] = attrs[i];
	return cmd_trigger(c, args, 2 + n_attrs);
}

/* blink NAME ON_MS [OFF_MS]: checked before the bus is opened. */
int check_blink(struct ctl *c, char **args, size_t n)
{
	unsigned long ms;

	for (size_t i = 1; i < n; i++)
		if (!parse_ms(args[i], 1, &ms))
			return ctl_fail(c, CTL_EXIT_USAGE,
					"'%s' is not a time: ON_MS and OFF_MS are milliseconds from 1 "
					"to %lu, e.g. 'uledsctl blink %s 100 900'.",
					args[i], EFFECT_MAX_MS, args[0]);
	return CTL_EXIT_OK;
}

int cmd_blink(struct ctl *c, char **args, size_t n)
{
	_cleanup_free_ char *on = NULL, *off = NULL;
	unsigned long on_ms, off_ms;

	if (!parse_ms(args[1], 1, &on_ms) || !parse_ms(args[n > 2 ? 2 : 1], 1, &off_ms))
		return check_blink(c, args, n);
	if (asprintf(&on, "delay_on=%lu", on_ms) < 0 || asprintf(&off, "delay_off=%lu", off_ms) < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory");
	return run_trigger(c, args[0], "timer", (char *[]){on, off}, 2);
}

int cmd_heartbeat(struct ctl *c, char **args, size_t n)
{
	(void)n;
	return run_trigger(c, args[0], "heartbeat", NULL, 0);
}

/* pattern NAME BRIGHTNESS MS [BRIGHTNESS MS...]: pairs of numbers, checked before the bus. */
int check_pattern(struct ctl *c, char **args, size_t n)
{
	if ((n - 1) % 2)
		return ctl_fail(c, CTL_EXIT_USAGE,
				"A pattern is pairs of BRIGHTNESS MS; %zu words given. E.g. "
				"'uledsctl pattern %s 0 500 255 500' fades up and down once a second.",
				n - 1, args[0]);
	for (size_t i = 1; i < n; i++) {
		unsigned long ms;

		if (i % 2 ? !parse_level(args[i]) : !parse_ms(args[i], 0, &ms))
			return ctl_fail(c, CTL_EXIT_USAGE,
					"'%s' is not a %s (word %zu of the pattern): BRIGHTNESS is 0 to "
					"max_brightness, MS 0 (a jump) to %lu milliseconds.",
					args[i], i % 2 ? "brightness" : "duration", i, EFFECT_MAX_MS);
	}
	return CTL_EXIT_OK;
}

/* ledtrig-pattern's "pattern" attribute: the brightness moves linearly from each step to the
 * next over its MS (equal neighbours hold). */
int cmd_pattern(struct ctl *c, char **args, size_t n)
{
	_cleanup_free_ char *pattern = NULL;
	size_t len = 0;
	FILE *f;
	int r = check_pattern(c, args, n);

	if (r != CTL_EXIT_OK)
		return r;
	f = open_memstream(&pattern, &len);
	if (!f)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory");
	fputs("pattern=", f);
	for (size_t i = 1; i < n; i++)
		fprintf(f, "%s%s", i > 1 ? " " : "", args[i]);
	if (fclose(f) != 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory");
	return run_trigger(c, args[0], "pattern", (char *[]){pattern}, 1);
}
