/* SPDX-License-Identifier: MIT */
/* The panel's side of io.uledsd1: the bus, the name's owner, the LED objects and the calls. */
#pragma once

#include <gio/gio.h>

#include "panel-led.h"

G_BEGIN_DECLS

enum panel_client_state {
	PANEL_CLIENT_CONNECTING, /* no answer yet */
	PANEL_CLIENT_ONLINE,	 /* uledsd owns io.uledsd1, its LEDs are listed */
	PANEL_CLIENT_OFFLINE,	 /* the bus is there, uledsd is not */
	PANEL_CLIENT_NO_BUS,	 /* the bus itself is gone or refused us: retried */
};

#define PANEL_TYPE_CLIENT (panel_client_get_type())
G_DECLARE_FINAL_TYPE(PanelClient, panel_client, PANEL, CLIENT, GObject)

/* ADDRESS (a D-Bus address) wins over BUS_TYPE when given. */
PanelClient *panel_client_new(GBusType bus_type, const char *address);
void panel_client_start(PanelClient *self);

/* PanelLed items, in the order they came; the window sorts and filters. */
GListModel *panel_client_get_leds(PanelClient *self);
enum panel_client_state panel_client_get_state(PanelClient *self);
/* A sentence about the state for people ("uledsd is not running."), NULL when online. */
const char *panel_client_get_status_text(PanelClient *self);
const char *panel_client_get_version(PanelClient *self);
/* Whether our calls that change state would be allowed, and if not, why (for tooltips). */
gboolean panel_client_get_can_manage(PanelClient *self);
const char *panel_client_get_manage_reason(PanelClient *self);

/* Asynchronous; a failure is reported by the "error" signal with a message for people. */
void panel_client_set_brightness(PanelClient *self, PanelLed *led, guint brightness);
void panel_client_set_trigger(PanelClient *self, PanelLed *led, const char *trigger);
/* Reads every property of LED again: for those uledsd does not signal (Trigger,
 * AvailableTriggers), when they are about to be shown. */
void panel_client_refresh_led(PanelClient *self, PanelLed *led);

G_END_DECLS
