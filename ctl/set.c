// SPDX-License-Identifier: MIT
/* uledsctl set: one LED, or every LED a glob matches; absolute values, toggle and steps. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "value.h"

/* One LED: VALUE against its max_brightness (and its brightness, for toggle or a step). */
static int set_one(struct ctl *c, const char *name, const char *path, const char *value)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t max, cur = 0, v;
	int r;

	r = sd_bus_get_property_trivial(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					"MaxBrightness", &e, 'u', &max);
	if (r >= 0 && ctl_value_is_relative(value))
		r = sd_bus_get_property_trivial(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
						"Brightness", &e, 'u', &cur);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the brightness of '%s'", name);
	r = ctl_parse_value(value, max, cur, &v);
	if (r == -ERANGE)
		return ctl_fail(c, CTL_EXIT_FAILURE,
				"%s is out of range for LED '%s': use 0 to %u (its "
				"max_brightness), on, off or 0%% to 100%%.",
				value, name, max);
	if (r < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE,
				"'%s' is not a brightness: use a number from 0 to %u, on, off, "
				"toggle, a percentage such as 50%%, or a step such as +10%% or -1.",
				value, max);
	r = ctl_call_led_method(c, path, "SetBrightness", &e, "u", v);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to set the brightness of '%s'", name);
	if (!c->quiet && ctl_value_is_relative(value))
		printf("%s %u/%u\n", name, v, max);
	return CTL_EXIT_OK;
}

/* NAME may be a glob ('board:*'): every LED whose name matches, in name order. */
int cmd_set(struct ctl *c, char **args, size_t n)
{
	_cleanup_free_ char *path = NULL;
	struct ctl_led *leds = NULL;
	size_t n_leds = 0, matched = 0;
	int r, worst = CTL_EXIT_OK;

	if (!strpbrk(args[0], "*?[")) {
		r = ctl_led_path(c, args[0], &path);
		return r > 0 ? r : set_one(c, args[0], path, args[1]);
	}
	r = ctl_get_leds(c, &leds, &n_leds);
	if (r > 0)
		return r;
	for (size_t i = 0; i < n_leds; i++) {
		if (fnmatch(args[0], leds[i].name, 0) != 0)
			continue;
		matched++;
		r = set_one(c, leds[i].name, leds[i].path, args[1]);
		if (r > worst)
			worst = r;
	}
	ctl_leds_free(leds, n_leds);
	if (!matched)
		return ctl_fail(c, CTL_EXIT_NO_SUCH_LED,
				"No LED matches '%s'; 'uledsctl list' shows the LEDs there are.",
				args[0]);
	return worst;
}
