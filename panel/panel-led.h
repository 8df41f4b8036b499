/* SPDX-License-Identifier: MIT */
/* One LED as the panel knows it: a mirror of an io.uledsd1.LED object's properties. */
#pragma once

#include <gio/gio.h>

#include "led-color.h"

G_BEGIN_DECLS

#define PANEL_TYPE_LED (panel_led_get_type())
G_DECLARE_FINAL_TYPE(PanelLed, panel_led, PANEL, LED, GObject)

PanelLed *panel_led_new(const char *object_path);

const char *panel_led_get_object_path(PanelLed *self);
const char *panel_led_get_name(PanelLed *self);
guint panel_led_get_brightness(PanelLed *self);
guint panel_led_get_max_brightness(PanelLed *self);
const char *panel_led_get_trigger(PanelLed *self);
/* The triggers the kernel offers this LED, "none" first; NULL from a uledsd without the
 * AvailableTriggers property. */
const char *const *panel_led_get_available_triggers(PanelLed *self);
/* TRUE while uledsd runs an offloaded blink: the panel animates it (on_ms, off_ms) itself. */
gboolean panel_led_get_blink(PanelLed *self, guint *on_ms, guint *off_ms);
enum led_color panel_led_get_color(PanelLed *self);
/* A multicolour LED (non-empty Color property): its mixed light in *ret, TRUE. */
gboolean panel_led_get_mixed_rgb(PanelLed *self, struct led_rgb *ret);
/* FALSE when one of its backends does not work; the text then says which and why. */
gboolean panel_led_get_backends_ok(PanelLed *self);
const char *panel_led_get_backends_text(PanelLed *self);
/* FALSE while uledsd is not on the bus: what is shown is the last state known. */
gboolean panel_led_get_online(PanelLed *self);

/* Takes the properties of an a{sv} (GetManagedObjects, GetAll, PropertiesChanged). */
void panel_led_update(PanelLed *self, GVariant *properties);
void panel_led_set_online(PanelLed *self, gboolean online);

G_END_DECLS
