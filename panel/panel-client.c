// SPDX-License-Identifier: MIT
/* PanelClient: follows io.uledsd1 with GDBus: the bus connection, the name's owner, the
 * Manager's properties and the calls that change LEDs.
 *
 * GDBus rather than sd-bus: the panel lives in a GMainLoop, and GDBus dispatches there
 * natively (no GSource around sd_bus_get_fd/sd_bus_process to write and get right), hands us
 * GVariants that GObject properties take directly, and owns name-owner tracking
 * (g_bus_watch_name_on_connection). uledsctl, a plain CLI, uses sd-bus for the opposite
 * reason: no GLib on a small board. Both see the same API, which is the point.
 *
 * Nothing is polled. The LEDs themselves are PanelLedStore's (panel-led-store.c): this file
 * hands it the connection and each new owner, and hears back whether the LEDs are listed.
 * LEDs without the dbus backend send no signals (Brightness, Blink, Trigger): after our own
 * calls we re-read the LED with GetAll so at least our changes show. */
#include <unistd.h>

#include "panel-client.h"
#include "panel-led-store.h"
#include "uledsd-bus.h"

#define CALL_TIMEOUT_MS 25000
#define BUS_RETRY_S 2

struct _PanelClient {
	GObject parent_instance;
	GBusType bus_type;
	char *address;
	GDBusConnection *connection;
	GCancellable *cancellable;
	guint watch_id;
	guint retry_source;
	/* Bumped when the owner changes: replies for an older owner are dropped. */
	guint generation;
	char *owner;

	PanelLedStore *leds;

	enum panel_client_state state;
	char *status_text;
	char *version;
	gboolean can_manage;
	char *manage_reason;
};

G_DEFINE_FINAL_TYPE(PanelClient, panel_client, G_TYPE_OBJECT)

enum { PROP_0, PROP_STATE, PROP_VERSION, PROP_CAN_MANAGE, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_ERROR, N_SIGNALS };
static guint signals[N_SIGNALS];

static void connect_bus(PanelClient *self);

static void set_state(PanelClient *self, enum panel_client_state state, const char *text)
{
	g_free(self->status_text);
	self->status_text = g_strdup(text);
	/* Notified even when equal: the text may have changed (another error). */
	self->state = state;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STATE]);
}

static void set_can_manage(PanelClient *self, gboolean can, const char *reason)
{
	g_free(self->manage_reason);
	self->manage_reason = g_strdup(can ? NULL : reason);
	self->can_manage = can;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CAN_MANAGE]);
}

/* --- replies ------------------------------------------------------------------------------ */

/* Carries the generation of the owner a call was made for. */
struct call_data {
	PanelClient *client; /* a reference */
	guint generation;
	char *path;
};

static struct call_data *call_data_new(PanelClient *self, const char *path)
{
	struct call_data *d = g_new0(struct call_data, 1);

	d->client = g_object_ref(self);
	d->generation = self->generation;
	d->path = g_strdup(path);
	return d;
}

static void call_data_free(struct call_data *d)
{
	g_object_unref(d->client);
	g_free(d->path);
	g_free(d);
}
typedef struct call_data call_data;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(call_data, call_data_free)

static gboolean call_is_stale(struct call_data *d)
{
	return d->generation != d->client->generation || !d->client->connection;
}

static void got_version(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(call_data) d = user_data;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariant) v = NULL;

	reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, NULL);
	if (!reply || call_is_stale(d))
		return;
	g_variant_get(reply, "(v)", &v);
	if (!g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
		return;
	g_free(d->client->version);
	d->client->version = g_variant_dup_string(v, NULL);
	g_object_notify_by_pspec(G_OBJECT(d->client), props[PROP_VERSION]);
}

/* CanManage answers for root, the group uledsd and polkit (uledsd-dbus(7), SECURITY). An
 * older uledsd without it allowed root only: fall back to that rule. */
static void can_manage_fallback(PanelClient *self)
{
	if (geteuid() == 0)
		set_can_manage(self, TRUE, NULL);
	else
		set_can_manage(self, FALSE,
			       "Only root may change LEDs with this uledsd (it is too old to "
			       "answer CanManage, and allowed root only).");
}

static void got_can_manage(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(call_data) d = user_data;
	g_autoptr(GVariant) reply = NULL;
	gboolean can;

	reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, NULL);
	if (call_is_stale(d))
		return;
	if (!reply) {
		can_manage_fallback(d->client);
		return;
	}
	g_variant_get(reply, "(b)", &can);
	set_can_manage(d->client, can,
		       "uledsd does not let you change LEDs: that is for root, members of the "
		       "group uledsd and whom polkit admits (" ULEDSD_POLKIT_MANAGE "). Ask to be "
		       "added to the group uledsd.");
}

/* --- the name's owner ---------------------------------------------------------------------- */

/* PanelLedStore's news: how the new owner's GetManagedObjects went. */
static void leds_listed(const char *error_message, gpointer user_data)
{
	PanelClient *self = user_data;

	if (error_message)
		set_state(self, PANEL_CLIENT_OFFLINE, error_message);
	else
		set_state(self, PANEL_CLIENT_ONLINE, NULL);
}

static void name_appeared(GDBusConnection *connection, const char *name, const char *owner,
			  gpointer user_data)
{
	PanelClient *self = user_data;

	self->generation++;
	g_free(self->owner);
	self->owner = g_strdup(owner);
	/* Calls go to the unique name: a reply can only describe this owner. */
	panel_led_store_follow(self->leds, owner);
	g_dbus_connection_call(connection, owner, ULEDSD_MANAGER_PATH,
			       "org.freedesktop.DBus.Properties", "Get",
			       g_variant_new("(ss)", ULEDSD_MANAGER_IFACE, "Version"),
			       G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
			       self->cancellable, got_version, call_data_new(self, NULL));
	g_dbus_connection_call(connection, owner, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE,
			       "CanManage", NULL, G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NONE,
			       CALL_TIMEOUT_MS, self->cancellable, got_can_manage,
			       call_data_new(self, NULL));
}

static void name_vanished(GDBusConnection *connection, const char *name, gpointer user_data)
{
	PanelClient *self = user_data;

	self->generation++;
	g_clear_pointer(&self->owner, g_free);
	panel_led_store_unfollow(self->leds);
	if (connection && !g_dbus_connection_is_closed(connection))
		set_state(self, PANEL_CLIENT_OFFLINE,
			  "uledsd is not running: showing the last known state.");
}

/* --- the bus connection -------------------------------------------------------------------- */

static gboolean retry_connect(gpointer user_data)
{
	PanelClient *self = user_data;

	self->retry_source = 0;
	connect_bus(self);
	return G_SOURCE_REMOVE;
}

static void drop_connection(PanelClient *self)
{
	if (self->watch_id)
		g_bus_unwatch_name(self->watch_id);
	self->watch_id = 0;
	panel_led_store_unsubscribe(self->leds);
	if (self->connection)
		g_signal_handlers_disconnect_by_data(self->connection, self);
	g_clear_object(&self->connection);
}

static void bus_closed(GDBusConnection *connection, gboolean remote_peer_vanished, GError *error,
		       gpointer user_data)
{
	PanelClient *self = user_data;

	/* dbus-daemon restarted or died: keep the LEDs greyed and connect again. */
	name_vanished(NULL, ULEDSD_BUS_NAME, self);
	drop_connection(self);
	set_state(self, PANEL_CLIENT_NO_BUS, "The D-Bus bus went away: reconnecting…");
	self->retry_source = g_timeout_add_seconds(BUS_RETRY_S, retry_connect, self);
}

static void bus_connected(GObject *source, GAsyncResult *res, gpointer user_data)
{
	PanelClient *self = user_data;
	g_autoptr(GError) error = NULL;
	GDBusConnection *c;

	c = g_dbus_connection_new_for_address_finish(res, &error);
	if (!c) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			return;
		g_autofree char *msg =
		    g_strdup_printf("Cannot connect to the D-Bus bus (%s); retrying every %d s.",
				    error->message, BUS_RETRY_S);
		set_state(self, PANEL_CLIENT_NO_BUS, msg);
		self->retry_source = g_timeout_add_seconds(BUS_RETRY_S, retry_connect, self);
		return;
	}
	self->connection = c;
	g_dbus_connection_set_exit_on_close(c, FALSE);
	g_signal_connect(c, "closed", G_CALLBACK(bus_closed), self);

	/* Subscriptions first, then the watch: no signal after GetManagedObjects is lost. */
	panel_led_store_subscribe(self->leds, c);
	self->watch_id =
	    g_bus_watch_name_on_connection(c, ULEDSD_BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
					   name_appeared, name_vanished, self, NULL);
}

static void connect_bus(PanelClient *self)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *address = NULL;

	if (self->address) {
		address = g_strdup(self->address);
	} else {
		address = g_dbus_address_get_for_bus_sync(self->bus_type, NULL, &error);
		if (!address) {
			set_state(self, PANEL_CLIENT_NO_BUS, error->message);
			return;
		}
	}
	/* A connection of our own, not GLib's shared singleton: we close and replace it
	 * when the bus restarts, and nobody else's exit-on-close applies. */
	g_dbus_connection_new_for_address(address,
					  G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
					      G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
					  NULL, self->cancellable, bus_connected, self);
}

/* --- calls --------------------------------------------------------------------------------- */

static void call_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(call_data) d = user_data;
	PanelClient *self = d->client;
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = NULL;

	reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
	if (!reply) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			return;
		gboolean denied = g_dbus_error_is_remote_error(error) &&
				  g_strcmp0(g_dbus_error_get_remote_error(error),
					    "org.freedesktop.DBus.Error.AccessDenied") == 0;
		g_dbus_error_strip_remote_error(error);
		if (denied)
			set_can_manage(self, FALSE, error->message);
		g_signal_emit(self, signals[SIGNAL_ERROR], 0, error->message);
	}
	/* LEDs without the dbus backend do not signal: read them back. */
	if (!call_is_stale(d))
		panel_led_store_refresh(self->leds, d->path);
}

static void call_led(PanelClient *self, PanelLed *led, const char *method, GVariant *args)
{
	if (!self->owner) {
		g_variant_unref(g_variant_ref_sink(args));
		g_signal_emit(self, signals[SIGNAL_ERROR], 0, "uledsd is not running.");
		return;
	}
	g_dbus_connection_call(self->connection, self->owner, panel_led_get_object_path(led),
			       ULEDSD_LED_IFACE, method, args, NULL, G_DBUS_CALL_FLAGS_NONE,
			       CALL_TIMEOUT_MS, self->cancellable, call_done,
			       call_data_new(self, panel_led_get_object_path(led)));
}

void panel_client_set_brightness(PanelClient *self, PanelLed *led, guint brightness)
{
	call_led(self, led, "SetBrightness", g_variant_new("(u)", brightness));
}

void panel_client_set_trigger(PanelClient *self, PanelLed *led, const char *trigger)
{
	call_led(self, led, "SetTrigger", g_variant_new("(s)", trigger));
}

void panel_client_refresh_led(PanelClient *self, PanelLed *led)
{
	panel_led_store_refresh(self->leds, panel_led_get_object_path(led));
}

/* --- object -------------------------------------------------------------------------------- */

static void panel_client_dispose(GObject *object)
{
	PanelClient *self = PANEL_CLIENT(object);

	g_cancellable_cancel(self->cancellable);
	g_clear_handle_id(&self->retry_source, g_source_remove);
	drop_connection(self);
	G_OBJECT_CLASS(panel_client_parent_class)->dispose(object);
}

static void panel_client_finalize(GObject *object)
{
	PanelClient *self = PANEL_CLIENT(object);

	g_clear_object(&self->cancellable);
	g_clear_object(&self->leds);
	g_free(self->address);
	g_free(self->owner);
	g_free(self->status_text);
	g_free(self->version);
	g_free(self->manage_reason);
	G_OBJECT_CLASS(panel_client_parent_class)->finalize(object);
}

static void panel_client_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	PanelClient *self = PANEL_CLIENT(object);

	switch (id) {
	case PROP_STATE:
		g_value_set_int(value, self->state);
		break;
	case PROP_VERSION:
		g_value_set_string(value, self->version);
		break;
	case PROP_CAN_MANAGE:
		g_value_set_boolean(value, self->can_manage);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void panel_client_class_init(PanelClientClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

	object_class->dispose = panel_client_dispose;
	object_class->finalize = panel_client_finalize;
	object_class->get_property = panel_client_get_property;

	props[PROP_STATE] = g_param_spec_int("state", NULL, NULL, PANEL_CLIENT_CONNECTING,
					     PANEL_CLIENT_NO_BUS, PANEL_CLIENT_CONNECTING, ro);
	props[PROP_VERSION] = g_param_spec_string("version", NULL, NULL, NULL, ro);
	props[PROP_CAN_MANAGE] = g_param_spec_boolean("can-manage", NULL, NULL, FALSE, ro);
	g_object_class_install_properties(object_class, N_PROPS, props);

	/* A call failed; the argument is a message for people. */
	signals[SIGNAL_ERROR] = g_signal_new("error", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
					     0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void panel_client_init(PanelClient *self)
{
	self->cancellable = g_cancellable_new();
	self->leds = panel_led_store_new(self->cancellable, leds_listed, self);
	self->status_text = g_strdup("Connecting to uledsd…");
	self->manage_reason = g_strdup("Waiting for uledsd.");
}

PanelClient *panel_client_new(GBusType bus_type, const char *address)
{
	PanelClient *self = g_object_new(PANEL_TYPE_CLIENT, NULL);

	self->bus_type = bus_type;
	self->address = g_strdup(address);
	return self;
}

void panel_client_start(PanelClient *self)
{
	connect_bus(self);
}

GListModel *panel_client_get_leds(PanelClient *self)
{
	return panel_led_store_get_model(self->leds);
}

enum panel_client_state panel_client_get_state(PanelClient *self)
{
	return self->state;
}

const char *panel_client_get_status_text(PanelClient *self)
{
	return self->state == PANEL_CLIENT_ONLINE ? NULL : self->status_text;
}

const char *panel_client_get_version(PanelClient *self)
{
	return self->version;
}

gboolean panel_client_get_can_manage(PanelClient *self)
{
	return self->can_manage;
}

const char *panel_client_get_manage_reason(PanelClient *self)
{
	return self->manage_reason;
}
