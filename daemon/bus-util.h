/* SPDX-License-Identifier: MIT */
/* What the D-Bus files (bus.c, bus-api.c, bus-transient.c) share: an LED's object path and
 * the reader of an a(ss) argument. Below all of them: it calls none. */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

struct led;

/* The object path of an LED: its name escaped by sd_bus_path_encode(). */
int bus_led_path(const struct led *l, char **ret);

/* An a(ss) argument as a (key, value, key, value, ..., NULL) strv: -E2BIG beyond max pairs
 * or max_bytes of keys and values. */
int bus_read_pairs(sd_bus_message *msg, size_t max, size_t max_bytes, char ***ret);
