/* SPDX-License-Identifier: MIT */
/* The panel's window: the LEDs as a sorted, filtered grid (or one row, or fullscreen). */
#pragma once

#include <gtk/gtk.h>

#include "panel-client.h"
#include "panel-tile.h"

G_BEGIN_DECLS

#define PANEL_TYPE_WINDOW (panel_window_get_type())
G_DECLARE_FINAL_TYPE(PanelWindow, panel_window, PANEL, WINDOW, GtkApplicationWindow)

/* VIEW: mode, read-only, lamp size, columns. FILTER: a glob on LED names (NULL: all).
 * DEBUG_GEOMETRY: print where each lamp is drawn on stdout after every frame that changed it
 * (for tests). */
PanelWindow *panel_window_new(GtkApplication *app, PanelClient *client,
			      const struct panel_view *view, const char *filter,
			      gboolean debug_geometry);

G_END_DECLS
