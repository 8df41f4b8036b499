/* SPDX-License-Identifier: MIT */
/* Sorted copies of a configuration's definitions and of the LEDs, looked up with bsearch (a
 * reload looks each name up in the other list: 10 000 LEDs took 49 s with strcmp scans). */
#pragma once

#include <stddef.h>

struct conf;
struct led;
struct led_conf;

/* Sorted by name (malloc'ed; NULL when empty or out of memory: the lookups then scan). */
struct led_conf **conf_sorted(const struct conf *c);
struct led **leds_sorted(struct led *const *leds, size_t n);
/* The definition / LED named name: in sorted when there is one, else in the list. */
struct led_conf *find_conf(const struct conf *c, struct led_conf **sorted, const char *name);
struct led *find_led(struct led *const *leds, size_t n_leds, struct led **sorted, size_t n,
		     const char *name);
