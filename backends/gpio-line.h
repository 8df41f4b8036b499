/* SPDX-License-Identifier: MIT */
/* The gpio backend's line: finding the chip and line, requesting it, watching it while
 * someone else holds it, losing it with the chip. */
#pragma once

#include "gpio-types.h"

const char *gpio_led_name(const struct gpio_backend *p);
/* The line's logical value for a brightness (gpio.threshold). */
int gpio_wanted_value(const struct gpio_backend *p, unsigned brightness);
/* "line 'NAME' (3) on gpiochip0" or "line 3 on gpiochip0" (resolved lines). */
void gpio_line_describe(const struct gpio_backend *p, char *buf, size_t size);
/* Add p's line with its settings (output, value, drive, bias, active-low) to lc. */
int gpio_line_config_add(const struct gpio_backend *p, struct gpiod_line_config *lc, int value);
/* The line is requested and shows value: the status says so. */
void gpio_line_attached(struct gpio_backend *p, int value);
/* That status: "attached to line 3 on gpiochip0 (a request shared by 8 lines)". */
void gpio_line_attached_text(const struct gpio_backend *p, char *buf, size_t size);
void gpio_busy_stop(struct gpio_backend *p);
void gpio_request_drop(struct gpio_backend *p);
/* Find chip and line without requesting: 1 on a scanned chip, 0 on another, -1 not found. */
int gpio_line_resolve(struct gpio_backend *p);
/* Find the chip and line and request it, or wait (for the chip, for the line's holder). */
void gpio_try_attach(struct gpio_backend *p);
/* The chip of p's request (its own or its group's) went away: p waits for it to come back.
 * Drops p's own request; a group member leaves its group after this (gpio-group.c). */
void gpio_chip_gone(struct gpio_backend *p);
