// SPDX-License-Identifier: MIT
/* PanelLamp: draws the LED with cairo (the look must not depend on the GSK renderer: the
 * cairo renderer is what a board without GPU and the tests use). Layers, back to front:
 * halo, bezel, dome, hot core, reflection, warning mark. */
#include <math.h>

#include "panel-lamp.h"

struct _PanelLamp {
	GtkWidget parent_instance;
	int size;
	struct led_rgb rgb;
	double level;
	gboolean online;
	gboolean warning;
	guint blink_on_ms, blink_off_ms;
	gboolean dark; /* in the dark half of a blink */
	guint blink_source;
};

G_DEFINE_FINAL_TYPE(PanelLamp, panel_lamp, GTK_TYPE_WIDGET)

/* The panel's background, so an unlit lamp is a dark tint of its colour, not black. */
static const struct led_rgb base = {0.08, 0.09, 0.11};

static struct led_rgb mix(struct led_rgb a, struct led_rgb b, double t)
{
	return (struct led_rgb){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t,
				a.b + (b.b - a.b) * t};
}

static void add_stop(cairo_pattern_t *p, double offset, struct led_rgb c, double alpha)
{
	cairo_pattern_add_color_stop_rgba(p, offset, c.r, c.g, c.b, alpha);
}

static void draw_warning(cairo_t *cr, double x, double y, double r)
{
	cairo_arc(cr, x, y, r + 1.5, 0, 2 * M_PI);
	cairo_set_source_rgb(cr, base.r, base.g, base.b);
	cairo_fill(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
	cairo_set_source_rgb(cr, 0.96, 0.65, 0.14);
	cairo_fill(cr);
	/* The "!" as two shapes: no font needed, crisp at every size. */
	cairo_set_source_rgb(cr, 0.12, 0.08, 0.02);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	cairo_set_line_width(cr, MAX(r * 0.28, 1.5));
	cairo_move_to(cr, x, y - r * 0.5);
	cairo_line_to(cr, x, y + r * 0.1);
	cairo_stroke(cr);
	cairo_arc(cr, x, y + r * 0.48, MAX(r * 0.15, 0.9), 0, 2 * M_PI);
	cairo_fill(cr);
}

/* Where and in what light one frame of the lamp is drawn: worked out once, read by each layer. */
struct lamp_frame {
	double cx, cy, side;
	double r; /* the dome; the rest of the square is for the halo */
	double glow;
	struct led_rgb lit, body;
};

static struct lamp_frame lamp_frame(PanelLamp *self, double w, double h)
{
	struct lamp_frame f = {.cx = w / 2, .cy = h / 2, .side = MIN(w, h), .lit = self->rgb};
	double level = self->online && !self->dark ? CLAMP(self->level, 0, 1) : 0;

	f.r = f.side * 0.28;
	/* Perceived brightness grows faster than linearly at the low end, as a real LED's. */
	f.glow = pow(level, 0.6);
	if (!self->online) /* unknown state: no colour claim at all */
		f.lit = (struct led_rgb){0.45, 0.47, 0.50};
	f.body = mix(mix(base, f.lit, 0.24), f.lit, f.glow);
	return f;
}

/* Fills the circle of radius R around the lamp's centre with P, and destroys P. */
static void fill_circle(cairo_t *cr, const struct lamp_frame *f, double r, cairo_pattern_t *p)
{
	cairo_set_source(cr, p);
	cairo_arc(cr, f->cx, f->cy, r, 0, 2 * M_PI);
	cairo_fill(cr);
	cairo_pattern_destroy(p);
}

/* Only a lit lamp has a halo. */
static void draw_halo(cairo_t *cr, const struct lamp_frame *f)
{
	cairo_pattern_t *p =
	    cairo_pattern_create_radial(f->cx, f->cy, f->r * 0.8, f->cx, f->cy, f->side / 2);

	add_stop(p, 0, f->lit, 0.70 * f->glow);
	add_stop(p, 0.30, f->lit, 0.30 * f->glow);
	add_stop(p, 0.65, f->lit, 0.08 * f->glow);
	add_stop(p, 1, f->lit, 0);
	fill_circle(cr, f, f->side / 2, p);
}

/* A dark ring with a faint top light, the lamp's socket. */
static void draw_bezel(cairo_t *cr, const struct lamp_frame *f)
{
	cairo_pattern_t *p =
	    cairo_pattern_create_linear(f->cx, f->cy - f->r * 1.15, f->cx, f->cy + f->r * 1.15);

	cairo_pattern_add_color_stop_rgb(p, 0, 0.22, 0.23, 0.26);
	cairo_pattern_add_color_stop_rgb(p, 1, 0.03, 0.03, 0.04);
	fill_circle(cr, f, f->r * 1.13, p);
}

/* Lighter towards the upper left, darker at the rim. */
static void draw_dome(cairo_t *cr, const struct lamp_frame *f)
{
	cairo_pattern_t *p = cairo_pattern_create_radial(f->cx - f->r * 0.25, f->cy - f->r * 0.3,
							 f->r * 0.1, f->cx, f->cy, f->r);

	add_stop(p, 0, mix(f->body, (struct led_rgb){1, 1, 1}, 0.15 + 0.45 * f->glow), 1);
	add_stop(p, 0.55, f->body, 1);
	add_stop(p, 1, mix(f->body, base, 0.45 - 0.2 * f->glow), 1);
	fill_circle(cr, f, f->r, p);
}

/* The hot core of a lit lamp: near white at full brightness. */
static void draw_core(cairo_t *cr, const struct lamp_frame *f)
{
	cairo_pattern_t *p =
	    cairo_pattern_create_radial(f->cx, f->cy, 0, f->cx, f->cy, f->r * 0.75);

	add_stop(p, 0, mix(f->lit, (struct led_rgb){1, 1, 1}, 0.55), 0.85 * f->glow);
	add_stop(p, 1, f->lit, 0);
	fill_circle(cr, f, f->r, p);
}

/* The room's light reflected on the dome. */
static void draw_reflection(cairo_t *cr, const struct lamp_frame *f)
{
	cairo_pattern_t *p;

	cairo_save(cr);
	cairo_translate(cr, f->cx - f->r * 0.22, f->cy - f->r * 0.46);
	cairo_scale(cr, f->r * 0.55, f->r * 0.32);
	p = cairo_pattern_create_linear(0, -1, 0, 1);
	cairo_pattern_add_color_stop_rgba(p, 0, 1, 1, 1, 0.30);
	cairo_pattern_add_color_stop_rgba(p, 1, 1, 1, 1, 0);
	cairo_set_source(cr, p);
	cairo_arc(cr, 0, 0, 1, 0, 2 * M_PI);
	cairo_fill(cr);
	cairo_pattern_destroy(p);
	cairo_restore(cr);
}

static void draw(PanelLamp *self, cairo_t *cr, double w, double h)
{
	struct lamp_frame f = lamp_frame(self, w, h);

	if (f.glow > 0)
		draw_halo(cr, &f);
	draw_bezel(cr, &f);
	draw_dome(cr, &f);
	if (f.glow > 0)
		draw_core(cr, &f);
	draw_reflection(cr, &f);
	if (self->warning)
		draw_warning(cr, f.cx + f.r * 0.82, f.cy - f.r * 0.82, MAX(f.side * 0.09, 5));
}

static void panel_lamp_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	PanelLamp *self = PANEL_LAMP(widget);
	int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
	cairo_t *cr;

	if (w <= 0 || h <= 0)
		return;
	cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
	draw(self, cr, w, h);
	cairo_destroy(cr);
}

static void panel_lamp_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
			       int *minimum, int *natural, int *minimum_baseline,
			       int *natural_baseline)
{
	*minimum = *natural = PANEL_LAMP(widget)->size;
}

static void panel_lamp_dispose(GObject *object)
{
	g_clear_handle_id(&PANEL_LAMP(object)->blink_source, g_source_remove);
	G_OBJECT_CLASS(panel_lamp_parent_class)->dispose(object);
}

static void panel_lamp_class_init(PanelLampClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = panel_lamp_dispose;
	widget_class->snapshot = panel_lamp_snapshot;
	widget_class->measure = panel_lamp_measure;
	gtk_widget_class_set_css_name(widget_class, "lamp");
}

static void panel_lamp_init(PanelLamp *self)
{
	self->size = 96;
	self->rgb = led_color_rgb(LED_COLOR_UNKNOWN);
	self->online = TRUE;
}

GtkWidget *panel_lamp_new(void)
{
	return g_object_new(PANEL_TYPE_LAMP, NULL);
}

void panel_lamp_set_size(PanelLamp *self, int size)
{
	if (self->size == size)
		return;
	self->size = size;
	gtk_widget_queue_resize(GTK_WIDGET(self));
}

void panel_lamp_set_color(PanelLamp *self, enum led_color color)
{
	self->rgb = led_color_rgb(color);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void panel_lamp_set_rgb(PanelLamp *self, struct led_rgb rgb)
{
	self->rgb = rgb;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void panel_lamp_set_level(PanelLamp *self, double level)
{
	if (self->level == level)
		return;
	self->level = level;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void panel_lamp_set_online(PanelLamp *self, gboolean online)
{
	if (self->online == online)
		return;
	self->online = online;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void panel_lamp_set_warning(PanelLamp *self, gboolean warning)
{
	if (self->warning == warning)
		return;
	self->warning = warning;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* One timeout per half of the blink: the halves may differ (timer's delay_on/delay_off). */
static gboolean blink_toggle(gpointer user_data)
{
	PanelLamp *self = user_data;

	self->dark = !self->dark;
	self->blink_source =
	    g_timeout_add(self->dark ? self->blink_off_ms : self->blink_on_ms, blink_toggle, self);
	g_source_set_name_by_id(self->blink_source, "[uledsd-panel] blink");
	gtk_widget_queue_draw(GTK_WIDGET(self));
	return G_SOURCE_REMOVE;
}

void panel_lamp_set_blink(PanelLamp *self, guint on_ms, guint off_ms)
{
	if (self->blink_on_ms == on_ms && self->blink_off_ms == off_ms)
		return;
	self->blink_on_ms = on_ms;
	self->blink_off_ms = off_ms;
	g_clear_handle_id(&self->blink_source, g_source_remove);
	/* A half of 0 ms is no blink: the kernel keeps such an LED dark (on 0) or lit (off 0). */
	self->dark = on_ms == 0 && off_ms != 0;
	if (on_ms && off_ms) {
		self->blink_source = g_timeout_add(on_ms, blink_toggle, self);
		g_source_set_name_by_id(self->blink_source, "[uledsd-panel] blink");
	}
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean panel_lamp_get_lit(PanelLamp *self)
{
	return !self->dark;
}
