/* SPDX-License-Identifier: MIT */
/* The members of the D-Bus API about transient LEDs, for bus-api.c's vtables: Manager.CreateLED,
 * Manager.RemoveLED, Manager.CanManage and LED.Transient. */
#pragma once

#include <systemd/sd-bus.h>

int bus_method_create_led(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_can_manage(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_remove_led(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_property_get_transient(sd_bus *bus, const char *path, const char *iface,
			       const char *property, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error);
