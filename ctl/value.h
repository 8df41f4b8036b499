/* SPDX-License-Identifier: MIT */
/* Brightness values as a person types them: a number, on, off, N%, toggle, and +/- steps. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* VALUE depends on the current brightness (toggle, +N, -N, +N%, -N%). */
bool ctl_value_is_relative(const char *value);
/* Parses VALUE for an LED whose max_brightness is MAX and whose brightness is CURRENT (used by
 * the relative forms only). Returns 0 and the brightness in *ret, -EINVAL when VALUE is none
 * of the accepted forms, -ERANGE when it is above MAX or above 100%. A step is kept within 0
 * to MAX: +10% at the top stays at MAX. */
int ctl_parse_value(const char *value, uint32_t max, uint32_t current, uint32_t *ret);
