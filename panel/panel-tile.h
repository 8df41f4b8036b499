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

/* How the panel shows its LEDs: the command line's choices (uledsd-panel(1)). */
struct panel_view {
	enum panel_mode mode;
	gboolean read_only; /* lamps and triggers shown, nothing changed: a kiosk's display */
	int lamp_size;	    /* pixels; 0: the mode's own (100, 34, 168) */
	int columns;	    /* lamps a row at most; 0: as many as fit */
};

#define PANEL_TYPE_TILE (panel_tile_get_type())
G_DECLARE_FINAL_TYPE(PanelTile, panel_tile, PANEL, TILE, GtkWidget)

GtkWidget *panel_tile_new(PanelClient *client, PanelLed *led, const struct panel_view *view);
/* Whether the tile shows its LED's diagnostics (a failing backend's state) under the name. */
gboolean panel_tile_get_diagnostics_shown(PanelTile *self);
PanelLed *panel_tile_get_led(PanelTile *self);
PanelLamp *panel_tile_get_lamp(PanelTile *self);

G_END_DECLS
