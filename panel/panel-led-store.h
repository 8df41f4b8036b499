/* SPDX-License-Identifier: MIT */
/* The LED objects of one io.uledsd1 owner, mirrored into a GListStore of PanelLed. */
#pragma once

#include <gio/gio.h>

#include "panel-led.h"

G_BEGIN_DECLS

#define PANEL_TYPE_LED_STORE (panel_led_store_get_type())
G_DECLARE_FINAL_TYPE(PanelLedStore, panel_led_store, PANEL, LED_STORE, GObject)

/* Told once per followed owner how its GetManagedObjects went: ERROR_MESSAGE is NULL when
 * the LEDs are listed, else a sentence for people. Never called for a stale owner. */
typedef void (*panel_led_store_listed_fn)(const char *error_message, gpointer user_data);

/* Calls are made with CANCELLABLE; LISTED hears the news. */
PanelLedStore *panel_led_store_new(GCancellable *cancellable, panel_led_store_listed_fn listed,
				   gpointer user_data);

/* PanelLed items, in the order they came. */
GListModel *panel_led_store_get_model(PanelLedStore *self);

/* Follows the LED signals of io.uledsd1 on CONNECTION, until unsubscribed. Subscribe before
 * the name's owner is known, so that no signal after GetManagedObjects is lost. */
void panel_led_store_subscribe(PanelLedStore *self, GDBusConnection *connection);
/* Drops the connection: replies still on their way are ignored. */
void panel_led_store_unsubscribe(PanelLedStore *self);

/* OWNER (a unique name) now owns io.uledsd1: lists its LEDs and reconciles the store with
 * them (kept, updated, added or dropped). */
void panel_led_store_follow(PanelLedStore *self, const char *owner);
/* The owner went away: the LEDs stay, marked offline. */
void panel_led_store_unfollow(PanelLedStore *self);

/* Reads every property of the LED at PATH again (GetAll). */
void panel_led_store_refresh(PanelLedStore *self, const char *path);

G_END_DECLS
