/* SPDX-License-Identifier: MIT */
/* The gpio backend's configuration half of struct backend_ops: the gpio.* keys, checks
 * without hardware, claims and reload identity. */
#pragma once

#include "gpio-types.h"

int gpio_parse(struct led_backend *b, const char *key, const char *value, char **ret_error);
int gpio_verify(struct led_backend *b, char **ret_error);
char *gpio_claim(const struct led_backend *b);
bool gpio_same(const struct led_backend *a, const struct led_backend *b);
void gpio_free_priv(struct led_backend *b);
/* "gpiochip2" for "/dev/gpiochip2" and "gpiochip2"; else the string itself (a label). */
const char *gpio_chip_key(const char *chip);
bool gpio_is_chip_name(const char *s);
