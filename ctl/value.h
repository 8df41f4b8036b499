/* SPDX-License-Identifier: MIT */
/* Brightness values as a person types them: a number, on, off or N%. */
#pragma once

#include <stdint.h>

/* Parses VALUE for an LED whose max_brightness is MAX. Returns 0 and the brightness in *ret,
 * -EINVAL when VALUE is none of the accepted forms, -ERANGE when it is above MAX or above 100%. */
int ctl_parse_value(const char *value, uint32_t max, uint32_t *ret);
