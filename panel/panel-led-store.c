// SPDX-License-Identifier: MIT
/* PanelLedStore: reads the LEDs of io.uledsd1 into a GListStore and keeps them current.
 *
 * The LEDs come from GetManagedObjects when an owner is followed, then follow
 * InterfacesAdded/Removed and PropertiesChanged. When the owner goes away the LEDs stay,
 * marked offline (the view greys them), and a new owner's GetManagedObjects is reconciled
 * against them. The connection and the name's owner are PanelClient's: it hands them down
 * and hears back only through the listed callback. */
#include "panel-led-store.h"
#include "uledsd-bus.h"

#define CALL_TIMEOUT_MS 25000

struct _PanelLedStore {
	GObject parent_instance;
	GCancellable *cancellable;
	panel_led_store_listed_fn listed;
	gpointer listed_data;

	GDBusConnection *connection;
	guint sub_added, sub_removed, sub_changed;
	/* Bumped when the owner changes: replies for an older owner are dropped. */
	guint generation;
	char *owner;

	GListStore *leds;
	GHashTable *by_path; /* object path → PanelLed (the store holds the reference) */
};

G_DEFINE_FINAL_TYPE(PanelLedStore, panel_led_store, G_TYPE_OBJECT)

/* --- the model ----------------------------------------------------------------------------- */

static void mark_all_online(PanelLedStore *self, gboolean online)
{
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->leds));

	for (guint i = 0; i < n; i++) {
		g_autoptr(PanelLed) led = g_list_model_get_item(G_LIST_MODEL(self->leds), i);
		panel_led_set_online(led, online);
	}
}

static PanelLed *add_or_update(PanelLedStore *self, const char *path, GVariant *properties)
{
	PanelLed *led = g_hash_table_lookup(self->by_path, path);

	if (!led) {
		g_autoptr(PanelLed) fresh = panel_led_new(path);
		panel_led_update(fresh, properties);
		g_hash_table_insert(self->by_path, g_strdup(path), fresh);
		g_list_store_append(self->leds, fresh);
		return fresh;
	}
	panel_led_update(led, properties);
	panel_led_set_online(led, TRUE);
	return led;
}

static void remove_led(PanelLedStore *self, const char *path)
{
	PanelLed *led = g_hash_table_lookup(self->by_path, path);
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->leds));

	if (!led)
		return;
	/* Not g_list_store_find(): gcc 12 takes its out-parameter for a dangling pointer. */
	for (guint i = 0; i < n; i++) {
		g_autoptr(PanelLed) item = g_list_model_get_item(G_LIST_MODEL(self->leds), i);
		if (item == led) {
			g_list_store_remove(self->leds, i);
			break;
		}
	}
	g_hash_table_remove(self->by_path, path);
}

/* Takes the LEDs of a GetManagedObjects reply; those that did not come back are gone. */
static void reconcile(PanelLedStore *self, GVariant *reply)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GVariantIter) objects = NULL;
	g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func(g_free);
	GHashTableIter iter;
	const char *path;
	GVariant *ifaces;

	g_variant_get(reply, "(a{oa{sa{sv}}})", &objects);
	while (g_variant_iter_loop(objects, "{&o@a{sa{sv}}}", &path, &ifaces)) {
		g_autoptr(GVariant) led_props =
		    g_variant_lookup_value(ifaces, ULEDSD_LED_IFACE, NULL);
		if (!led_props)
			continue;
		add_or_update(self, path, led_props);
		g_hash_table_add(seen, (gpointer)g_intern_string(path));
	}

	g_hash_table_iter_init(&iter, self->by_path);
	while (g_hash_table_iter_next(&iter, (gpointer *)&path, NULL))
		if (!g_hash_table_contains(seen, g_intern_string(path)))
			g_ptr_array_add(gone, g_strdup(path));
	for (guint i = 0; i < gone->len; i++)
		remove_led(self, gone->pdata[i]);
}

/* --- replies ------------------------------------------------------------------------------ */

/* Carries the generation of the owner a call was made for. */
struct store_call {
	PanelLedStore *store; /* a reference */
	guint generation;
	char *path;
};

static struct store_call *store_call_new(PanelLedStore *self, const char *path)
{
	struct store_call *d = g_new0(struct store_call, 1);

	d->store = g_object_ref(self);
	d->generation = self->generation;
	d->path = g_strdup(path);
	return d;
}

static void store_call_free(struct store_call *d)
{
	g_object_unref(d->store);
	g_free(d->path);
	g_free(d);
}
typedef struct store_call store_call;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(store_call, store_call_free)

static gboolean call_is_stale(struct store_call *d)
{
	return d->generation != d->store->generation || !d->store->connection;
}

static void got_managed_objects(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(store_call) d = user_data;
	PanelLedStore *self = d->store;
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = NULL;

	reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, &error);
	if (call_is_stale(d))
		return;
	if (!reply) {
		/* The owner left between NameOwnerChanged and our call: the vanish handler
		 * has it. Anything else is worth saying. */
		g_autofree char *msg =
		    g_strdup_printf("Failed to list the LEDs of uledsd: %s", error->message);
		self->listed(msg, self->listed_data);
		return;
	}
	reconcile(self, reply);
	self->listed(NULL, self->listed_data);
}

static void got_led_properties(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(store_call) d = user_data;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariant) all = NULL;
	PanelLed *led;

	reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res, NULL);
	if (!reply || call_is_stale(d))
		return; /* removed meanwhile: InterfacesRemoved says so */
	led = g_hash_table_lookup(d->store->by_path, d->path);
	if (!led)
		return;
	g_variant_get(reply, "(@a{sv})", &all);
	panel_led_update(led, all);
}

void panel_led_store_refresh(PanelLedStore *self, const char *path)
{
	if (!self->owner || !self->connection)
		return;
	g_dbus_connection_call(self->connection, self->owner, path,
			       "org.freedesktop.DBus.Properties", "GetAll",
			       g_variant_new("(s)", ULEDSD_LED_IFACE), G_VARIANT_TYPE("(a{sv})"),
			       G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, self->cancellable,
			       got_led_properties, store_call_new(self, path));
}

void panel_led_store_follow(PanelLedStore *self, const char *owner)
{
	self->generation++;
	g_free(self->owner);
	self->owner = g_strdup(owner);
	if (!self->connection)
		return;
	/* Calls go to the unique name: a reply can only describe this owner. */
	g_dbus_connection_call(
	    self->connection, owner, ULEDSD_MANAGER_PATH, "org.freedesktop.DBus.ObjectManager",
	    "GetManagedObjects", NULL, G_VARIANT_TYPE("(a{oa{sa{sv}}})"), G_DBUS_CALL_FLAGS_NONE,
	    CALL_TIMEOUT_MS, self->cancellable, got_managed_objects, store_call_new(self, NULL));
}

void panel_led_store_unfollow(PanelLedStore *self)
{
	self->generation++;
	g_clear_pointer(&self->owner, g_free);
	mark_all_online(self, FALSE);
}

/* --- signals ------------------------------------------------------------------------------- */

static gboolean from_owner(PanelLedStore *self, const char *sender)
{
	/* GDBus matched on the well-known name; the owner check drops what was queued
	 * from a previous owner. */
	return self->owner && g_strcmp0(sender, self->owner) == 0;
}

static void on_interfaces_added(GDBusConnection *c, const char *sender, const char *path,
				const char *iface, const char *signal, GVariant *params,
				gpointer user_data)
{
	PanelLedStore *self = user_data;
	g_autoptr(GVariant) ifaces = NULL;
	g_autoptr(GVariant) led_props = NULL;
	const char *object;

	if (!from_owner(self, sender) ||
	    !g_variant_is_of_type(params, G_VARIANT_TYPE("(oa{sa{sv}})")))
		return;
	g_variant_get(params, "(&o@a{sa{sv}})", &object, &ifaces);
	led_props = g_variant_lookup_value(ifaces, ULEDSD_LED_IFACE, NULL);
	if (led_props)
		add_or_update(self, object, led_props);
}

static void on_interfaces_removed(GDBusConnection *c, const char *sender, const char *path,
				  const char *iface, const char *signal, GVariant *params,
				  gpointer user_data)
{
	PanelLedStore *self = user_data;
	g_autofree const char **names = NULL;
	const char *object;

	if (!from_owner(self, sender) || !g_variant_is_of_type(params, G_VARIANT_TYPE("(oas)")))
		return;
	g_variant_get(params, "(&o^a&s)", &object, &names);
	if (g_strv_contains(names, ULEDSD_LED_IFACE))
		remove_led(self, object);
}

/* LEDs without the dbus backend send no signals (Brightness, Blink, Trigger); an invalidated
 * property is read back with GetAll. */
static void on_properties_changed(GDBusConnection *c, const char *sender, const char *path,
				  const char *iface, const char *signal, GVariant *params,
				  gpointer user_data)
{
	PanelLedStore *self = user_data;
	g_autoptr(GVariant) changed = NULL;
	g_autofree const char **invalidated = NULL;
	const char *changed_iface;
	PanelLed *led;

	if (!from_owner(self, sender) ||
	    !g_variant_is_of_type(params, G_VARIANT_TYPE("(sa{sv}as)")))
		return;
	g_variant_get(params, "(&s@a{sv}^a&s)", &changed_iface, &changed, &invalidated);
	led = g_hash_table_lookup(self->by_path, path);
	if (!led || !g_str_equal(changed_iface, ULEDSD_LED_IFACE))
		return;
	panel_led_update(led, changed);
	if (invalidated && invalidated[0])
		panel_led_store_refresh(self, path);
}

void panel_led_store_subscribe(PanelLedStore *self, GDBusConnection *c)
{
	panel_led_store_unsubscribe(self);
	self->connection = g_object_ref(c);
	self->sub_added = g_dbus_connection_signal_subscribe(
	    c, ULEDSD_BUS_NAME, "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
	    ULEDSD_MANAGER_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_interfaces_added, self, NULL);
	self->sub_removed = g_dbus_connection_signal_subscribe(
	    c, ULEDSD_BUS_NAME, "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
	    ULEDSD_MANAGER_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_interfaces_removed, self, NULL);
	/* Any path (GDBus has no path_namespace), only the LED interface (arg0). */
	self->sub_changed = g_dbus_connection_signal_subscribe(
	    c, ULEDSD_BUS_NAME, "org.freedesktop.DBus.Properties", "PropertiesChanged", NULL,
	    ULEDSD_LED_IFACE, G_DBUS_SIGNAL_FLAGS_NONE, on_properties_changed, self, NULL);
}

void panel_led_store_unsubscribe(PanelLedStore *self)
{
	if (!self->connection)
		return;
	g_dbus_connection_signal_unsubscribe(self->connection, self->sub_added);
	g_dbus_connection_signal_unsubscribe(self->connection, self->sub_removed);
	g_dbus_connection_signal_unsubscribe(self->connection, self->sub_changed);
	self->sub_added = self->sub_removed = self->sub_changed = 0;
	g_clear_object(&self->connection);
}

/* --- object -------------------------------------------------------------------------------- */

static void panel_led_store_dispose(GObject *object)
{
	panel_led_store_unsubscribe(PANEL_LED_STORE(object));
	G_OBJECT_CLASS(panel_led_store_parent_class)->dispose(object);
}

static void panel_led_store_finalize(GObject *object)
{
	PanelLedStore *self = PANEL_LED_STORE(object);

	g_clear_object(&self->cancellable);
	g_clear_object(&self->leds);
	g_hash_table_unref(self->by_path);
	g_free(self->owner);
	G_OBJECT_CLASS(panel_led_store_parent_class)->finalize(object);
}

static void panel_led_store_class_init(PanelLedStoreClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = panel_led_store_dispose;
	G_OBJECT_CLASS(klass)->finalize = panel_led_store_finalize;
}

static void panel_led_store_init(PanelLedStore *self)
{
	self->leds = g_list_store_new(PANEL_TYPE_LED);
	self->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

PanelLedStore *panel_led_store_new(GCancellable *cancellable, panel_led_store_listed_fn listed,
				   gpointer user_data)
{
	PanelLedStore *self = g_object_new(PANEL_TYPE_LED_STORE, NULL);

	self->cancellable = g_object_ref(cancellable);
	self->listed = listed;
	self->listed_data = user_data;
	return self;
}

GListModel *panel_led_store_get_model(PanelLedStore *self)
{
	return G_LIST_MODEL(self->leds);
}
