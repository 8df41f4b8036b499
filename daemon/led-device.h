/* SPDX-License-Identifier: MIT */
/* An LED's uleds device (led-device.c). */
#pragma once

#include "led-types.h"

/* Open the uleds device, choose the event mode and colour channels, and register l->name:
 * -errno and a message for the user in *ret_error (NULL only when out of memory). */
int led_register(struct led *l, char **ret_error);
/* Event mode when the module offers it and the definition allows it (an adopted fd: as it
 * is already). */
void led_set_event_mode(struct led *l);
