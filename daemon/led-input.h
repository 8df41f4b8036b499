/* SPDX-License-Identifier: MIT */
/* Reading an LED's fd and handing on what it says (led-input.c). */
#pragma once

#include "led-types.h"

/* Send the current brightness (or the running offloaded blink) to every attached backend;
 * LED_EVENT_CHANGED to the listeners. */
void led_dispatch(struct led *l);
/* The watch's callback: read what the LED's fd has and forward it. */
void led_on_ready(struct led_watch_member *mb);
/* The watch's callback for an LED in a uleds group: one record, read from the group. */
void led_on_record(struct led_watch_member *mb, const struct uleds_event *ev);
