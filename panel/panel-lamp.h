/* SPDX-License-Identifier: MIT */
/* A round lamp drawn with a soft glow: the picture of one LED. */
#pragma once

#include <gtk/gtk.h>

#include "led-color.h"

G_BEGIN_DECLS

#define PANEL_TYPE_LAMP (panel_lamp_get_type())
G_DECLARE_FINAL_TYPE(PanelLamp, panel_lamp, PANEL, LAMP, GtkWidget)

GtkWidget *panel_lamp_new(void);
/* The side of the square the lamp and its glow take, in pixels. */
void panel_lamp_set_size(PanelLamp *self, int size);
void panel_lamp_set_color(PanelLamp *self, enum led_color color);
/* A mixed colour (multicolour LEDs). */
void panel_lamp_set_rgb(PanelLamp *self, struct led_rgb rgb);
/* 0 (off) .. 1 (full): brightness / max_brightness. */
void panel_lamp_set_level(PanelLamp *self, double level);
/* Blinks the lamp by itself, ON_MS lit and OFF_MS dark at its level, with its own timer (no
 * D-Bus traffic per blink); 0, 0 stops. */
void panel_lamp_set_blink(PanelLamp *self, guint on_ms, guint off_ms);
/* FALSE while a blink is in its dark half. */
gboolean panel_lamp_get_lit(PanelLamp *self);
/* An offline lamp is drawn grey and unlit: its state is not known. */
void panel_lamp_set_online(PanelLamp *self, gboolean online);
/* A small amber mark: a backend of this LED is not working. */
void panel_lamp_set_warning(PanelLamp *self, gboolean warning);

G_END_DECLS
