// SPDX-License-Identifier: MIT
/* The D-Bus API io.uledsd1 (see uledsd-dbus(7)): vtables, and a connection that outlives the bus. */
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "backend.h"
#include "bus.h"
#include "led.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

#define BUS_NAME "io.uledsd1"
#define MANAGER_PATH "/io/uledsd1"
#define LED_PATH_PREFIX "/io/uledsd1/led"
#define MANAGER_IFACE "io.uledsd1.Manager"
#define LED_IFACE "io.uledsd1.LED"
#define ERROR_UNKNOWN_LED "io.uledsd1.Error.UnknownLED"
#define ERROR_UNKNOWN_TRIGGER "io.uledsd1.Error.UnknownTrigger"

#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL
/* A socket that exists but refuses (dbus-daemon between bind() and listen(), or a stale file):
 * retry a few times with backoff, then rely on inotify again (a new daemon re-creates it). */
#define RETRY_FIRST_USEC (50 * USEC_PER_MSEC)
#define RETRY_MAX_TRIES 10
/* An address with no socket path to watch (tcp:, abstract sockets): the last resort. */
#define RETRY_SLOW_USEC (10 * USEC_PER_SEC)

struct bus {
	struct manager *manager;
	sd_bus *bus;       /* NULL while there is no connection */
	char *socket_path; /* the unix socket of the bus address, NULL when it has none */
	sd_event_source *watch; /* inotify on the nearest existing directory on the way to it */
	char *watch_dir;
	sd_event_source *retry; /* timer: reconnect after a disconnect, backoff, slow retry */
	unsigned tries;
	bool lost;    /* the connection went away: drop it before reconnecting */
	bool warned;  /* the "no bus" warning is given once */
	bool serving; /* the name is ours: the next connection logs as a reconnect */
	sd_event_source *defer; /* sends coalesced Backends changes (bus_led_backends_changed) */
};

struct bus_led {
	char *path;
	sd_bus_slot *slot; /* the exported object, NULL while disconnected */
	bool emits;        /* exported with the vtable whose Brightness emits PropertiesChanged */
	bool backends_dirty;
};

static const char *bus_kind_name(const struct bus *b)
{
	return b->manager->bus_kind == BUS_KIND_SESSION ? "session" : "system";
}

/* The caller's effective uid as dbus-daemon saw it on the socket (never the racy /proc). */
static int check_root(sd_bus_message *msg, sd_bus_error *error)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	uid_t euid;
	int r;

	r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds);
	if (r < 0)
		return r;
	if (!(sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID) &&
	    sd_bus_creds_get_euid(creds, &euid) >= 0 && euid == 0)
		return 0;
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
				 "%s.%s() changes state and is allowed for root only; run it as root (sudo busctl ...).",
				 sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg));
}

static bool led_has_dbus_backend(const struct led *l)
{
	for (size_t i = 0; i < l->n_backends; i++)
		if (streq(l->backends[i]->ops->name, "dbus"))
			return true;
	return false;
}

/* ---- io.uledsd1.LED ------------------------------------------------------------------- */

static int property_get_trigger(sd_bus *bus _unused_, const char *path _unused_,
				const char *iface _unused_, const char *property _unused_,
				sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	_cleanup_free_ char *t = NULL;
	int r;

	r = led_current_trigger(l, &t);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to read %s/trigger: %m", l->sysfs);
	return sd_bus_message_append(reply, "s", t);
}

static int property_get_backends(sd_bus *bus _unused_, const char *path _unused_,
				 const char *iface _unused_, const char *property _unused_,
				 sd_bus_message *reply, void *userdata, sd_bus_error *error _unused_)
{
	struct led *l = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(sbs)");
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_backends; i++) {
		struct led_backend *be = l->backends[i];

		r = sd_bus_message_append(reply, "(sbs)", be->ops->name, be->ok,
					  be->state ? be->state : "");
		if (r < 0)
			return r;
	}
	return sd_bus_message_close_container(reply);
}

static int method_set_brightness(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	char buf[16];
	uint32_t v;
	int r;

	r = sd_bus_message_read(msg, "u", &v);
	if (r < 0)
		return r;
	r = check_root(msg, error);
	if (r < 0)
		return r;
	if (v > l->max_brightness)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Brightness %u is out of range for LED '%s': use 0 to %u (MaxBrightness).",
					 v, l->name, l->max_brightness);
	/* Through sysfs, as any other writer: the LED core (triggers) and uleds see it. */
	snprintf(buf, sizeof(buf), "%u", v);
	r = led_write_attr(l, "brightness", buf);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Failed to write %s/brightness: %s.",
					 l->sysfs, strerror(-r));
	return sd_bus_reply_method_return(msg, NULL);
}

static int method_set_trigger(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	const char *t;
	int r;

	r = sd_bus_message_read(msg, "s", &t);
	if (r < 0)
		return r;
	r = check_root(msg, error);
	if (r < 0)
		return r;
	if (!*t || strlen(t) > 63 || strpbrk(t, " \t\n[]"))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "'%s' is not a trigger name; see %s/trigger for the available ones.",
					 t, l->sysfs);
	r = led_write_attr(l, "trigger", t);
	/* The LED core answers EINVAL for a trigger it does not know. */
	if (r == -EINVAL)
		return sd_bus_error_setf(error, ERROR_UNKNOWN_TRIGGER,
					 "Trigger '%s' is not available for LED '%s' (%s/trigger lists those that are); if it comes from a module, load it: modprobe ledtrig-%s.",
					 t, l->name, l->sysfs, t);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Failed to write %s/trigger: %s.",
					 l->sysfs, strerror(-r));
	return sd_bus_reply_method_return(msg, NULL);
}

/* Two vtables for one interface: introspection tells which LEDs send Brightness changes (those
 * with the dbus backend). Trigger has no signal: the kernel announces no trigger changes. */
#define LED_VTABLE(brightness_flags)                                                               \
	{                                                                                          \
		SD_BUS_VTABLE_START(0),                                                            \
		SD_BUS_PROPERTY("Name", "s", NULL, offsetof(struct led, name),                     \
				SD_BUS_VTABLE_PROPERTY_CONST),                                     \
		SD_BUS_PROPERTY("Brightness", "u", NULL, offsetof(struct led, brightness),         \
				brightness_flags),                                                 \
		SD_BUS_PROPERTY("MaxBrightness", "u", NULL, offsetof(struct led, max_brightness),  \
				SD_BUS_VTABLE_PROPERTY_CONST),                                     \
		SD_BUS_PROPERTY("Trigger", "s", property_get_trigger, 0, 0),                       \
		SD_BUS_PROPERTY("Backends", "a(sbs)", property_get_backends, 0,                    \
				SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),                              \
		SD_BUS_METHOD_WITH_ARGS("SetBrightness", SD_BUS_ARGS("u", brightness),             \
					SD_BUS_NO_RESULT, method_set_brightness,                   \
					SD_BUS_VTABLE_UNPRIVILEGED),                               \
		SD_BUS_METHOD_WITH_ARGS("SetTrigger", SD_BUS_ARGS("s", trigger), SD_BUS_NO_RESULT, \
					method_set_trigger, SD_BUS_VTABLE_UNPRIVILEGED),           \
		SD_BUS_VTABLE_END                                                                  \
	}

static const sd_bus_vtable led_vtable_emits[] = LED_VTABLE(SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE);
static const sd_bus_vtable led_vtable_quiet[] = LED_VTABLE(0);

/* ---- io.uledsd1.Manager --------------------------------------------------------------- */

static int property_get_version(sd_bus *bus _unused_, const char *path _unused_,
				const char *iface _unused_, const char *property _unused_,
				sd_bus_message *reply, void *userdata _unused_,
				sd_bus_error *error _unused_)
{
	return sd_bus_message_append(reply, "s", PROJECT_VERSION);
}

static int led_path(const struct led *l, char **ret)
{
	const struct bus_led *bl = l->bus;

	if (bl) {
		*ret = strdup(bl->path);
		return *ret ? 0 : -ENOMEM;
	}
	return sd_bus_path_encode(LED_PATH_PREFIX, l->name, ret);
}

static int method_list_leds(sd_bus_message *msg, void *userdata, sd_bus_error *error _unused_)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct manager *m = userdata;
	int r;

	r = sd_bus_message_new_method_return(msg, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "(so)");
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_leds; i++) {
		_cleanup_free_ char *path = NULL;

		r = led_path(m->leds[i], &path);
		if (r < 0)
			return r;
		r = sd_bus_message_append(reply, "(so)", m->leds[i]->name, path);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

static int method_get_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL;
	struct manager *m = userdata;
	const char *name;
	struct led *l;
	int r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	l = manager_find_led(m, name);
	if (!l)
		return sd_bus_error_setf(error, ERROR_UNKNOWN_LED,
					 "No LED named '%s' is managed by uledsd; ListLEDs() lists those that are.",
					 name);
	r = led_path(l, &path);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(msg, "o", path);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_strv_free_ char **errors = NULL;
	struct manager *m = userdata;
	int r;

	r = check_root(msg, error);
	if (r < 0)
		return r;
	/* Synchronous: the reply goes out once the new configuration is in effect (ExecReload=). */
	r = manager_reload(m, &errors);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Reload failed: %s.", strerror(-r));
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_append_strv(reply, errors);
	if (r < 0)
		return r;
	r = sd_bus_send(NULL, reply, NULL);
	/* > 0: handled. The reload re-exported objects, so sd-bus must not dispatch this again. */
	return r < 0 ? r : 1;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_METHOD_WITH_ARGS("ListLEDs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(so)", leds),
				method_list_leds, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetLED", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", led),
				method_get_led, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", errors),
				method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* ---- LED objects ---------------------------------------------------------------------- */

static int bus_led_export(struct bus *b, struct led *l)
{
	struct bus_led *bl = l->bus;
	bool emits = led_has_dbus_backend(l);
	int r;

	if (!b->bus || (bl->slot && bl->emits == emits))
		return 0;
	bl->slot = sd_bus_slot_unref(bl->slot);
	bl->emits = emits;
	r = sd_bus_add_object_vtable(b->bus, &bl->slot, bl->path, LED_IFACE,
				     emits ? led_vtable_emits : led_vtable_quiet, l);
	if (r < 0)
		return log_error_errno(r, "%s: failed to export %s on the bus: %m", l->name, bl->path);
	return 1;
}

static int bus_led_new(struct led *l)
{
	struct bus_led *bl;

	bl = calloc(1, sizeof(*bl));
	if (!bl || sd_bus_path_encode(LED_PATH_PREFIX, l->name, &bl->path) < 0) {
		free(bl);
		return log_oom();
	}
	l->bus = bl;
	return 0;
}

void bus_led_added(struct led *l)
{
	struct bus *b = l->manager->bus;
	struct bus_led *bl;
	int r;

	if (!b || l->bus || bus_led_new(l) < 0)
		return;
	bl = l->bus;
	if (bus_led_export(b, l) > 0) {
		r = sd_bus_emit_object_added(b->bus, bl->path);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send InterfacesAdded: %m", l->name);
	}
}

void bus_led_removed(struct led *l)
{
	struct bus *b = l->manager->bus;
	struct bus_led *bl = l->bus;
	int r;

	if (!bl)
		return;
	if (b && b->bus && bl->slot) {
		r = sd_bus_emit_object_removed(b->bus, bl->path);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send InterfacesRemoved: %m", l->name);
	}
	sd_bus_slot_unref(bl->slot);
	free(bl->path);
	free(bl);
	l->bus = NULL;
}

void bus_led_brightness_changed(struct led *l)
{
	struct bus *b = l->manager->bus;
	struct bus_led *bl = l->bus;
	int r;

	/* Only the emits-change vtable may signal: a LED that just gained the dbus backend
	 * starts once the deferred re-export switched its vtable. */
	if (!b || !b->bus || !bl || !bl->slot || !bl->emits)
		return;
	r = sd_bus_emit_properties_changed(b->bus, bl->path, LED_IFACE, "Brightness", NULL);
	if (r < 0)
		log_debug_errno(r, "%s: failed to send PropertiesChanged: %m", l->name);
}

void bus_led_backends_changed(struct led *l)
{
	struct bus *b = l->manager->bus;
	struct bus_led *bl = l->bus;

	/* Called in the middle of led_update(), when l->backends may be half replaced: note it,
	 * look at the LED later, from the event loop. */
	if (!b || !bl)
		return;
	bl->backends_dirty = true;
	(void)sd_event_source_set_enabled(b->defer, SD_EVENT_ONESHOT);
}

static int on_defer(sd_event_source *s _unused_, void *userdata)
{
	struct bus *b = userdata;
	struct manager *m = b->manager;
	int r;

	for (size_t i = 0; i < m->n_leds; i++) {
		struct led *l = m->leds[i];
		struct bus_led *bl = l->bus;

		if (!bl || !bl->backends_dirty)
			continue;
		bl->backends_dirty = false;
		if (!b->bus)
			continue;
		(void)bus_led_export(b, l); /* the dbus backend came or went: switch vtables */
		r = sd_bus_emit_properties_changed(b->bus, bl->path, LED_IFACE, "Backends", NULL);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send PropertiesChanged: %m", l->name);
	}
	return 0;
}

/* ---- The connection ------------------------------------------------------------------- */

static void bus_wait(struct bus *b, int error);

static int on_name_acquired(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error _unused_)
{
	struct bus *b = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	uint32_t ret = 0;

	if (e) {
		log_error("Failed to own %s on the %s bus: %s. Is the policy file %s.conf installed in the bus's system.d directory?",
			  BUS_NAME, bus_kind_name(b), e->message, BUS_NAME);
		return 0;
	}
	(void)sd_bus_message_read(reply, "u", &ret);
	if (ret != 1 && ret != 4) { /* PRIMARY_OWNER, ALREADY_OWNER */
		log_error("Failed to own %s on the %s bus: another process has it (another uledsd?). The LEDs work, but not over D-Bus.",
			  BUS_NAME, bus_kind_name(b));
		return 0;
	}
	log_info("%s %s on the %s bus.", b->serving ? "Serving again" : "Serving", BUS_NAME,
		 bus_kind_name(b));
	b->serving = true;
	return 0;
}

static int on_disconnected(sd_bus_message *msg _unused_, void *userdata,
			   sd_bus_error *ret_error _unused_)
{
	struct bus *b = userdata;

	log_warning("Lost the connection to the %s bus (dbus-daemon stopped or restarted?); the LEDs keep working, uledsd reconnects when the bus is back.",
		    bus_kind_name(b));
	/* Not here: this runs inside the dying connection. The retry timer drops it. */
	b->lost = true;
	b->tries = 0;
	bus_wait(b, 0);
	return 0;
}

/* Forget the connection: objects, name, matches go with it; the LEDs keep their paths. */
static void bus_drop(struct bus *b)
{
	struct manager *m = b->manager;

	for (size_t i = 0; i < m->n_leds; i++) {
		struct bus_led *bl = m->leds[i]->bus;

		if (bl)
			bl->slot = sd_bus_slot_unref(bl->slot);
	}
	b->bus = sd_bus_flush_close_unref(b->bus);
	b->lost = false;
}

static int bus_connect(struct bus *b)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	struct manager *m = b->manager;
	int r;

	r = m->bus_kind == BUS_KIND_SESSION ? sd_bus_open_user(&bus) : sd_bus_open_system(&bus);
	if (r < 0)
		return r;
	(void)sd_bus_set_description(bus, "uledsd");
	/* A bus that goes away must not take the LEDs with it: no exit, reconnect instead. */
	r = sd_bus_set_exit_on_disconnect(bus, false);
	if (r < 0)
		return r;
	r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0)
		return r;
	r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus.Local",
				      "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
				      "Disconnected", on_disconnected, NULL, b);
	if (r < 0)
		return r;
	r = sd_bus_add_object_vtable(bus, NULL, MANAGER_PATH, MANAGER_IFACE, manager_vtable, m);
	if (r < 0)
		return r;
	r = sd_bus_add_object_manager(bus, NULL, MANAGER_PATH);
	if (r < 0)
		return r;
	b->bus = bus; /* borrowed while the LED objects are exported */
	for (size_t i = 0; i < m->n_leds; i++)
		if (m->leds[i]->bus)
			(void)bus_led_export(b, m->leds[i]);
	/* Objects first, then the name: whoever sees the name finds everything in place. */
	r = sd_bus_request_name_async(bus, NULL, BUS_NAME, 0, on_name_acquired, b);
	b->bus = TAKE_PTR(bus);
	if (r < 0) {
		bus_drop(b);
		return r;
	}
	b->watch = sd_event_source_disable_unref(b->watch);
	free(b->watch_dir);
	b->watch_dir = NULL;
	(void)sd_event_source_set_enabled(b->retry, SD_EVENT_OFF);
	b->tries = 0;
	return 0;
}

static int bus_try(struct bus *b)
{
	int r;

	if (b->lost)
		bus_drop(b);
	if (b->bus)
		return 0;
	r = bus_connect(b);
	if (r < 0)
		bus_wait(b, r);
	return r;
}

static int on_retry(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	(void)bus_try(userdata);
	return 0;
}

static int on_inotify(sd_event_source *s _unused_, const struct inotify_event *ev, void *userdata)
{
	struct bus *b = userdata;

	/* Something appeared on the way to the socket (or the watched directory went away). */
	if (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
		b->tries = 0;
		if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
			free(b->watch_dir);
			b->watch_dir = NULL;
		}
		(void)bus_try(b);
	}
	return 0;
}

/* Watch the nearest existing directory on the way to the socket: /run/dbus, or /run when
 * /run/dbus does not exist yet. */
static int bus_watch(struct bus *b)
{
	_cleanup_free_ char *dir = strdup(b->socket_path);
	sd_event_source *s;
	struct stat st;
	char *slash;
	int r;

	if (!dir)
		return -ENOMEM;
	do {
		slash = strrchr(dir, '/');
		if (!slash)
			return -ENOENT;
		if (slash == dir)
			slash[1] = 0;
		else
			*slash = 0;
	} while (stat(dir, &st) < 0 && !streq(dir, "/"));
	if (b->watch && b->watch_dir && streq(b->watch_dir, dir))
		return 0;
	r = sd_event_add_inotify(b->manager->event, &s, dir,
				 IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR,
				 on_inotify, b);
	if (r < 0)
		return r;
	(void)sd_event_source_set_description(s, "bus-socket-watch");
	sd_event_source_disable_unref(b->watch);
	b->watch = s;
	free(b->watch_dir);
	b->watch_dir = TAKE_PTR(dir);
	log_debug("Waiting for %s (watching %s).", b->socket_path, b->watch_dir);
	return 0;
}

static void bus_arm_retry(struct bus *b, uint64_t usec)
{
	int r;

	if (!b->retry) {
		r = sd_event_add_time_relative(b->manager->event, &b->retry, CLOCK_MONOTONIC, usec, 0,
					       on_retry, b);
		if (r < 0) {
			log_warning_errno(r, "Failed to arm the bus retry timer, ignoring: %m");
			return;
		}
		(void)sd_event_source_set_description(b->retry, "bus-retry");
		return;
	}
	(void)sd_event_source_set_time_relative(b->retry, usec);
	(void)sd_event_source_set_enabled(b->retry, SD_EVENT_ONESHOT);
}

/* No connection (error < 0: why; 0: just lost). Watch for the socket, retry when it shows. */
static void bus_wait(struct bus *b, int error)
{
	struct stat st;

	if (error == 0) {
		bus_arm_retry(b, 0); /* drop the dead connection and try at once */
		return;
	}
	if (!b->warned) {
		log_warning_errno(error, "No D-Bus %s bus (%s: %m); the LEDs work without it, uledsd attaches to the bus when it appears.",
				  bus_kind_name(b), b->socket_path ? b->socket_path : "its address");
		b->warned = true;
	} else
		log_debug_errno(error, "Connecting to the %s bus failed: %m", bus_kind_name(b));
	if (!b->socket_path || bus_watch(b) < 0) {
		bus_arm_retry(b, RETRY_SLOW_USEC);
		return;
	}
	/* The socket is there but refuses: dbus-daemon may be between bind() and listen(). */
	if (stat(b->socket_path, &st) >= 0 && b->tries < RETRY_MAX_TRIES) {
		bus_arm_retry(b, RETRY_FIRST_USEC << b->tries);
		b->tries++;
	}
}

/* The socket sd-bus will connect to, when the address names one ("unix:path=..."). */
static char *bus_socket_path(enum bus_kind kind)
{
	const char *a = getenv(kind == BUS_KIND_SESSION ? "DBUS_SESSION_BUS_ADDRESS"
							: "DBUS_SYSTEM_BUS_ADDRESS");
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char *p;

	if (!a && kind == BUS_KIND_SYSTEM)
		return strdup("/run/dbus/system_bus_socket");
	if (!a) {
		if (!rt || rt[0] != '/' || asprintf(&p, "%s/bus", rt) < 0)
			return NULL;
		return p;
	}
	if (strncmp(a, "unix:path=", 10) != 0 || strchr(a, ';') || strchr(a, '%'))
		return NULL;
	a += 10;
	return strndup(a, strcspn(a, ","));
}

int bus_start(struct manager *m)
{
	struct bus *b;
	int r;

	if (m->bus_kind == BUS_KIND_NONE || m->bus)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return log_oom();
	b->manager = m;
	b->socket_path = bus_socket_path(m->bus_kind);
	r = sd_event_add_defer(m->event, &b->defer, on_defer, b);
	if (r < 0) {
		free(b->socket_path);
		free(b);
		return log_error_errno(r, "Failed to set up the D-Bus side: %m");
	}
	(void)sd_event_source_set_description(b->defer, "bus-backends-changed");
	(void)sd_event_source_set_enabled(b->defer, SD_EVENT_OFF);
	m->bus = b;
	/* The LEDs that exist already are exported before the name is requested: a client sees
	 * the name with every object in place, and no InterfacesAdded flood is built for them. */
	for (size_t i = 0; i < m->n_leds; i++)
		if (!m->leds[i]->bus)
			(void)bus_led_new(m->leds[i]);
	(void)bus_try(b);
	return 0;
}

void bus_stop(struct manager *m)
{
	struct bus *b = m->bus;

	if (!b)
		return;
	/* The daemon exits: the name goes with the connection, no InterfacesRemoved per LED. */
	for (size_t i = 0; i < m->n_leds; i++) {
		struct bus_led *bl = m->leds[i]->bus;

		if (!bl)
			continue;
		sd_bus_slot_unref(bl->slot);
		free(bl->path);
		free(bl);
		m->leds[i]->bus = NULL;
	}
	b->bus = sd_bus_flush_close_unref(b->bus);
	sd_event_source_disable_unref(b->watch);
	sd_event_source_disable_unref(b->retry);
	sd_event_source_disable_unref(b->defer);
	free(b->watch_dir);
	free(b->socket_path);
	free(b);
	m->bus = NULL;
}
