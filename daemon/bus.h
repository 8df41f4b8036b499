/* SPDX-License-Identifier: MIT */
/* The D-Bus API (io.uledsd1): what the rest of the daemon tells it (no-ops when built without). */
#pragma once

#include "config.h"

struct manager;
struct led;

#if HAVE_DBUS
/* Connect to the bus chosen by m->bus_kind (BUS_KIND_NONE: do nothing), export the LEDs that
 * exist, then request the name. No bus is not an error: uledsd warns once and connects when
 * the bus appears. */
int bus_start(struct manager *m);
void bus_stop(struct manager *m);

/* An LED object appeared / is about to go (before its fields are freed). */
void bus_led_added(struct led *l);
void bus_led_removed(struct led *l);
/* Brightness changed: emit PropertiesChanged (asked by a backend with ops->bus_signals). */
void bus_led_brightness_changed(struct led *l);
/* An offloaded blink started, changed or ended: PropertiesChanged for Blink (same rule). */
void bus_led_blink_changed(struct led *l);
/* A backend's state, the trigger or the backends list changed. */
void bus_led_backends_changed(struct led *l);
/* The LED changed, so its trigger may have: look a little later and emit PropertiesChanged
 * for Trigger if it differs (LEDs with the dbus backend, as for Brightness). */
void bus_led_trigger_maybe_changed(struct led *l);
/* Look now (after uledsd set the trigger itself). */
void bus_led_trigger_check(struct led *l);
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
static inline void bus_led_added(struct led *l)
{
}
static inline void bus_led_removed(struct led *l)
{
}
static inline void bus_led_brightness_changed(struct led *l)
{
}
static inline void bus_led_blink_changed(struct led *l)
{
}
static inline void bus_led_backends_changed(struct led *l)
{
}
static inline void bus_led_trigger_maybe_changed(struct led *l)
{
}
static inline void bus_led_trigger_check(struct led *l)
{
}
static inline void bus_led_trigger_maybe_changed(struct led *l)
{
}
static inline void bus_led_trigger_check(struct led *l)
{
}
static inline void bus_manager_changed(struct manager *m, const char *property)
{
}
#endif
