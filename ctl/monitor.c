// SPDX-License-Identifier: MIT
/* uledsctl monitor: a line per change, and on a terminal a lamp row redrawn in place. */
#include <errno.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

/* Brightness of an LED without the dbus backend sends no PropertiesChanged (uledsd-dbus(7)):
 * those LEDs are asked this often instead. */
#define POLL_USEC (250ULL * 1000ULL)

struct monitor {
	struct ctl *c;
	sd_event *event;
	char **names; /* NAME... filter; none: every LED */
	size_t n_names;
	struct ctl_led *leds; /* sorted by name, only those that pass the filter */
	size_t n_leds;
	char *owner;	  /* unique name owning io.uledsd1; NULL while uledsd is away */
	unsigned pending; /* Brightness polls in flight */
	bool row;	  /* the lamp row is on screen */
	int exit_code;
};

static bool wanted(const struct monitor *m, const char *name)
{
	if (m->n_names == 0)
		return true;
	for (size_t i = 0; i < m->n_names; i++)
		if (streq(m->names[i], name))
			return true;
	return false;
}

static struct ctl_led *find(struct monitor *m, const char *path)
{
	for (size_t i = 0; i < m->n_leds; i++)
		if (streq(m->leds[i].path, path))
			return &m->leds[i];
	return NULL;
}

static void row_clear(struct monitor *m)
{
	if (m->row)
		fputs("\r\033[K", stdout);
	m->row = false;
}

/* One line, cut to the terminal's width: a lamp an LED, in list order. */
static void row_draw(struct monitor *m)
{
	struct winsize ws = {0};
	size_t cols = 80, used = 0;

	if (!m->c->tty || m->c->json)
		return;
	row_clear(m);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	if (!m->owner)
		used = (size_t)printf("%s(uledsd is away)%s", ctl_ansi(m->c, ANSI_DIM),
				      ctl_ansi(m->c, ANSI_RESET));
	for (size_t i = 0; m->owner && i < m->n_leds; i++) {
		if (used + 3 >= cols) {
			fputs("…", stdout);
			break;
		}
		fputs(i ? " " : "", stdout);
		ctl_lamp(m->c, stdout, &m->leds[i]);
		used += i ? 2 : 1;
	}
	fflush(stdout);
	m->row = true;
}

/* --json: one object a line, {"time", "event", "name", "led"}; "led" is the LED's state after
 * the change as list --json gives it (none when it is gone, or for uledsd's own events). */
static void say_json(const char *event, const char *name, const struct ctl_led *l,
		     const struct timespec *ts, const struct tm *tm)
{
	struct json j = {.f = stdout};
	char when[64], zone[8];

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", tm);
	strftime(zone, sizeof(zone), "%z", tm); /* +0100 -> +01:00, as ISO 8601 writes it */
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ld%.3s:%s",
		 ts->tv_nsec / 1000000, zone, zone + 3);
	json_begin(&j, '{');
	json_field_string(&j, "time", when);
	json_field_string(&j, "event", event);
	if (name)
		json_field_string(&j, "name", name);
	if (l) {
		json_key(&j, "led");
		json_led(&j, l);
	}
	json_end(&j, '}');
}

/* One event: EVENT ("brightness", "added", "uledsd-away"...) of LED NAME (NULL: uledsd's own),
 * L its state after it, if it still has one. As text "12:34:56.789 NAME what" (the row makes
 * way for the line and comes back under it), with --json an object (say_json). */
_printf_(5, 6) static void say(struct monitor *m, const char *event, const char *name,
			       const struct ctl_led *l, const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	if (m->c->json) {
		say_json(event, name, l, &ts, &tm);
		return;
	}
	row_clear(m);
	printf("%s%02d:%02d:%02d.%03ld%s %s ", ctl_ansi(m->c, ANSI_DIM), tm.tm_hour, tm.tm_min,
	       tm.tm_sec, ts.tv_nsec / 1000000, ctl_ansi(m->c, ANSI_RESET), name ? name : "uledsd");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	row_draw(m);
	fflush(stdout);
}

static char *describe_backends(const struct ctl_led *l)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < l->n_backends; i++)
		fprintf(f, "%s%s: %s%s", i ? ", " : "", l->backends[i].name, l->backends[i].status,
			l->backends[i].ok ? "" : " (failing)");
	if (l->n_backends == 0)
		fputs("none", f);
	fclose(f);
	return s;
}

static void say_led(struct monitor *m, const struct ctl_led *l, const char *verb)
{
	_cleanup_free_ char *b = describe_backends(l), *color = ctl_color_text(l, " ", ", ");

	say(m, verb, l->name, l, "%s: brightness %u/%u%s%s, trigger %s, backends %s", verb, l->brightness,
	    l->max_brightness, color ? ", color " : "", color ? color : "",
	    l->trigger ? l->trigger : "?", b ? b : "?");
}

static void add_led(struct monitor *m, struct ctl_led *l, const char *verb)
{
	struct ctl_led *t;

	if (!l->name || !wanted(m, l->name) || find(m, l->path)) {
		ctl_led_clear(l);
		return;
	}
	t = realloc(m->leds, (m->n_leds + 1) * sizeof(*t));
	if (!t) {
		ctl_led_clear(l);
		return;
	}
	m->leds = t;
	m->leds[m->n_leds++] = *l;
	ctl_leds_sort(m->leds, m->n_leds);
	for (size_t i = 0; i < m->n_leds; i++)
		if (streq(m->leds[i].path, l->path))
			say_led(m, &m->leds[i], verb);
	*l = (struct ctl_led){0};
}

static void drop_leds(struct monitor *m)
{
	ctl_leds_free(m->leds, m->n_leds);
	m->leds = NULL;
	m->n_leds = 0;
}

/* uledsd (re)appeared: who owns the name, and every LED with its state, announced as HOW
 * ("is running", "is back"; EVENT with --json). Returns 1 when uledsd is there, 0 when not. */
static int load(struct monitor *m, const char *how, const char *event)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct ctl_led *leds = NULL;
	const char *owner;
	size_t n = 0;
	int r;

	drop_leds(m);
	free(m->owner);
	m->owner = NULL;
	r = sd_bus_call_method(m->c->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetNameOwner", &e, &reply, "s",
			       ULEDSD_BUS_NAME);
	if (r >= 0 && sd_bus_message_read(reply, "s", &owner) >= 0)
		m->owner = strdup(owner);
	sd_bus_error_free(&e);
	if (!m->owner)
		return 0;
	r = ctl_read_leds(m->c->bus, &leds, &n, &e);
	sd_bus_error_free(&e);
	if (r < 0) {
		/* Gone again between the two calls: a NameOwnerChanged follows. */
		free(m->owner);
		m->owner = NULL;
		return 0;
	}
	/* The daemon first, then its LEDs: the lines read top-down like a status. */
	say(m, event, NULL, NULL, "%s: %zu LED%s", how, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		add_led(m, &leds[i], "present");
	ctl_leds_free(leds, n);
	return 1;
}

static bool from_uledsd(struct monitor *m, sd_bus_message *msg)
{
	const char *sender = sd_bus_message_get_sender(msg);

	return m->owner && sender && streq(sender, m->owner);
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *e)
{
	struct monitor *m = userdata;
	const char *name, *old, *new;

	if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 || !streq(name, ULEDSD_BUS_NAME))
		return 0;
	if (*old && m->owner) {
		drop_leds(m);
		free(m->owner);
		m->owner = NULL;
		say(m, "uledsd-away", NULL, NULL, "went away; waiting for it to come back");
	}
	if (*new != '\0')
		load(m, "is back", "uledsd-back");
	return 0;
}

/* An offloaded blink (the Blink property) started, changed or ended: with blink = offload a
 * timer LED's brightness stays while it blinks, so this is the line that shows it. */
static void say_blink(struct monitor *m, const struct ctl_led *l, uint32_t on, uint32_t off)
{
	if (l->blink_on_ms == on && l->blink_off_ms == off)
		return;
	if (l->blink_on_ms || l->blink_off_ms)
		say(m, "blink", l->name, l, "blinking %u ms on, %u ms off at %u/%u", l->blink_on_ms,
		    l->blink_off_ms, l->brightness, l->max_brightness);
	else
		say(m, "blink", l->name, l, "blinking stopped");
}

static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *e)
{
	struct monitor *m = userdata;
	_cleanup_free_ char *before = NULL, *after = NULL, *color_before = NULL,
			    *color_after = NULL;
	_cleanup_free_ char *trigger_before = NULL;
	uint32_t old, on, off;
	const char *iface;
	struct ctl_led *l;

	if (!from_uledsd(m, msg) || sd_bus_message_read(msg, "s", &iface) < 0 ||
	    !streq(iface, ULEDSD_LED_IFACE) || !(l = find(m, sd_bus_message_get_path(msg))))
		return 0;
	old = l->brightness, on = l->blink_on_ms, off = l->blink_off_ms;
	trigger_before = l->trigger ? strdup(l->trigger) : NULL;
	before = describe_backends(l);
	color_before = ctl_color_text(l, " ", ", ");
	if (ctl_led_read_props(l, msg) < 0)
		return 0;
	after = describe_backends(l);
	color_after = ctl_color_text(l, " ", ", ");
	if (l->trigger && !streq_ptr(trigger_before, l->trigger))
		say(m, "trigger", l->name, l, "trigger %s", l->trigger);
	if (l->brightness != old)
		say(m, "brightness", l->name, l, "brightness %u/%u", l->brightness, l->max_brightness);
	say_blink(m, l, on, off);
	if (color_after && (!color_before || !streq(color_before, color_after)))
		say(m, "color", l->name, l, "color %s", color_after);
	if (before && after && !streq(before, after))
		say(m, "backends", l->name, l, "backends %s", after);
	return 0;
}

static int on_interfaces_added(sd_bus_message *msg, void *userdata, sd_bus_error *e)
{
	struct monitor *m = userdata;
	struct ctl_led l = {0};
	const char *path;

	if (!from_uledsd(m, msg) || sd_bus_message_read(msg, "o", &path) < 0)
		return 0;
	if (ctl_led_read_object(&l, msg) > 0 && (l.path = strdup(path)))
		add_led(m, &l, "added");
	else
		ctl_led_clear(&l);
	return 0;
}

static int on_interfaces_removed(sd_bus_message *msg, void *userdata, sd_bus_error *e)
{
	struct monitor *m = userdata;
	const char *path;
	struct ctl_led *l;

	if (!from_uledsd(m, msg) || sd_bus_message_read(msg, "o", &path) < 0 ||
	    !(l = find(m, path)))
		return 0;
	_cleanup_free_ char *name = strdup(l->name);
	ctl_led_clear(l);
	memmove(l, l + 1, (size_t)(m->leds + m->n_leds - (l + 1)) * sizeof(*l));
	m->n_leds--;
	say(m, "removed", name ? name : path, NULL, "removed");
	return 0;
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *e)
{
	struct monitor *m = userdata;

	row_clear(m);
	m->exit_code =
	    ctl_fail(m->c, CTL_EXIT_NOT_RUNNING,
		     "Lost the connection to the %s (dbus-daemon stopped?).", m->c->bus_desc);
	return sd_event_exit(m->event, 0);
}

struct poll_call {
	struct monitor *m;
	char path[];
};

static int on_poll_reply(sd_bus_message *reply, void *userdata, sd_bus_error *e)
{
	struct poll_call *p = userdata;
	struct monitor *m = p->m;
	struct ctl_led *l;
	uint32_t v;

	m->pending--;
	if (!sd_bus_message_is_method_error(reply, NULL) &&
	    sd_bus_message_read(reply, "v", "u", &v) >= 0 && (l = find(m, p->path)) &&
	    l->brightness != v) {
		l->brightness = v;
		say(m, "brightness", l->name, l, "brightness %u/%u", l->brightness, l->max_brightness);
	}
	free(p);
	return 0;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct monitor *m = userdata;

	/* A timer source fires once: re-arm it. */
	sd_event_source_set_time(s, usec + POLL_USEC);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	/* One round at a time: a slow daemon is not buried under queued calls. */
	if (m->pending > 0 || !m->owner)
		return 0;
	for (size_t i = 0; i < m->n_leds; i++) {
		const struct ctl_led *l = &m->leds[i];
		struct poll_call *p;

		if (ctl_led_has_backend(l, "dbus"))
			continue; /* PropertiesChanged tells us */
		p = malloc(sizeof(*p) + strlen(l->path) + 1);
		if (!p)
			return 0;
		p->m = m;
		strcpy(p->path, l->path);
		if (sd_bus_call_method_async(m->c->bus, NULL, ULEDSD_BUS_NAME, l->path,
					     "org.freedesktop.DBus.Properties", "Get",
					     on_poll_reply, p, "ss", ULEDSD_LED_IFACE,
					     "Brightness") < 0) {
			free(p);
			continue;
		}
		m->pending++;
	}
	return 0;
}

/* The signals that change what is shown, then the poll of brightness (a trigger's changes
 * are not signalled). Matches first, state second: nothing that happens in between is lost. */
static int monitor_watch(struct monitor *m)
{
	int r = sd_bus_attach_event(m->c->bus, m->event, SD_EVENT_PRIORITY_NORMAL);

	if (r >= 0)
		r = sd_bus_match_signal(m->c->bus, NULL, "org.freedesktop.DBus",
					"/org/freedesktop/DBus", "org.freedesktop.DBus",
					"NameOwnerChanged", on_name_owner_changed, m);
	if (r >= 0)
		r = sd_bus_add_match(
		    m->c->bus, NULL,
		    "type='signal',interface='org.freedesktop.DBus.Properties',"
		    "member='PropertiesChanged',path_namespace='" ULEDSD_MANAGER_PATH "'",
		    on_properties_changed, m);
	if (r >= 0)
		r = sd_bus_match_signal(m->c->bus, NULL, NULL, ULEDSD_MANAGER_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
					on_interfaces_added, m);
	if (r >= 0)
		r = sd_bus_match_signal(m->c->bus, NULL, NULL, ULEDSD_MANAGER_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
					on_interfaces_removed, m);
	if (r >= 0)
		r = sd_bus_match_signal(m->c->bus, NULL, NULL, "/org/freedesktop/DBus/Local",
					"org.freedesktop.DBus.Local", "Disconnected",
					on_disconnected, m);
	if (r >= 0)
		r = sd_event_add_time_relative(m->event, NULL, CLOCK_MONOTONIC, POLL_USEC, 0,
					       on_poll, m);
	return r;
}

/* "is not there (yet)" for each LED asked for that the daemon does not have now. */
static void monitor_say_missing(struct monitor *m, char **args, size_t n)
{
	for (size_t i = 0; m->owner && i < n; i++) {
		bool present = false;

		for (size_t j = 0; j < m->n_leds; j++)
			present = present || streq(m->leds[j].name, args[i]);
		if (!present)
			say(m, "missing", args[i], NULL, "is not there (yet); waiting for it to appear");
	}
}

int cmd_monitor(struct ctl *c, char **args, size_t n)
{
	struct monitor m = {.c = c, .names = args, .n_names = n};
	sigset_t mask;
	int r;

	/* A line as soon as it happens, also into a pipe or a file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	r = sd_event_default(&m.event);
	if (r < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to set up the event loop: %s",
				strerror(-r));
	/* NULL handlers: sd-event's default, which leaves the loop, so Ctrl-C exits with 0. */
	sd_event_add_signal(m.event, NULL, SIGINT, NULL, NULL);
	sd_event_add_signal(m.event, NULL, SIGTERM, NULL, NULL);
	r = monitor_watch(&m);
	if (r < 0) {
		sd_event_unref(m.event);
		return ctl_error(c, r, NULL, "Failed to watch uledsd");
	}
	if (load(&m, "is running", "uledsd-running") == 0)
		say(&m, "uledsd-not-running", NULL, NULL, "is not running; waiting for it to start");
	monitor_say_missing(&m, args, n);
	r = sd_event_loop(m.event);
	row_clear(&m);
	fflush(stdout);
	sd_bus_detach_event(c->bus);
	sd_event_unref(m.event);
	drop_leds(&m);
	free(m.owner);
	return r < 0 ? ctl_fail(c, CTL_EXIT_FAILURE, "The event loop failed: %s", strerror(-r))
		     : m.exit_code;
}
