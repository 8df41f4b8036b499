// SPDX-License-Identifier: MIT
/* PanelLed: the properties of one io.uledsd1.LED object, with notify:: for each change. */
#include <string.h>

#include "panel-led.h"

struct _PanelLed {
	GObject parent_instance;
	char *object_path;
	char *name;
	char *trigger;
	char **available_triggers;
	char *backends_text;
	guint brightness;
	guint max_brightness;
	guint blink_on_ms;
	guint blink_off_ms;
	gboolean backends_ok;
	gboolean online;
	/* Color: a multicolour LED's channels (n_channels 0: a plain LED) */
	enum led_color channel_color[8];
	guint channel_intensity[8];
	guint n_channels;
};

G_DEFINE_FINAL_TYPE(PanelLed, panel_led, G_TYPE_OBJECT)

enum {
	PROP_0,
	PROP_OBJECT_PATH,
	PROP_NAME,
	PROP_BRIGHTNESS,
	PROP_MAX_BRIGHTNESS,
	PROP_TRIGGER,
	PROP_AVAILABLE_TRIGGERS,
	PROP_BLINK_ON_MS,
	PROP_BLINK_OFF_MS,
	PROP_BACKENDS_OK,
	PROP_BACKENDS_TEXT,
	PROP_ONLINE,
	PROP_CHANNELS,
	N_PROPS
};
static GParamSpec *props[N_PROPS];

static void panel_led_finalize(GObject *object)
{
	PanelLed *self = PANEL_LED(object);

	g_free(self->object_path);
	g_free(self->name);
	g_free(self->trigger);
	g_strfreev(self->available_triggers);
	g_free(self->backends_text);
	G_OBJECT_CLASS(panel_led_parent_class)->finalize(object);
}

static void panel_led_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	PanelLed *self = PANEL_LED(object);

	switch (id) {
	case PROP_OBJECT_PATH:
		g_value_set_string(value, self->object_path);
		break;
	case PROP_NAME:
		g_value_set_string(value, self->name);
		break;
	case PROP_BRIGHTNESS:
		g_value_set_uint(value, self->brightness);
		break;
	case PROP_MAX_BRIGHTNESS:
		g_value_set_uint(value, self->max_brightness);
		break;
	case PROP_TRIGGER:
		g_value_set_string(value, self->trigger);
		break;
	case PROP_AVAILABLE_TRIGGERS:
		g_value_set_boxed(value, self->available_triggers);
		break;
	case PROP_BLINK_ON_MS:
		g_value_set_uint(value, self->blink_on_ms);
		break;
	case PROP_BLINK_OFF_MS:
		g_value_set_uint(value, self->blink_off_ms);
		break;
	case PROP_BACKENDS_OK:
		g_value_set_boolean(value, self->backends_ok);
		break;
	case PROP_BACKENDS_TEXT:
		g_value_set_string(value, self->backends_text);
		break;
	case PROP_ONLINE:
		g_value_set_boolean(value, self->online);
		break;
	case PROP_CHANNELS:
		g_value_set_uint(value, self->n_channels);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void panel_led_set_property(GObject *object, guint id, const GValue *value,
				   GParamSpec *pspec)
{
	PanelLed *self = PANEL_LED(object);

	switch (id) {
	case PROP_OBJECT_PATH:
		self->object_path = g_value_dup_string(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void panel_led_class_init(PanelLedClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

	object_class->finalize = panel_led_finalize;
	object_class->get_property = panel_led_get_property;
	object_class->set_property = panel_led_set_property;

	props[PROP_OBJECT_PATH] = g_param_spec_string("object-path", NULL, NULL, NULL,
						      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
							  G_PARAM_STATIC_STRINGS);
	props[PROP_NAME] = g_param_spec_string("name", NULL, NULL, "", ro);
	props[PROP_BRIGHTNESS] = g_param_spec_uint("brightness", NULL, NULL, 0, G_MAXUINT, 0, ro);
	props[PROP_MAX_BRIGHTNESS] =
	    g_param_spec_uint("max-brightness", NULL, NULL, 0, G_MAXUINT, 0, ro);
	props[PROP_TRIGGER] = g_param_spec_string("trigger", NULL, NULL, "none", ro);
	props[PROP_AVAILABLE_TRIGGERS] =
	    g_param_spec_boxed("available-triggers", NULL, NULL, G_TYPE_STRV, ro);
	props[PROP_BLINK_ON_MS] = g_param_spec_uint("blink-on-ms", NULL, NULL, 0, G_MAXUINT, 0, ro);
	props[PROP_BLINK_OFF_MS] =
	    g_param_spec_uint("blink-off-ms", NULL, NULL, 0, G_MAXUINT, 0, ro);
	props[PROP_BACKENDS_OK] = g_param_spec_boolean("backends-ok", NULL, NULL, TRUE, ro);
	props[PROP_BACKENDS_TEXT] = g_param_spec_string("backends-text", NULL, NULL, "", ro);
	props[PROP_ONLINE] = g_param_spec_boolean("online", NULL, NULL, TRUE, ro);
	/* The number of colour channels; notified when any channel's intensity changes too. */
	props[PROP_CHANNELS] = g_param_spec_uint("channels", NULL, NULL, 0, 8, 0, ro);
	g_object_class_install_properties(object_class, N_PROPS, props);
}

static void panel_led_init(PanelLed *self)
{
	self->name = g_strdup("");
	self->trigger = g_strdup("none");
	self->backends_text = g_strdup("");
	self->backends_ok = TRUE;
	self->online = TRUE;
}

PanelLed *panel_led_new(const char *object_path)
{
	return g_object_new(PANEL_TYPE_LED, "object-path", object_path, NULL);
}

const char *panel_led_get_object_path(PanelLed *self)
{
	return self->object_path;
}

const char *panel_led_get_name(PanelLed *self)
{
	return self->name;
}

guint panel_led_get_brightness(PanelLed *self)
{
	return self->brightness;
}

guint panel_led_get_max_brightness(PanelLed *self)
{
	return self->max_brightness;
}

const char *panel_led_get_trigger(PanelLed *self)
{
	return self->trigger;
}

const char *const *panel_led_get_available_triggers(PanelLed *self)
{
	return (const char *const *)self->available_triggers;
}

gboolean panel_led_get_blink(PanelLed *self, guint *on_ms, guint *off_ms)
{
	if (on_ms)
		*on_ms = self->blink_on_ms;
	if (off_ms)
		*off_ms = self->blink_off_ms;
	return self->blink_on_ms || self->blink_off_ms;
}

enum led_color panel_led_get_color(PanelLed *self)
{
	return led_color_from_name(self->name);
}

gboolean panel_led_get_mixed_rgb(PanelLed *self, struct led_rgb *ret)
{
	if (!self->n_channels)
		return FALSE;
	*ret = led_color_mix(self->channel_color, self->channel_intensity, self->n_channels,
			     self->max_brightness);
	return TRUE;
}

gboolean panel_led_get_backends_ok(PanelLed *self)
{
	return self->backends_ok;
}

const char *panel_led_get_backends_text(PanelLed *self)
{
	return self->backends_text;
}

gboolean panel_led_get_online(PanelLed *self)
{
	return self->online;
}

static void set_string(PanelLed *self, char **field, const char *value, int prop)
{
	if (g_strcmp0(*field, value) == 0)
		return;
	g_free(*field);
	*field = g_strdup(value);
	g_object_notify_by_pspec(G_OBJECT(self), props[prop]);
}

static void set_strv(PanelLed *self, char ***field, GVariant *value, int prop)
{
	g_auto(GStrv) v = g_variant_dup_strv(value, NULL);

	if (*field && g_strv_equal((const char *const *)*field, (const char *const *)v))
		return;
	g_strfreev(*field);
	*field = g_steal_pointer(&v);
	g_object_notify_by_pspec(G_OBJECT(self), props[prop]);
}

static void set_uint(PanelLed *self, guint *field, guint value, int prop)
{
	if (*field == value)
		return;
	*field = value;
	g_object_notify_by_pspec(G_OBJECT(self), props[prop]);
}

/* a(sbs) → ok when every backend works; the text lists each "name: state", one a line. */
static void update_backends(PanelLed *self, GVariant *list)
{
	g_autoptr(GString) text = g_string_new(NULL);
	GVariantIter iter;
	const char *name, *state;
	gboolean works, ok = TRUE;

	g_variant_iter_init(&iter, list);
	while (g_variant_iter_next(&iter, "(&sb&s)", &name, &works, &state)) {
		if (text->len)
			g_string_append_c(text, '\n');
		g_string_append_printf(text, "%s %s: %s", works ? "✓" : "✗", name, state);
		ok = ok && works;
	}
	set_string(self, &self->backends_text, text->str, PROP_BACKENDS_TEXT);
	if (self->backends_ok != ok) {
		self->backends_ok = ok;
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_BACKENDS_OK]);
	}
}

/* a(su): (colour name, intensity) per channel; notify::channels when any differs. */
static void update_channels(PanelLed *self, GVariant *list)
{
	enum led_color color[8];
	guint intensity[8], n = 0;
	GVariantIter iter;
	const char *name;
	guint v;

	g_variant_iter_init(&iter, list);
	while (n < G_N_ELEMENTS(color) && g_variant_iter_next(&iter, "(&su)", &name, &v)) {
		color[n] = led_color_from_string(name, strlen(name));
		intensity[n++] = v;
	}
	if (n == self->n_channels && !memcmp(color, self->channel_color, n * sizeof(*color)) &&
	    !memcmp(intensity, self->channel_intensity, n * sizeof(*intensity)))
		return;
	memcpy(self->channel_color, color, n * sizeof(*color));
	memcpy(self->channel_intensity, intensity, n * sizeof(*intensity));
	self->n_channels = n;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CHANNELS]);
}

void panel_led_update(PanelLed *self, GVariant *properties)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	g_object_freeze_notify(G_OBJECT(self));
	g_variant_iter_init(&iter, properties);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		/* Types are checked: a newer uledsd may change a type under a new interface
		 * name only, but a wrong one must not crash us. */
		if (g_str_equal(key, "Name") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
			set_string(self, &self->name, g_variant_get_string(value, NULL), PROP_NAME);
		else if (g_str_equal(key, "Trigger") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
			set_string(self, &self->trigger, g_variant_get_string(value, NULL),
				   PROP_TRIGGER);
		else if (g_str_equal(key, "AvailableTriggers") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE_STRING_ARRAY))
			set_strv(self, &self->available_triggers, value, PROP_AVAILABLE_TRIGGERS);
		else if (g_str_equal(key, "Brightness") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
			set_uint(self, &self->brightness, g_variant_get_uint32(value),
				 PROP_BRIGHTNESS);
		else if (g_str_equal(key, "MaxBrightness") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
			set_uint(self, &self->max_brightness, g_variant_get_uint32(value),
				 PROP_MAX_BRIGHTNESS);
		else if (g_str_equal(key, "Blink") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE("(uu)"))) {
			guint on, off;

			g_variant_get(value, "(uu)", &on, &off);
			set_uint(self, &self->blink_on_ms, on, PROP_BLINK_ON_MS);
			set_uint(self, &self->blink_off_ms, off, PROP_BLINK_OFF_MS);
		} else if (g_str_equal(key, "Backends") &&
			   g_variant_is_of_type(value, G_VARIANT_TYPE("a(sbs)")))
			update_backends(self, value);
		else if (g_str_equal(key, "Color") &&
			 g_variant_is_of_type(value, G_VARIANT_TYPE("a(su)")))
			update_channels(self, value);
	}
	g_object_thaw_notify(G_OBJECT(self));
}

void panel_led_set_online(PanelLed *self, gboolean online)
{
	if (self->online == online)
		return;
	self->online = online;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_ONLINE]);
}
