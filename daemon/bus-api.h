/* SPDX-License-Identifier: MIT */
/* What bus.c (the connection) needs of bus-api.c (the interfaces): names, paths, vtables. */
#pragma once

#include <systemd/sd-bus.h>

struct led;

#define BUS_NAME "io.uledsd1"
#define MANAGER_PATH "/io/uledsd1"
#define LED_PATH_PREFIX "/io/uledsd1/led"
#define MANAGER_IFACE "io.uledsd1.Manager"
#define LED_IFACE "io.uledsd1.LED"
#define BUS_ERROR_UNKNOWN_LED "io.uledsd1.Error.UnknownLED"

/* io.uledsd1.Manager on MANAGER_PATH, userdata the manager. */
extern const sd_bus_vtable bus_manager_vtable[];
/* io.uledsd1.LED, userdata the LED: Brightness with and without PropertiesChanged. */
extern const sd_bus_vtable bus_led_vtable_emits[];
extern const sd_bus_vtable bus_led_vtable_quiet[];

/* The object path of an LED: its name escaped by sd_bus_path_encode(). */
int bus_led_path(const struct led *l, char **ret);

/* bus-transient.c: Manager.CreateLED, Manager.RemoveLED, LED.Transient. */
int bus_method_create_led(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_can_manage(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_remove_led(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_property_get_transient(sd_bus *bus, const char *path, const char *iface,
			       const char *property, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error);
/* An a(ss) argument as a (key, value, key, value, ..., NULL) strv: -E2BIG beyond max pairs
 * or max_bytes of keys and values. */
int bus_read_pairs(sd_bus_message *msg, size_t max, size_t max_bytes, char ***ret);
