// SPDX-License-Identifier: MIT
/* PanelTile: binds one PanelLed to its lamp, labels and controls, and turns clicks, the
 * slider and the trigger menu into calls on the PanelClient. The tile never changes what it
 * shows on its own: it waits for the LED's new state to come back from uledsd. */
#include "panel-tile.h"

/* For a uledsd without AvailableTriggers (the panel reads no sysfs): the common ones;
 * uledsd's answer tells when one is missing. */
static const char *const common_triggers[] = {
    "none", "default-on", "heartbeat", "timer", "oneshot", "pattern", "transient", NULL,
};

struct _PanelTile {
	GtkWidget parent_instance;
	PanelClient *client;
	PanelLed *led;
	enum panel_mode mode;
	gboolean read_only;

	PanelLamp *lamp;
	GtkLabel *name_label;
	GtkLabel *diag_label;
	GtkLabel *trigger_label;
	GtkMenuButton *trigger_button;
	GtkPopover *trigger_popover;
	GtkBox *trigger_box;
	GtkScale *scale;
	GtkAdjustment *adjustment;
	gulong value_changed_id;
};

G_DEFINE_FINAL_TYPE(PanelTile, panel_tile, GTK_TYPE_WIDGET)

static gboolean may_change(PanelTile *self)
{
	return !self->read_only && panel_client_get_can_manage(self->client) &&
	       panel_led_get_online(self->led);
}

/* Why the controls are disabled, or NULL when they are not. */
static const char *why_not(PanelTile *self)
{
	if (self->read_only)
		return "This panel is read-only (--read-only).";
	if (!panel_led_get_online(self->led))
		return "uledsd is not running.";
	if (!panel_client_get_can_manage(self->client))
		return panel_client_get_manage_reason(self->client);
	return NULL;
}

static void update_tooltip(PanelTile *self)
{
	PanelLed *led = self->led;
	g_autoptr(GString) tip = g_string_new(NULL);
	const char *reason = why_not(self);
	guint on_ms, off_ms;

	g_string_append_printf(tip, "<b>%s</b>\n", panel_led_get_name(led));
	g_string_append_printf(tip, "Brightness %u of %u, trigger %s",
			       panel_led_get_brightness(led), panel_led_get_max_brightness(led),
			       panel_led_get_trigger(led));
	if (panel_led_get_blink(led, &on_ms, &off_ms))
		g_string_append_printf(tip, ", blinking %u ms on, %u ms off", on_ms, off_ms);
	if (*panel_led_get_backends_text(led)) {
		g_autofree char *b = g_markup_escape_text(panel_led_get_backends_text(led), -1);
		g_string_append_printf(tip, "\n%s", b);
	}
	if (reason) {
		g_autofree char *r = g_markup_escape_text(reason, -1);
		g_string_append_printf(tip, "\n<i>%s</i>", r);
	} else {
		g_string_append(tip, "\nClick the lamp to switch it on or off.");
	}
	gtk_widget_set_tooltip_markup(GTK_WIDGET(self->lamp), tip->str);
	if (self->mode == PANEL_MODE_COMPACT) /* the lamp is all there is */
		gtk_widget_set_tooltip_markup(GTK_WIDGET(self), tip->str);
}

/* The failing backends' lines of the LED ("✗ gpio: waiting for a chip..."), under the name
 * where a touch screen shows them; hidden while every backend works, and in the compact row. */
static void update_diagnostics(PanelTile *self)
{
	g_auto(GStrv) lines = g_strsplit(panel_led_get_backends_text(self->led), "\n", -1);
	g_autoptr(GString) failing = g_string_new(NULL);

	for (char **l = lines; *l; l++)
		if (g_str_has_prefix(*l, "✗"))
			g_string_append_printf(failing, "%s%s", failing->len ? "\n" : "", *l);
	gtk_label_set_text(self->diag_label, failing->str);
	gtk_widget_set_visible(GTK_WIDGET(self->diag_label),
			       failing->len > 0 && self->mode != PANEL_MODE_COMPACT);
}

static void update_controls(PanelTile *self)
{
	gboolean can = may_change(self);
	const char *reason = why_not(self);

	gtk_widget_set_sensitive(GTK_WIDGET(self->scale), can);
	gtk_widget_set_sensitive(GTK_WIDGET(self->trigger_button), can);
	/* An insensitive widget shows no tooltip in GTK 4, so the tile carries it too. */
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->scale), reason ? reason : "Brightness");
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->trigger_button),
				    reason ? reason : "Choose the kernel trigger");
	if (self->mode != PANEL_MODE_COMPACT)
		gtk_widget_set_tooltip_text(GTK_WIDGET(self), reason);
	if (panel_led_get_online(self->led))
		gtk_widget_remove_css_class(GTK_WIDGET(self), "offline");
	else
		gtk_widget_add_css_class(GTK_WIDGET(self), "offline");
	update_tooltip(self);
}

static void update_state(PanelTile *self)
{
	PanelLed *led = self->led;
	guint max = panel_led_get_max_brightness(led), b = panel_led_get_brightness(led);
	guint on_ms, off_ms;

	struct led_rgb mixed;

	if (panel_led_get_mixed_rgb(led, &mixed))
		panel_lamp_set_rgb(self->lamp, mixed);
	else
		panel_lamp_set_color(self->lamp, panel_led_get_color(led));
	panel_lamp_set_level(self->lamp, max ? (double)MIN(b, max) / max : 0);
	panel_lamp_set_online(self->lamp, panel_led_get_online(led));
	panel_led_get_blink(led, &on_ms, &off_ms);
	panel_lamp_set_blink(self->lamp, on_ms, off_ms);
	panel_lamp_set_warning(self->lamp, !panel_led_get_backends_ok(led));

	gtk_label_set_text(self->name_label, self->mode == PANEL_MODE_COMPACT
						 ? led_name_function(panel_led_get_name(led))
						 : panel_led_get_name(led));
	gtk_menu_button_set_label(self->trigger_button, panel_led_get_trigger(led));
	gtk_label_set_text(self->trigger_label, panel_led_get_trigger(led));
	update_diagnostics(self);

	/* The slider follows uledsd; only the user's own moves become calls. */
	g_signal_handler_block(self->adjustment, self->value_changed_id);
	gtk_adjustment_configure(self->adjustment, b, 0, max, 1, MAX(max / 16, 1), 0);
	g_signal_handler_unblock(self->adjustment, self->value_changed_id);
	/* On/off LEDs have the click; a slider with two stops only adds noise. */
	gtk_widget_set_visible(GTK_WIDGET(self->scale),
			       self->mode == PANEL_MODE_WINDOW && max > 1 && !self->read_only);
	update_controls(self);
}

static void lamp_clicked(GtkGestureClick *gesture, int n_press, double x, double y,
			 gpointer user_data)
{
	PanelTile *self = user_data;
	guint max = panel_led_get_max_brightness(self->led);

	if (!may_change(self))
		return;
	panel_client_set_brightness(self->client, self->led,
				    panel_led_get_brightness(self->led) ? 0 : max);
}

static void scale_changed(GtkAdjustment *adjustment, gpointer user_data)
{
	PanelTile *self = user_data;
	guint v = (guint)(gtk_adjustment_get_value(adjustment) + 0.5);

	if (v != panel_led_get_brightness(self->led))
		panel_client_set_brightness(self->client, self->led, v);
}

static void trigger_chosen(GtkButton *button, gpointer user_data)
{
	PanelTile *self = user_data;

	gtk_popover_popdown(self->trigger_popover);
	panel_client_set_trigger(self->client, self->led,
				 g_object_get_data(G_OBJECT(button), "trigger"));
}

static void add_trigger_item(PanelTile *self, const char *trigger, gboolean current)
{
	GtkWidget *button = gtk_button_new();
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	GtkWidget *check = gtk_label_new(current ? "✓" : "");

	gtk_label_set_width_chars(GTK_LABEL(check), 2);
	gtk_box_append(GTK_BOX(box), check);
	gtk_box_append(GTK_BOX(box), gtk_label_new(trigger));
	gtk_button_set_child(GTK_BUTTON(button), box);
	gtk_widget_add_css_class(button, "flat");
	g_object_set_data_full(G_OBJECT(button), "trigger", g_strdup(trigger), g_free);
	g_signal_connect(button, "clicked", G_CALLBACK(trigger_chosen), self);
	gtk_box_append(self->trigger_box, button);
}

/* The kernel's list as uledsd last read it, the current trigger checked. */
static void fill_trigger_menu(PanelTile *self)
{
	const char *current = panel_led_get_trigger(self->led);
	const char *const *triggers = panel_led_get_available_triggers(self->led);
	GtkWidget *child;

	if (!triggers)
		triggers = common_triggers;
	while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->trigger_box))))
		gtk_box_remove(self->trigger_box, child);
	for (const char *const *t = triggers; *t; t++)
		add_trigger_item(self, *t, g_str_equal(*t, current));
	if (!g_strv_contains(triggers, current))
		add_trigger_item(self, current, TRUE);
}

/* AvailableTriggers never signals: the menu shows what it has at once and asks
 * uledsd again (a trigger module loaded since appears); the answer refills it. */
static void trigger_menu_show(GtkPopover *popover, gpointer user_data)
{
	PanelTile *self = user_data;

	fill_trigger_menu(self);
	panel_client_refresh_led(self->client, self->led);
}

static void triggers_changed(PanelTile *self)
{
	if (gtk_widget_get_visible(GTK_WIDGET(self->trigger_popover)))
		fill_trigger_menu(self);
}

static void panel_tile_dispose(GObject *object)
{
	PanelTile *self = PANEL_TILE(object);

	gtk_widget_dispose_template(GTK_WIDGET(self), PANEL_TYPE_TILE);
	g_clear_object(&self->led);
	g_clear_object(&self->client);
	G_OBJECT_CLASS(panel_tile_parent_class)->dispose(object);
}

static void panel_tile_class_init(PanelTileClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = panel_tile_dispose;
	g_type_ensure(PANEL_TYPE_LAMP);
	gtk_widget_class_set_template_from_resource(widget_class, "/io/uledsd/Panel/panel-tile.ui");
	gtk_widget_class_bind_template_child(widget_class, PanelTile, lamp);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, name_label);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, diag_label);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, trigger_label);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, trigger_button);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, trigger_popover);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, trigger_box);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, scale);
	gtk_widget_class_bind_template_child(widget_class, PanelTile, adjustment);
	gtk_widget_class_set_css_name(widget_class, "tile");
}

static void panel_tile_init(PanelTile *self)
{
	GtkGesture *click;

	gtk_widget_init_template(GTK_WIDGET(self));
	click = gtk_gesture_click_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
	g_signal_connect(click, "released", G_CALLBACK(lamp_clicked), self);
	gtk_widget_add_controller(GTK_WIDGET(self->lamp), GTK_EVENT_CONTROLLER(click));
	self->value_changed_id =
	    g_signal_connect(self->adjustment, "value-changed", G_CALLBACK(scale_changed), self);
	g_signal_connect(self->trigger_popover, "show", G_CALLBACK(trigger_menu_show), self);
}

GtkWidget *panel_tile_new(PanelClient *client, PanelLed *led, const struct panel_view *view)
{
	enum panel_mode mode = view->mode;
	PanelTile *self = g_object_new(PANEL_TYPE_TILE, NULL);
	static const int lamp_size[] = {
	    [PANEL_MODE_WINDOW] = 100, [PANEL_MODE_COMPACT] = 34, [PANEL_MODE_KIOSK] = 168};
	static const char *const mode_class[] = {[PANEL_MODE_WINDOW] = "window",
						 [PANEL_MODE_COMPACT] = "compact",
						 [PANEL_MODE_KIOSK] = "kiosk"};

	self->client = g_object_ref(client);
	self->led = g_object_ref(led);
	self->mode = mode;
	self->read_only = view->read_only;
	panel_lamp_set_size(self->lamp, view->lamp_size > 0 ? view->lamp_size : lamp_size[mode]);
	gtk_widget_add_css_class(GTK_WIDGET(self), mode_class[mode]);
	/* The compact row shows lamps and short names only. */
	gtk_widget_set_visible(GTK_WIDGET(self->trigger_button),
			       mode != PANEL_MODE_COMPACT && !view->read_only);
	gtk_widget_set_visible(GTK_WIDGET(self->trigger_label),
			       mode != PANEL_MODE_COMPACT && view->read_only);
	if (mode == PANEL_MODE_COMPACT) { /* short names, shown whole */
		gtk_label_set_width_chars(self->name_label, 0);
		gtk_label_set_ellipsize(self->name_label, PANGO_ELLIPSIZE_NONE);
		gtk_label_set_wrap(self->name_label, FALSE);
	}

	/* The tile lives shorter than LED and client: these die with it. */
	g_signal_connect_object(led, "notify", G_CALLBACK(update_state), self, G_CONNECT_SWAPPED);
	g_signal_connect_object(led, "notify::available-triggers", G_CALLBACK(triggers_changed),
				self, G_CONNECT_SWAPPED);
	g_signal_connect_object(led, "notify::trigger", G_CALLBACK(triggers_changed), self,
				G_CONNECT_SWAPPED);
	g_signal_connect_object(client, "notify::can-manage", G_CALLBACK(update_controls), self,
				G_CONNECT_SWAPPED);
	update_state(self);
	return GTK_WIDGET(self);
}

PanelLed *panel_tile_get_led(PanelTile *self)
{
	return self->led;
}

gboolean panel_tile_get_diagnostics_shown(PanelTile *self)
{
	return gtk_widget_get_visible(GTK_WIDGET(self->diag_label));
}

PanelLamp *panel_tile_get_lamp(PanelTile *self)
{
	return self->lamp;
}
