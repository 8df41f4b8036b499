/* SPDX-License-Identifier: MIT */
/* Applying an LED's definition through sysfs (led-apply.c). Errors come as -errno with a
 * malloc'ed "FILE:LINE: ..." message for the user in *ret_error. */
#pragma once

#include "led-types.h"

/* The colour (intensities) and default brightness of the definition. */
int led_apply_default(struct led *l, char **ret_error);
/* The trigger (or none) and its attributes; -ENOENT with a hint when it is not available. */
int led_apply_trigger(struct led *l, char **ret_error);
/* Set the channel intensities (n_channels values, each <= max_brightness) through sysfs's
 * multi_intensity, as any writer would: the kernel's record brings them back. */
int led_write_intensity(struct led *l, const unsigned *intensity);
/* A trigger that was not available: attach it if it is now (1: attached). */
int led_retry_trigger(struct led *l);
/* l->brightness and l->intensity as sysfs shows them now. */
int led_read_brightness(struct led *l);
void led_read_intensity(struct led *l);
/* An adopted LED's offloaded blink is handed over again (a BLINK record). */
void led_adopt_blink(struct led *l);
