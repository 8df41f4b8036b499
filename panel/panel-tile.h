/* SPDX-License-Identifier: MIT */
/* One LED in the view: its lamp, name and trigger, and the controls that change it. */
#pragma once

#include <gtk/gtk.h>

#include "panel-client.h"
#include "panel-lamp.h"

G_BEGIN_DECLS

enum panel_mode {
	PANEL_MODE_WINDOW,  /* a grid of lamps with controls */
	PANEL_MODE_COMPACT, /* one row of small lamps, for a status bar */
	PANEL_MODE_KIOSK,   /* fullscreen, large lamps, no decorations: a board's display */
};

#define PANEL_TYPE_TILE (panel_tile_get_type())
G_DECLARE_FINAL_TYPE(PanelTile, panel_tile, PANEL, TILE, GtkWidget)

GtkWidget *panel_tile_new(PanelClient *client, PanelLed *led, enum panel_mode mode);
PanelLed *panel_tile_get_led(PanelTile *self);
PanelLamp *panel_tile_get_lamp(PanelTile *self);

G_END_DECLS
