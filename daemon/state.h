/* SPDX-License-Identifier: MIT */
/* Saved brightness of "default_brightness = restore" LEDs, across restarts and reboots: one
 * file per LED in a directory (StateDirectory=), written at most every 10 s and at exit. */
#pragma once

#include "led-types.h"

/* The listener (userdata: char *const *, where the directory's name is kept): a changed
 * brightness of a restore LED is saved (rate-limited, atomic), a pending save is written
 * when the LED goes. */
void state_on_led_event(struct led *l, const struct led_event *ev, void *userdata);
/* Its saved_brightness: the saved value for l, -ENOENT when there is none. */
int state_saved_brightness(struct led *l, unsigned *ret, void *userdata);
/* Write a pending save now and drop the timer (a re-execution). */
void led_state_free(struct led *l);
/* The LED goes for good (a transient LED removed): drop a pending save and its file. */
void led_state_forget(struct led *l, const char *dir);
