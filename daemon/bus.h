/* SPDX-License-Identifier: MIT */
/* The D-Bus API (io.uledsd1): the connection, and what it hears of the LEDs (no-ops when built
 * without). */
#pragma once

#include "config.h"
#include "led-types.h"

struct manager;

#if HAVE_DBUS
/* Connect to the bus chosen by m->bus_kind (BUS_KIND_NONE: do nothing), export the LEDs that
 * exist, then request the name. No bus is not an error: uledsd warns once and connects when
 * the bus appears. */
int bus_start(struct manager *m);
void bus_stop(struct manager *m);
/* The listener (main.c registers it): an LED's object appears and goes with the LED; its
 * Brightness, Blink, Trigger and Backends changes become PropertiesChanged (LEDs with the
 * dbus backend), its trigger is looked at after a change of the LED. */
void bus_on_led_event(struct led *l, const struct led_event *ev, void *userdata);
/* A property of the Manager object changed ("LoadErrors"): emit PropertiesChanged. */
void bus_manager_changed(struct manager *m, const char *property);
#else
static inline int bus_start(struct manager *m)
{
	return 0;
}
static inline void bus_stop(struct manager *m)
{
}
static inline void bus_manager_changed(struct manager *m, const char *property)
{
}
#endif
