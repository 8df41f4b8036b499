/* SPDX-License-Identifier: MIT */
/* What bus.c (the connection) needs of bus-api.c (the interfaces): the vtables. The names and
 * paths they are exported under are the contract's (uledsd-bus.h). */
#pragma once

#include <systemd/sd-bus.h>

/* io.uledsd1.Manager on ULEDSD_MANAGER_PATH, userdata the manager. */
extern const sd_bus_vtable bus_manager_vtable[];
/* io.uledsd1.LED, userdata the LED: Brightness with and without PropertiesChanged. */
extern const sd_bus_vtable bus_led_vtable_emits[];
extern const sd_bus_vtable bus_led_vtable_quiet[];
