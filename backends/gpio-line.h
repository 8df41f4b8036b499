/* SPDX-License-Identifier: MIT */
/* The gpio backend's line: finding the chip and line, requesting it, watching it while
 * someone else holds it, losing it with the chip. */
#pragma once

#include "gpio-types.h"

const char *gpio_led_name(const struct gpio_backend *p);
/* The line's logical value for a brightness (gpio.threshold). */
int gpio_wanted_value(const struct gpio_backend *p, unsigned brightness);
void gpio_busy_stop(struct gpio_backend *p);
void gpio_request_drop(struct gpio_backend *p);
/* Find the chip and line and request it, or wait (for the chip, for the line's holder). */
void gpio_try_attach(struct gpio_backend *p);
/* The chip of p's request went away: p waits for it to come back. */
void gpio_chip_gone(struct gpio_backend *p);
