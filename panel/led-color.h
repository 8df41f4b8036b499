/* SPDX-License-Identifier: MIT */
/* The colour of an LED from its name (devicename:color:function), as the kernel names colours. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The kernel's led_colors[] (drivers/leds/led-core.c), in its order; UNKNOWN is ours. */
enum led_color {
	LED_COLOR_UNKNOWN = -1,
	LED_COLOR_WHITE = 0,
	LED_COLOR_RED,
	LED_COLOR_GREEN,
	LED_COLOR_BLUE,
	LED_COLOR_AMBER,
	LED_COLOR_VIOLET,
	LED_COLOR_YELLOW,
	LED_COLOR_IR,
	LED_COLOR_MULTI,
	LED_COLOR_RGB,
	LED_COLOR_PURPLE,
	LED_COLOR_ORANGE,
	LED_COLOR_PINK,
	LED_COLOR_CYAN,
	LED_COLOR_LIME,
	_LED_COLOR_MAX,
};

/* A lamp colour for a dark background, each channel 0..1. */
struct led_rgb {
	double r, g, b;
};

/* The colour named by the LEN bytes at S ("red", "RED"), or LED_COLOR_UNKNOWN. */
enum led_color led_color_from_string(const char *s, size_t len);
/* The colour part of an LED name: the middle field of "dev:color:function"; for the
 * two-field names older drivers use ("green:power", "tpacpi::power") the field that is a
 * colour name. LED_COLOR_UNKNOWN when the name carries none. */
enum led_color led_color_from_name(const char *name);
/* "red", ..., "unknown" */
const char *led_color_to_string(enum led_color c);
/* The lit colour of the lamp; UNKNOWN gives a neutral, slightly cool white-grey. */
struct led_rgb led_color_rgb(enum led_color c);
/* The light of a multicolour LED (the Color property): each channel's colour weighted by
 * intensity / max and added, each component at most 1 (red, green and blue as pure
 * primaries, other colours as their lamp colour). No channel lit: black. */
struct led_rgb led_color_mix(const enum led_color *channel, const unsigned *intensity, size_t n,
			     unsigned max);
/* The function part ("heartbeat" of "board:green:heartbeat"); the whole name if it has
 * no colon. Points into NAME. */
const char *led_name_function(const char *name);
