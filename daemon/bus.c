// SPDX-License-Identifier: MIT
/* The D-Bus connection: LED objects exported on it, and a new connection after the bus restarts. */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "access.h"
#include "bus-api.h"
#include "bus-util.h"
#include "bus.h"
#include "led.h"
#include "log.h"
#include "uledsd-bus.h"
#include "manager.h"
#include "string-util.h"
#include "transient.h"

#define USEC_PER_MSEC 1000ULL
/* A connection lost before it was up (a dbus-daemon going down as we connected): the next
 * one waits this long, doubled each time up to RETRY_MAX_USEC. */
#define RETRY_FIRST_USEC (50 * USEC_PER_MSEC)
#define RETRY_MAX_USEC (5000 * USEC_PER_MSEC)
/* The kernel announces a trigger change only with a uevent, which does not reach the unit's
 * sandbox (a private network namespace owned by a private user namespace). Nearly every
 * change makes the LED core set a brightness (removing a trigger sets 0; a trigger that
 * starts sets a level or blinks), so a change of the LED is the cue to read its trigger
 * file this long after: at most two reads a second for an LED that keeps changing. */
#define TRIGGER_CHECK_USEC (500 * USEC_PER_MSEC)

struct bus {
	struct manager *manager;
	char *address; /* unix:path=...: sd-bus waits for that socket (watch-bind) */
	char *socket_path;
	/* The bus object: made, then waiting for the socket or connecting, then connected. It
	 * lives for one connection: after Disconnected, retry makes a new one. */
	sd_bus *bus;
	bool connected; /* Connected was seen: signals may be sent */
	sd_event_source *retry;
	unsigned tries;		/* connections lost before they were up, in a row */
	bool warned;		/* the "no bus" warning is given once */
	bool serving;		/* the name was ours: the next time is a reconnect */
	sd_event_source *defer; /* sends coalesced Backends changes (bus_led_backends_changed) */
};

struct bus_led {
	char *path;
	sd_bus_slot *slot; /* the exported object, NULL while there is no bus object */
	bool emits;	   /* exported with the vtable whose Brightness emits PropertiesChanged */
	bool backends_dirty;
	char *trigger;			/* the trigger last announced, NULL: none yet */
	sd_event_source *trigger_check; /* bus_led_trigger_maybe_changed()'s delayed look */
};

static const char *bus_kind_name(const struct bus *b)
{
	return b->manager->bus_kind == BUS_KIND_SESSION ? "session" : "system";
}

/* ---- LED objects ---------------------------------------------------------------------- */

/* (Re-)export l with the vtable that fits its backends. 1: exported anew. */
static int bus_led_export(struct bus *b, struct led *l)
{
	struct bus_led *bl = l->bus;
	bool emits = led_has_bus_signals(l);
	int r;

	if (!b->bus || (bl->slot && bl->emits == emits))
		return 0;
	bl->slot = sd_bus_slot_unref(bl->slot);
	bl->emits = emits;
	r = sd_bus_add_object_vtable(b->bus, &bl->slot, bl->path, ULEDSD_LED_IFACE,
				     emits ? bus_led_vtable_emits : bus_led_vtable_quiet, l);
	if (r < 0)
		return log_error_errno(r, "%s: failed to export %s on the bus: %m", l->name,
				       bl->path);
	return 1;
}

static void bus_led_free(struct led *l)
{
	struct bus_led *bl = l->bus;

	if (!bl)
		return;
	sd_bus_slot_unref(bl->slot);
	sd_event_source_disable_unref(bl->trigger_check);
	free(bl->trigger);
	free(bl->path);
	free(bl);
	l->bus = NULL;
}

static int bus_led_new(struct led *l)
{
	struct bus_led *bl;

	bl = calloc(1, sizeof(*bl));
	if (!bl || bus_led_path(l, &bl->path) < 0) {
		free(bl);
		return log_oom();
	}
	l->bus = bl;
	return 0;
}

static void bus_led_added(struct led *l)
{
	struct bus *b = led_manager(l)->bus;
	struct bus_led *bl;
	int r;

	if (!b || l->bus || bus_led_new(l) < 0)
		return;
	bl = l->bus;
	if (bus_led_export(b, l) > 0 && b->connected) {
		r = sd_bus_emit_object_added(b->bus, bl->path);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send InterfacesAdded: %m", l->name);
	}
}

static void bus_led_removed(struct led *l)
{
	struct bus *b = led_manager(l)->bus;
	struct bus_led *bl = l->bus;
	int r;

	if (!bl)
		return;
	if (b && b->connected && bl->slot) {
		r = sd_bus_emit_object_removed(b->bus, bl->path);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send InterfacesRemoved: %m", l->name);
	}
	bus_led_free(l);
}

static void bus_led_emit(struct led *l, const char *property, const char *also)
{
	struct bus *b = led_manager(l)->bus;
	struct bus_led *bl = l->bus;
	int r;

	/* Only the emits-change vtable may signal: a LED that just gained the dbus backend
	 * starts once the deferred re-export switched its vtable. Nothing is queued while
	 * there is no connection. */
	if (!b || !b->connected || !bl || !bl->slot || !bl->emits)
		return;
	r = sd_bus_emit_properties_changed(b->bus, bl->path, ULEDSD_LED_IFACE, property, also, NULL);
	if (r < 0)
		log_debug_errno(r, "%s: failed to send PropertiesChanged: %m", l->name);
}

static void bus_led_brightness_changed(struct led *l)
{
	/* A multicolour LED's change may be its channels alone: Color goes with every one. */
	bus_led_emit(l, "Brightness", l->n_channels ? "Color" : NULL);
}

static void bus_led_blink_changed(struct led *l)
{
	bus_led_emit(l, "Blink", NULL);
}

static void bus_led_trigger_check(struct led *l)
{
	struct bus_led *bl = l->bus;
	char *t = NULL;

	if (!bl || !bl->emits || led_current_trigger(l, &t) < 0)
		return;
	if (streq_ptr(bl->trigger, t)) {
		free(t);
		return;
	}
	free(bl->trigger);
	bl->trigger = t;
	bus_led_emit(l, "Trigger", NULL);
}

static int on_trigger_check(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	bus_led_trigger_check(userdata);
	return 0;
}

static void bus_led_trigger_maybe_changed(struct led *l)
{
	struct bus *b = led_manager(l)->bus;
	struct bus_led *bl = l->bus;
	int enabled = SD_EVENT_OFF, r;

	if (!b || !b->connected || !bl || !bl->emits)
		return;
	if (bl->trigger_check) {
		(void)sd_event_source_get_enabled(bl->trigger_check, &enabled);
		if (enabled != SD_EVENT_OFF)
			return; /* a look is due already */
		r = sd_event_source_set_time_relative(bl->trigger_check, TRIGGER_CHECK_USEC);
		if (r >= 0)
			r = sd_event_source_set_enabled(bl->trigger_check, SD_EVENT_ONESHOT);
	} else
		r = sd_event_add_time_relative(led_manager(l)->event, &bl->trigger_check,
					       CLOCK_MONOTONIC, TRIGGER_CHECK_USEC,
					       TRIGGER_CHECK_USEC / 4, on_trigger_check, l);
	if (r < 0)
		log_debug_errno(r, "%s: cannot schedule a look at the trigger: %m", l->name);
}

static void bus_led_backends_changed(struct led *l)
{
	struct bus *b = led_manager(l)->bus;
	struct bus_led *bl = l->bus;

	/* Called in the middle of led_update(), when the backends may be half replaced: note it,
	 * look at the LED later, from the event loop. */
	if (!b || !bl)
		return;
	bl->backends_dirty = true;
	(void)sd_event_source_set_enabled(b->defer, SD_EVENT_ONESHOT);
}

void bus_on_led_event(struct led *l, const struct led_event *ev, void *userdata _unused_)
{
	switch (ev->type) {
	case LED_EVENT_ADDED:
		bus_led_added(l);
		break;
	case LED_EVENT_REMOVED:
		bus_led_removed(l);
		break;
	case LED_EVENT_RECORD:
		bus_led_trigger_maybe_changed(l);
		break;
	case LED_EVENT_BLINK_CHANGED:
		bus_led_blink_changed(l);
		break;
	case LED_EVENT_BACKENDS_CHANGED:
		bus_led_backends_changed(l);
		break;
	case LED_EVENT_SIGNAL_BRIGHTNESS:
		bus_led_brightness_changed(l);
		break;
	case LED_EVENT_TRIGGER_SET:
		bus_led_trigger_check(l);
		break;
	default:
		break;
	}
}

void bus_manager_changed(struct manager *m, const char *property)
{
	struct bus *b = m->bus;
	int r;

	if (!b || !b->connected)
		return;
	r = sd_bus_emit_properties_changed(b->bus, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE, property, NULL);
	if (r < 0)
		log_debug_errno(r, "Failed to send PropertiesChanged for %s: %m", property);
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
		(void)bus_led_export(b, l); /* a signalling backend came or went: switch vtables */
		if (!b->connected)
			continue;
		r = sd_bus_emit_properties_changed(b->bus, bl->path, ULEDSD_LED_IFACE, "Backends", NULL);
		if (r < 0)
			log_debug_errno(r, "%s: failed to send PropertiesChanged: %m", l->name);
	}
	return 0;
}

/* ---- The connection ------------------------------------------------------------------- */

static void bus_retry_later(struct bus *b, uint64_t usec);

static int on_name_acquired(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error _unused_)
{
	struct bus *b = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	uint32_t ret = 0;

	if (e) {
		log_error("Failed to own %s on the %s bus: %s. Is the policy file %s.conf "
			  "installed in the bus's system.d directory?",
			  ULEDSD_BUS_NAME, bus_kind_name(b), e->message, ULEDSD_BUS_NAME);
		return 0;
	}
	(void)sd_bus_message_read(reply, "u", &ret);
	if (ret != 1 && ret != 4) { /* PRIMARY_OWNER, ALREADY_OWNER */
		log_error("Failed to own %s on the %s bus: another process has it (another "
			  "uledsd?). The LEDs work, but not over D-Bus.",
			  ULEDSD_BUS_NAME, bus_kind_name(b));
		return 0;
	}
	log_info("%s %s on the %s bus.", b->serving ? "Serving again" : "Serving", ULEDSD_BUS_NAME,
		 bus_kind_name(b));
	b->serving = true;
	return 0;
}

static int on_connected(sd_bus_message *msg _unused_, void *userdata,
			sd_bus_error *ret_error _unused_)
{
	struct bus *b = userdata;

	log_debug("Connected to the %s bus.", bus_kind_name(b));
	b->connected = true;
	b->tries = 0;
	return 0;
}

static int on_disconnected(sd_bus_message *msg _unused_, void *userdata,
			   sd_bus_error *ret_error _unused_)
{
	struct bus *b = userdata;
	uint64_t delay = 0;

	if (b->connected)
		log_warning(
		    "Lost the connection to the %s bus (dbus-daemon stopped or restarted?); the "
		    "LEDs keep working, uledsd reconnects when the bus is back.",
		    bus_kind_name(b));
	else {
		/* Refused before it was up: don't spin on a bus that is going down. */
		delay = RETRY_FIRST_USEC << (b->tries < 7 ? b->tries : 7);
		delay = delay < RETRY_MAX_USEC ? delay : RETRY_MAX_USEC;
		b->tries++;
		log_debug("The %s bus closed the connection before it was up; again in %llu ms.",
			  bus_kind_name(b), (unsigned long long)(delay / USEC_PER_MSEC));
	}
	b->connected = false;
	/* Not here: this runs inside the dying bus object. The retry timer drops it. */
	bus_retry_later(b, delay);
	return 0;
}

/* Forget the bus object: objects, name, matches go with it; the LEDs keep their paths. */
static void bus_drop(struct bus *b)
{
	struct manager *m = b->manager;

	/* Their creators' connections went with the bus (and their tracks hold the bus object). */
	transient_bus_lost(m);
	access_free_all(m);

	for (size_t i = 0; i < m->n_leds; i++) {
		struct bus_led *bl = m->leds[i]->bus;

		if (bl)
			bl->slot = sd_bus_slot_unref(bl->slot);
	}
	b->bus = sd_bus_flush_close_unref(b->bus);
	b->connected = false;
}

/* A new bus object that connects when the socket is there (now or later: watch-bind). Only
 * asynchronous calls until Connected: they wait in its queue. */
static int bus_new(struct bus *b, sd_bus **ret)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = sd_bus_new(&bus);
	if (r < 0)
		return r;
	(void)sd_bus_set_description(bus, "uledsd");
	r = sd_bus_set_address(bus, b->address);
	if (r >= 0)
		r = sd_bus_set_bus_client(bus, true);
	if (r >= 0)
		r = sd_bus_negotiate_creds(bus, true, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID);
	if (r >= 0)
		r = sd_bus_set_watch_bind(bus, true);
	if (r >= 0)
		r = sd_bus_set_connected_signal(bus, true);
	/* A bus that goes away must not take the LEDs with it: no exit, a new connection. */
	if (r >= 0)
		r = sd_bus_set_exit_on_disconnect(bus, false);
	if (r >= 0)
		r = sd_bus_start(bus);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(bus);
	return 0;
}

static int bus_setup(struct bus *b, sd_bus *bus)
{
	struct manager *m = b->manager;
	int r;

	r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0)
		r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus.Local", NULL,
					      "org.freedesktop.DBus.Local", "Connected",
					      on_connected, NULL, b);
	if (r >= 0)
		r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus.Local", NULL,
					      "org.freedesktop.DBus.Local", "Disconnected",
					      on_disconnected, NULL, b);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE,
					     bus_manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_object_manager(bus, NULL, ULEDSD_MANAGER_PATH);
	return r;
}

static int bus_connect(struct bus *b)
{
	struct manager *m = b->manager;
	int r;

	bus_drop(b);
	r = bus_new(b, &b->bus);
	if (r >= 0)
		r = bus_setup(b, b->bus);
	if (r < 0) {
		bus_drop(b);
		return r;
	}
	for (size_t i = 0; i < m->n_leds; i++)
		if (m->leds[i]->bus)
			(void)bus_led_export(b, m->leds[i]);
	/* Objects first, then the name: whoever sees the name finds everything in place. */
	r = sd_bus_request_name_async(b->bus, NULL, ULEDSD_BUS_NAME, 0, on_name_acquired, b);
	if (r < 0)
		bus_drop(b);
	return r;
}

/* A session bus is what a developer or a test wants without root's system bus: say how. */
#define SESSION_BUS_HOWTO                                                                          \
	" To run uledsd with a session bus of its own: dbus-run-session -- uledsd --bus "          \
	"session ...; or set DBUS_SESSION_BUS_ADDRESS to the address of a running one."

/* Connect, or wait for the bus: the warning when there is none is given once. */
static void bus_try(struct bus *b)
{
	int r;

	r = bus_connect(b);
	if (r < 0) {
		log_warning_errno(
		    r, "Failed to connect to the %s bus (%s): %m; trying again in %llu s.",
		    bus_kind_name(b), b->address,
		    (unsigned long long)(RETRY_MAX_USEC / (1000 * USEC_PER_MSEC)));
		bus_retry_later(b, RETRY_MAX_USEC);
		return;
	}
	if (!b->warned && access(b->socket_path, F_OK) < 0) {
		log_warning_errno(errno,
				  "No D-Bus %s bus (%s: %m); the LEDs work without it, uledsd "
				  "attaches to the bus when it appears.%s",
				  bus_kind_name(b), b->socket_path,
				  b->manager->bus_kind == BUS_KIND_SESSION ? SESSION_BUS_HOWTO
									   : "");
		b->warned = true;
	}
}

static int on_retry(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	bus_try(userdata);
	return 0;
}

static void bus_retry_later(struct bus *b, uint64_t usec)
{
	int r;

	if (!b->retry) {
		r = sd_event_add_time_relative(b->manager->event, &b->retry, CLOCK_MONOTONIC, usec,
					       0, on_retry, b);
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

/* The bus address (the environment's, else the default) and the socket it names. Only a
 * socket path can be waited for: any other address is refused with an error that says so. */
static int bus_address(struct bus *b)
{
	bool session = b->manager->bus_kind == BUS_KIND_SESSION;
	const char *var = session ? "DBUS_SESSION_BUS_ADDRESS" : "DBUS_SYSTEM_BUS_ADDRESS";
	const char *a = getenv(var), *rt = getenv("XDG_RUNTIME_DIR");
	int r = 0;

	if (a)
		b->address = strdup(a);
	else if (!session)
		b->address = strdup("unix:path=/run/dbus/system_bus_socket");
	else if (!rt || rt[0] != '/')
		return log_error_errno(EADDRNOTAVAIL,
				       "No session bus: neither DBUS_SESSION_BUS_ADDRESS nor "
				       "XDG_RUNTIME_DIR is set (not in a login session); the LEDs "
				       "work without D-Bus.%s Or use --bus none.",
				       SESSION_BUS_HOWTO);
	else
		r = asprintf(&b->address, "unix:path=%s/bus", rt);
	if (r < 0 || !b->address)
		return log_oom();
	if (strncmp(b->address, "unix:path=", 10) != 0 || strchr(b->address, ';'))
		return log_error_errno(
		    EAFNOSUPPORT,
		    "D-Bus address '%s' is not one unix:path= socket; uledsd waits for and "
		    "reconnects to a socket path only. Set %s=unix:path=/PATH, or use --bus none.",
		    b->address, var);
	b->socket_path = strndup(b->address + 10, strcspn(b->address + 10, ","));
	return b->socket_path ? 0 : log_oom();
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
	m->bus = b;
	r = bus_address(b);
	if (r < 0) {
		bus_stop(m); /* the LEDs work, without D-Bus */
		return r;
	}
	r = sd_event_add_defer(m->event, &b->defer, on_defer, b);
	if (r < 0) {
		bus_stop(m);
		return log_error_errno(r, "Failed to set up the D-Bus side: %m");
	}
	(void)sd_event_source_set_description(b->defer, "bus-backends-changed");
	(void)sd_event_source_set_enabled(b->defer, SD_EVENT_OFF);
	/* The LEDs that exist already are exported before the name is requested: a client sees
	 * the name with every object in place, and no InterfacesAdded flood is built for them. */
	for (size_t i = 0; i < m->n_leds; i++)
		if (!m->leds[i]->bus)
			(void)bus_led_new(m->leds[i]);
	bus_try(b);
	return 0;
}

void bus_stop(struct manager *m)
{
	struct bus *b = m->bus;

	if (!b)
		return;
	access_free_all(m);
	/* The daemon exits: the name goes with the connection, no InterfacesRemoved per LED. */
	for (size_t i = 0; i < m->n_leds; i++)
		bus_led_free(m->leds[i]);
	b->bus = sd_bus_flush_close_unref(b->bus);
	sd_event_source_disable_unref(b->retry);
	sd_event_source_disable_unref(b->defer);
	free(b->address);
	free(b->socket_path);
	free(b);
	m->bus = NULL;
}
