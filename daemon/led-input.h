/* SPDX-License-Identifier: MIT */
/* Reading an LED's fd and handing on what it says (led-input.c). */
#pragma once

#include "led-types.h"

/* Send the current brightness (or the running offloaded blink) to every attached backend;
 * LED_EVENT_CHANGED to the listeners. */
void led_dispatch(struct led *l);
/* The watch's callback: read what the LED's fd has and forward it. */
void led_on_ready(struct led_watch_member *mb);
