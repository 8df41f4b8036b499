/* SPDX-License-Identifier: MIT */
/* Saved brightness of "default_brightness = restore" LEDs, across restarts and reboots. */
#pragma once

#include <stdbool.h>

struct led;

/* The saved value for l, or -ENOENT when there is none. */
int led_state_load(struct led *l, unsigned *ret);
/* l's brightness changed: schedule a (rate-limited, atomic) save. */
void led_state_changed(struct led *l);
/* Write a pending save now and drop the timer (LED going away, daemon exiting). */
void led_state_free(struct led *l);
/* The LED goes for good (a transient LED removed): drop a pending save and its file. */
void led_state_forget(struct led *l);
