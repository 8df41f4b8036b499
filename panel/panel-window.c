// SPDX-License-Identifier: MIT
/* PanelWindow: the client's LED store, filtered by a name glob and sorted by name, drives a
 * GtkFlowBox of PanelTiles; a banner and an empty page tell what state uledsd is in. */
#include <stdio.h>

#include "panel-window.h"

#define ERROR_SHOWN_S 6

struct _PanelWindow {
	GtkApplicationWindow parent_instance;
	PanelClient *client;
	struct panel_view view;
	enum panel_mode mode; /* view.mode */
	char *glob; /* NULL: every LED */
	GPatternSpec *pattern;

	GtkFilterListModel *filtered;
	GtkSortListModel *sorted;
	GtkCustomFilter *filter;

	GtkRevealer *banner_revealer;
	GtkLabel *banner_label;
	GtkStack *stack;
	GtkFlowBox *flowbox;
	GtkLabel *empty_title;
	GtkLabel *empty_text;
	GtkLabel *subtitle; /* window mode only */
	char *error;
	guint error_source;

	gboolean debug_geometry;
	char *last_geometry;
};

G_DEFINE_FINAL_TYPE(PanelWindow, panel_window, GTK_TYPE_APPLICATION_WINDOW)

static gboolean match_led(gpointer item, gpointer user_data)
{
	PanelWindow *self = user_data;

	return !self->pattern ||
	       g_pattern_spec_match_string(self->pattern, panel_led_get_name(PANEL_LED(item)));
}

/* A text without glob characters matches anywhere in the name, as a search field should. */
static void set_glob(PanelWindow *self, const char *text)
{
	g_clear_pointer(&self->glob, g_free);
	g_clear_pointer(&self->pattern, g_pattern_spec_free);
	if (text && *text) {
		self->glob = strpbrk(text, "*?") ? g_strdup(text) : g_strdup_printf("*%s*", text);
		self->pattern = g_pattern_spec_new(self->glob);
	}
	gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void update_view(PanelWindow *self)
{
	guint shown = g_list_model_get_n_items(G_LIST_MODEL(self->sorted));
	guint all = g_list_model_get_n_items(panel_client_get_leds(self->client));
	const char *status = panel_client_get_status_text(self->client);
	const char *banner = self->error ? self->error : status;

	/* A status over greyed LEDs goes in the banner; with nothing to grey, the page says it. */
	gtk_label_set_text(self->banner_label, banner ? banner : "");
	gtk_revealer_set_reveal_child(self->banner_revealer, banner && (all > 0 || self->error));
	if (self->error)
		gtk_widget_add_css_class(GTK_WIDGET(self->banner_label), "error");
	else
		gtk_widget_remove_css_class(GTK_WIDGET(self->banner_label), "error");

	if (shown > 0) {
		gtk_stack_set_visible_child_name(self->stack, "leds");
	} else if (all == 0 && status) {
		gtk_label_set_text(self->empty_title, "Waiting for uledsd");
		gtk_label_set_text(self->empty_text, status);
		gtk_stack_set_visible_child_name(self->stack, "empty");
	} else if (all == 0) {
		gtk_label_set_text(self->empty_title, "No LEDs");
		gtk_label_set_text(self->empty_text,
				   "uledsd manages no LEDs yet: add one to a file "
				   "in /etc/uledsd.d and reload uledsd.");
		gtk_stack_set_visible_child_name(self->stack, "empty");
	} else {
		g_autofree char *t = g_strdup_printf("No LED name matches “%s”.", self->glob);
		gtk_label_set_text(self->empty_title, "No match");
		gtk_label_set_text(self->empty_text, t);
		gtk_stack_set_visible_child_name(self->stack, "empty");
	}

	/* One row in compact mode, however many LEDs come and go. */
	if (self->mode == PANEL_MODE_COMPACT) {
		gtk_flow_box_set_min_children_per_line(self->flowbox, MAX(shown, 1));
		gtk_flow_box_set_max_children_per_line(self->flowbox, MAX(shown, 1));
	}

	if (self->subtitle) {
		g_autofree char *s = NULL;
		const char *version = panel_client_get_version(self->client);
		if (status)
			s = g_strdup(panel_client_get_state(self->client) == PANEL_CLIENT_CONNECTING
					 ? "connecting…"
					 : "uledsd is not running");
		else
			s = g_strdup_printf("%u LED%s · uledsd %s", all, all == 1 ? "" : "s",
					    version ? version : "");
		gtk_label_set_text(self->subtitle, s);
	}
}

static gboolean error_expired(gpointer user_data)
{
	PanelWindow *self = user_data;

	self->error_source = 0;
	g_clear_pointer(&self->error, g_free);
	update_view(self);
	return G_SOURCE_REMOVE;
}

static void client_error(PanelClient *client, const char *message, PanelWindow *self)
{
	g_free(self->error);
	self->error = g_strdup(message);
	g_clear_handle_id(&self->error_source, g_source_remove);
	self->error_source = g_timeout_add_seconds(ERROR_SHOWN_S, error_expired, self);
	update_view(self);
}

static GtkWidget *create_tile(gpointer item, gpointer user_data)
{
	PanelWindow *self = user_data;

	return panel_tile_new(self->client, PANEL_LED(item), &self->view);
}

/* --- --debug-geometry ---------------------------------------------------------------------- */

static const char *state_name(enum panel_client_state s)
{
	switch (s) {
	case PANEL_CLIENT_ONLINE:
		return "online";
	case PANEL_CLIENT_OFFLINE:
		return "offline";
	case PANEL_CLIENT_NO_BUS:
		return "no-bus";
	default:
		return "connecting";
	}
}

/* Surface coordinates (what xwd -id and xdotool --window use) of every lamp shown, and the
 * state each was drawn in, printed after a frame that differs from the last one printed. */
static void after_paint(GdkFrameClock *clock, PanelWindow *self)
{
	g_autoptr(GString) out = g_string_new(NULL);
	double tx, ty;
	guint n = 0;

	gtk_native_get_surface_transform(GTK_NATIVE(self), &tx, &ty);
	for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->flowbox)); child;
	     child = gtk_widget_get_next_sibling(child)) {
		GtkWidget *tile = gtk_flow_box_child_get_child(GTK_FLOW_BOX_CHILD(child));
		graphene_rect_t r;
		PanelLed *led;
		guint on_ms, off_ms;
		const char *const *triggers;
		struct led_rgb mixed;
		char mixed_hex[8];

		if (!PANEL_IS_TILE(tile) || !gtk_widget_get_mapped(tile) ||
		    !gtk_widget_compute_bounds(GTK_WIDGET(panel_tile_get_lamp(PANEL_TILE(tile))),
					       GTK_WIDGET(self), &r))
			continue;
		led = panel_tile_get_led(PANEL_TILE(tile));
		panel_led_get_blink(led, &on_ms, &off_ms);
		triggers = panel_led_get_available_triggers(led);
		/* A multicolour LED's mixed light as RRGGBB, "-" for a plain LED. */
		if (panel_led_get_mixed_rgb(led, &mixed))
			g_snprintf(mixed_hex, sizeof(mixed_hex), "%02x%02x%02x",
				   (unsigned)(mixed.r * 255 + 0.5), (unsigned)(mixed.g * 255 + 0.5),
				   (unsigned)(mixed.b * 255 + 0.5));
		else
			g_strlcpy(mixed_hex, "-", sizeof(mixed_hex));
		g_string_append_printf(
		    out,
		    "lamp x=%d y=%d w=%d h=%d brightness=%u max=%u "
		    "blink=%u/%u lit=%d triggers=%u trigger=%s online=%d ok=%d mixed=%s diag=%d "
		    "name=%s\n",
		    (int)(r.origin.x + tx), (int)(r.origin.y + ty), (int)r.size.width,
		    (int)r.size.height, panel_led_get_brightness(led),
		    panel_led_get_max_brightness(led), on_ms, off_ms,
		    panel_lamp_get_lit(panel_tile_get_lamp(PANEL_TILE(tile))),
		    triggers ? g_strv_length((char **)triggers) : 0,
		    panel_led_get_trigger(led) ? panel_led_get_trigger(led) : "",
		    panel_led_get_online(led), panel_led_get_backends_ok(led), mixed_hex,
		    panel_tile_get_diagnostics_shown(PANEL_TILE(tile)), panel_led_get_name(led));
		n++;
	}
	g_autofree char *head =
	    g_strdup_printf("geometry w=%d h=%d state=%s lamps=%u manage=%d ro=%d\n",
			    gtk_widget_get_width(GTK_WIDGET(self)) + (int)(2 * tx),
			    gtk_widget_get_height(GTK_WIDGET(self)) + (int)(2 * ty),
			    state_name(panel_client_get_state(self->client)), n,
			    panel_client_get_can_manage(self->client), self->view.read_only);
	g_string_prepend(out, head);
	if (g_strcmp0(out->str, self->last_geometry) == 0)
		return;
	g_free(self->last_geometry);
	self->last_geometry = g_strdup(out->str);
	printf("%send\n", out->str);
	fflush(stdout);
}

static void window_realized(GtkWidget *widget, PanelWindow *self)
{
	g_signal_connect_object(gtk_widget_get_frame_clock(widget), "after-paint",
				G_CALLBACK(after_paint), self, 0);
}

/* --- set-up -------------------------------------------------------------------------------- */

static void search_changed(GtkSearchEntry *entry, PanelWindow *self)
{
	set_glob(self, gtk_editable_get_text(GTK_EDITABLE(entry)));
}

static void build_header(PanelWindow *self, const char *filter)
{
	GtkWidget *header = gtk_header_bar_new();
	GtkWidget *titles = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *title = gtk_label_new("LEDs");
	GtkWidget *search = gtk_search_entry_new();

	gtk_widget_add_css_class(title, "title");
	self->subtitle = GTK_LABEL(gtk_label_new(NULL));
	gtk_widget_add_css_class(GTK_WIDGET(self->subtitle), "subtitle");
	gtk_widget_set_valign(titles, GTK_ALIGN_CENTER);
	gtk_box_append(GTK_BOX(titles), title);
	gtk_box_append(GTK_BOX(titles), GTK_WIDGET(self->subtitle));
	gtk_header_bar_set_title_widget(GTK_HEADER_BAR(header), titles);

	g_object_set(search, "placeholder-text", "Filter: name or glob", NULL);
	gtk_widget_set_tooltip_text(search, "Show the LEDs whose name matches, e.g. *:green:* ");
	if (filter)
		gtk_editable_set_text(GTK_EDITABLE(search), filter);
	g_signal_connect(search, "search-changed", G_CALLBACK(search_changed), self);
	gtk_header_bar_pack_end(GTK_HEADER_BAR(header), search);
	gtk_window_set_titlebar(GTK_WINDOW(self), header);
}

static void panel_window_dispose(GObject *object)
{
	PanelWindow *self = PANEL_WINDOW(object);

	g_clear_handle_id(&self->error_source, g_source_remove);
	gtk_widget_dispose_template(GTK_WIDGET(self), PANEL_TYPE_WINDOW);
	g_clear_object(&self->sorted);
	g_clear_object(&self->client);
	G_OBJECT_CLASS(panel_window_parent_class)->dispose(object);
}

static void panel_window_finalize(GObject *object)
{
	PanelWindow *self = PANEL_WINDOW(object);

	g_free(self->glob);
	g_clear_pointer(&self->pattern, g_pattern_spec_free);
	g_free(self->error);
	g_free(self->last_geometry);
	G_OBJECT_CLASS(panel_window_parent_class)->finalize(object);
}

static void panel_window_class_init(PanelWindowClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = panel_window_dispose;
	G_OBJECT_CLASS(klass)->finalize = panel_window_finalize;
	gtk_widget_class_set_template_from_resource(widget_class,
						    "/io/uledsd/Panel/panel-window.ui");
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, banner_revealer);
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, banner_label);
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, stack);
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, flowbox);
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, empty_title);
	gtk_widget_class_bind_template_child(widget_class, PanelWindow, empty_text);
}

static void panel_window_init(PanelWindow *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

/* store → filter (glob) → sort (name) → flow box. The models own filter and sorter. */
static void bind_leds(PanelWindow *self, const char *filter)
{
	GListModel *leds = panel_client_get_leds(self->client);
	GtkStringSorter *sorter;

	self->filter = gtk_custom_filter_new(match_led, self, NULL);
	self->filtered = gtk_filter_list_model_new(g_object_ref(leds), GTK_FILTER(self->filter));
	sorter = gtk_string_sorter_new(gtk_property_expression_new(PANEL_TYPE_LED, NULL, "name"));
	self->sorted = gtk_sort_list_model_new(G_LIST_MODEL(self->filtered), GTK_SORTER(sorter));
	gtk_flow_box_bind_model(self->flowbox, G_LIST_MODEL(self->sorted), create_tile, self, NULL);
	set_glob(self, filter);
}

static void follow_client(PanelWindow *self)
{
	g_signal_connect_object(self->sorted, "items-changed", G_CALLBACK(update_view), self,
				G_CONNECT_SWAPPED);
	g_signal_connect_object(panel_client_get_leds(self->client), "items-changed",
				G_CALLBACK(update_view), self, G_CONNECT_SWAPPED);
	g_signal_connect_object(self->client, "notify::state", G_CALLBACK(update_view), self,
				G_CONNECT_SWAPPED);
	g_signal_connect_object(self->client, "notify::version", G_CALLBACK(update_view), self,
				G_CONNECT_SWAPPED);
	g_signal_connect_object(self->client, "error", G_CALLBACK(client_error), self, 0);
}

static void set_up_compact(PanelWindow *self)
{
	gtk_widget_add_css_class(GTK_WIDGET(self), "compact");
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(gtk_widget_get_ancestor(
					   GTK_WIDGET(self->flowbox), GTK_TYPE_SCROLLED_WINDOW)),
				       GTK_POLICY_NEVER, GTK_POLICY_NEVER);
	gtk_flow_box_set_column_spacing(self->flowbox, 4);
	gtk_flow_box_set_homogeneous(self->flowbox, FALSE);
	gtk_window_set_resizable(GTK_WINDOW(self), FALSE);
}

static void set_up_kiosk(PanelWindow *self)
{
	g_autoptr(GdkMonitor) monitor = NULL;

	gtk_widget_add_css_class(GTK_WIDGET(self), "kiosk");
	gtk_window_set_decorated(GTK_WINDOW(self), FALSE);
	/* Fullscreen is a request to a window manager, and a board's bare X server
	 * has none: the size of the first monitor makes it full screen there too. */
	monitor = g_list_model_get_item(
	    gdk_display_get_monitors(gtk_widget_get_display(GTK_WIDGET(self))), 0);
	if (monitor) {
		GdkRectangle area;
		gdk_monitor_get_geometry(monitor, &area);
		gtk_window_set_default_size(GTK_WINDOW(self), area.width, area.height);
	}
	gtk_window_fullscreen(GTK_WINDOW(self));
}

PanelWindow *panel_window_new(GtkApplication *app, PanelClient *client,
			      const struct panel_view *view, const char *filter,
			      gboolean debug_geometry)
{
	enum panel_mode mode = view->mode;
	PanelWindow *self = g_object_new(PANEL_TYPE_WINDOW, "application", app, NULL);

	self->client = g_object_ref(client);
	self->view = *view;
	self->mode = mode;
	self->debug_geometry = debug_geometry;
	if (view->columns > 0)
		gtk_flow_box_set_max_children_per_line(self->flowbox, (guint)view->columns);
	bind_leds(self, filter);
	follow_client(self);
	if (debug_geometry)
		g_signal_connect(self, "realize", G_CALLBACK(window_realized), self);

	switch (mode) {
	case PANEL_MODE_WINDOW:
		build_header(self, filter);
		/* Two rows of tiles with a diagnostics line, without scrolling. */
		gtk_window_set_default_size(GTK_WINDOW(self), 860, 620);
		break;
	case PANEL_MODE_COMPACT:
		set_up_compact(self);
		break;
	case PANEL_MODE_KIOSK:
		set_up_kiosk(self);
		break;
	}
	update_view(self);
	return self;
}
