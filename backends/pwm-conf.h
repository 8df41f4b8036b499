/* SPDX-License-Identifier: MIT */
/* The pwm backend's configuration: the pwm.* keys, checks without hardware, reload identity,
 * the sysfs paths the sandbox must let it write. */
#pragma once

#include "pwm-types.h"

int pwm_parse(struct led_backend *b, const char *key, const char *value, char **ret_error);
int pwm_verify(struct led_backend *b, char **ret_error);
char *pwm_claim(const struct led_backend *b);
bool pwm_same(const struct led_backend *a, const struct led_backend *b);
void pwm_free_priv(struct led_backend *b);
char *pwm_sysfs_writes(const struct led_backend *b, const char *sysfs);
