/* SPDX-License-Identifier: MIT */
/* What the D-Bus files (bus.c, bus-api.c, bus-transient.c) share: an LED's object path and
 * the readers of an LED name and an a(ss) argument. Below all of them: it calls none of them
 * (only the manager, to look a name up). */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

struct led;
struct manager;

/* The object path of an LED: its name escaped by sd_bus_path_encode(). */
int bus_led_path(const struct led *l, char **ret);

/* A method's first argument, an LED's name (s), as the LED: else UnknownLED, naming the method
 * that lists them. */
int bus_read_led(sd_bus_message *msg, struct manager *m, struct led **ret, sd_bus_error *error);
/* The UnknownLED error for name. */
int bus_error_unknown_led(sd_bus_error *error, const char *name);

/* An a(ss) argument as a (key, value, key, value, ..., NULL) strv: -E2BIG beyond max pairs
 * or max_bytes of keys and values. */
int bus_read_pairs(sd_bus_message *msg, size_t max, size_t max_bytes, char ***ret);
