// SPDX-License-Identifier: MIT
/* Name → colour for the panel's lamps: plain C, no GTK, so the unit test needs no display. */
#include <string.h>
#include <strings.h>

#include "led-color.h"

static const struct {
	const char *name;
	struct led_rgb rgb;
} colors[_LED_COLOR_MAX] = {
    /* Tuned to look like the LED on a dark background, not like the CSS colour names:
     * saturated where real parts are, and bright enough to glow. */
    [LED_COLOR_WHITE] = {"white", {0.96, 0.95, 0.90}},
    [LED_COLOR_RED] = {"red", {1.00, 0.16, 0.12}},
    [LED_COLOR_GREEN] = {"green", {0.20, 0.92, 0.36}},
    [LED_COLOR_BLUE] = {"blue", {0.20, 0.50, 1.00}},
    [LED_COLOR_AMBER] = {"amber", {1.00, 0.69, 0.00}},
    [LED_COLOR_VIOLET] = {"violet", {0.61, 0.36, 1.00}},
    [LED_COLOR_YELLOW] = {"yellow", {1.00, 0.91, 0.23}},
    /* Infrared is invisible: a deep, dim red-purple says "something, not for the eye". */
    [LED_COLOR_IR] = {"ir", {0.62, 0.16, 0.32}},
    /* A multicolour LED shows its mixed colour (led_color_mix() of its Color property);
     * without one, a soft lavender white says "several colours". */
    [LED_COLOR_MULTI] = {"multicolor", {0.86, 0.82, 1.00}},
    [LED_COLOR_RGB] = {"rgb", {0.86, 0.82, 1.00}},
    [LED_COLOR_PURPLE] = {"purple", {0.72, 0.30, 1.00}},
    [LED_COLOR_ORANGE] = {"orange", {1.00, 0.48, 0.10}},
    [LED_COLOR_PINK] = {"pink", {1.00, 0.40, 0.70}},
    [LED_COLOR_CYAN] = {"cyan", {0.16, 0.88, 0.94}},
    [LED_COLOR_LIME] = {"lime", {0.65, 1.00, 0.18}},
};

static const struct led_rgb neutral = {0.80, 0.82, 0.86};

enum led_color led_color_from_string(const char *s, size_t len)
{
	if (!s)
		return LED_COLOR_UNKNOWN;
	for (int i = 0; i < _LED_COLOR_MAX; i++)
		if (strlen(colors[i].name) == len && strncasecmp(colors[i].name, s, len) == 0)
			return i;
	return LED_COLOR_UNKNOWN;
}

enum led_color led_color_from_name(const char *name)
{
	const char *c1, *c2;

	if (!name)
		return LED_COLOR_UNKNOWN;
	c1 = strchr(name, ':');
	if (!c1) /* "red": a bare colour is still a colour */
		return led_color_from_string(name, strlen(name));
	c2 = strchr(c1 + 1, ':');
	if (c2) /* devicename:color:function; the function may hold more colons */
		return led_color_from_string(c1 + 1, c2 - c1 - 1);

	/* Two fields: "color:function" (older drivers) or "devicename:color". */
	enum led_color c = led_color_from_string(name, c1 - name);
	if (c != LED_COLOR_UNKNOWN)
		return c;
	return led_color_from_string(c1 + 1, strlen(c1 + 1));
}

const char *led_color_to_string(enum led_color c)
{
	if (c < 0 || c >= _LED_COLOR_MAX)
		return "unknown";
	return colors[c].name;
}

struct led_rgb led_color_rgb(enum led_color c)
{
	if (c < 0 || c >= _LED_COLOR_MAX)
		return neutral;
	return colors[c].rgb;
}

/* A channel's light in a mix. The lamp colours of red, green and blue carry some glow of the
 * other components (red is 1.00 0.16 0.12), which added up would wash every mix out (red +
 * blue would be a pale pink, 1.00 0.66 1.00): in a mix they are the pure primaries. */
static struct led_rgb mix_primary(enum led_color c)
{
	switch (c) {
	case LED_COLOR_RED:
		return (struct led_rgb){1, 0, 0};
	case LED_COLOR_GREEN:
		return (struct led_rgb){0, 1, 0};
	case LED_COLOR_BLUE:
		return (struct led_rgb){0, 0, 1};
	default:
		return led_color_rgb(c);
	}
}

struct led_rgb led_color_mix(const enum led_color *channel, const unsigned *intensity, size_t n,
			     unsigned max)
{
	struct led_rgb sum = {0, 0, 0};

	for (size_t i = 0; max && i < n; i++) {
		struct led_rgb c = mix_primary(channel[i]);
		double w = (double)(intensity[i] < max ? intensity[i] : max) / max;

		sum.r += c.r * w;
		sum.g += c.g * w;
		sum.b += c.b * w;
	}
	sum.r = sum.r > 1 ? 1 : sum.r;
	sum.g = sum.g > 1 ? 1 : sum.g;
	sum.b = sum.b > 1 ? 1 : sum.b;
	return sum;
}

const char *led_name_function(const char *name)
{
	const char *p = strrchr(name, ':');

	/* "dev:color:" has an empty function: show the whole name rather than nothing. */
	if (!p || !p[1])
		return name;
	return p + 1;
}
