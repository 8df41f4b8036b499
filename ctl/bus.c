// SPDX-License-Identifier: MIT
/* uledsctl's side of io.uledsd1: connecting, reading LED objects, errors turned into exit codes. */
#include <errno.h>
#include <stdarg.h>

#include "ctl.h"

int ctl_connect(struct ctl *c)
{
	int r;

	if (c->address) {
		r = sd_bus_new(&c->bus);
		if (r >= 0)
			r = sd_bus_set_address(c->bus, c->address);
		if (r >= 0)
			r = sd_bus_set_bus_client(c->bus, 1);
		if (r >= 0)
			r = sd_bus_start(c->bus);
	} else if (streq(c->bus_kind, "session")) {
		r = sd_bus_open_user(&c->bus);
	} else {
		r = sd_bus_open_system(&c->bus);
	}
	if (r < 0 && c->address)
		return ctl_fail(c, CTL_EXIT_NOT_RUNNING, "Cannot connect to the bus at '%s': %s.",
				c->address, strerror(-r));
	if (r < 0)
		return ctl_fail(c, CTL_EXIT_NOT_RUNNING,
				"Cannot connect to the %s bus: %s. uledsd answers there; is "
				"dbus-daemon running?",
				c->bus_kind, strerror(-r));
	return 0;
}

int ctl_fail(struct ctl *c, int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("uledsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int ctl_error(struct ctl *c, int r, const sd_bus_error *e, const char *fmt, ...)
{
	const char *name = e && sd_bus_error_is_set(e) ? e->name : NULL;
	const char *msg = name && e->message ? e->message : strerror(r < 0 ? -r : EIO);
	_cleanup_free_ char *what = NULL;
	va_list ap;

	if (name && (streq(name, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
		     streq(name, SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
		return ctl_fail(c, CTL_EXIT_NOT_RUNNING,
				"uledsd is not running: nobody owns %s on the %s. Start it "
				"(systemctl start uledsd) and try again.",
				ULEDSD_BUS_NAME, c->bus_desc);
	if (!name && (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE))
		return ctl_fail(c, CTL_EXIT_NOT_RUNNING,
				"Lost the connection to the %s; is dbus-daemon running?",
				c->bus_desc);
	/* The daemon's text names its methods, dbus-daemon's its policy; a uledsctl user wants
	 * the uledsctl way. A refusal for another reason (a reserved LED name) says its own. */
	if (name && streq(name, SD_BUS_ERROR_ACCESS_DENIED) &&
	    (!e->message || strstr(e->message, "changes state") ||
	     !strncmp(e->message, "Rejected", 8)))
		return ctl_fail(
		    c, CTL_EXIT_FAILURE,
		    "Permission denied: 'uledsctl %s' changes state, which uledsd "
		    "allows for root, members of the group uledsd and whom polkit admits "
		    "(action io.uledsd1.manage). Run it as root (sudo uledsctl %s ...) "
		    "or ask to be added to the group uledsd.",
		    c->command, c->command);
	if (name && (streq(name, SD_BUS_ERROR_NO_REPLY) || streq(name, SD_BUS_ERROR_TIMEOUT)))
		return ctl_fail(c, CTL_EXIT_FAILURE,
				"uledsd did not answer in time; it may be busy or hung (journalctl "
				"-u uledsd).");

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	return ctl_fail(c,
			name && streq(name, ULEDSD_ERROR_UNKNOWN_LED) ? CTL_EXIT_NO_SUCH_LED
								       : CTL_EXIT_FAILURE,
			"%s: %s", what ? what : "Failed", msg);
}

int ctl_led_path(struct ctl *c, const char *name, char **ret)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *path;
	int r;

	r = sd_bus_call_method(c->bus, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE,
			       "GetLED", &e, &reply, "s", name);
	if (r < 0 && sd_bus_error_has_name(&e, ULEDSD_ERROR_UNKNOWN_LED))
		r = ctl_fail(
		    c, CTL_EXIT_NO_SUCH_LED,
		    "No LED named '%s' is managed by uledsd; 'uledsctl list' shows those that are.",
		    name);
	else if (r < 0)
		r = ctl_error(c, r, &e, "Failed to look up LED '%s'", name);
	else if ((r = sd_bus_message_read(reply, "o", &path)) < 0)
		r = ctl_error(c, r, NULL, "Unexpected GetLED reply for '%s'", name);
	else if (!(*ret = strdup(path)))
		r = ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
	else
		r = 0;
	return r;
}

/* Into a v holding the array SIG ("a(...)"), to read its items one by one. */
static int enter_variant_array(sd_bus_message *m, const char *sig)
{
	int r;

	r = sd_bus_message_enter_container(m, 'v', sig);
	if (r < 0)
		return r;
	return sd_bus_message_enter_container(m, 'a', sig + 1);
}

/* The end of a v holding an a(...) read item by item: r is the last read's result. */
static int exit_variant_array(sd_bus_message *m, int r)
{
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(m);
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

static int read_backends(struct ctl_led *l, sd_bus_message *m)
{
	const char *name, *status;
	int ok, r;

	for (size_t i = 0; i < l->n_backends; i++) {
		free(l->backends[i].name);
		free(l->backends[i].status);
	}
	l->n_backends = 0;
	r = enter_variant_array(m, "a(sbs)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(m, "(sbs)", &name, &ok, &status)) > 0) {
		struct ctl_backend *b;

		b = realloc(l->backends, (l->n_backends + 1) * sizeof(*b));
		if (!b)
			return -ENOMEM;
		l->backends = b;
		b += l->n_backends;
		*b = (struct ctl_backend){.name = strdup(name), .ok = ok, .status = strdup(status)};
		if (!b->name || !b->status)
			return -ENOMEM;
		l->n_backends++;
	}
	return exit_variant_array(m, r);
}

static int read_string(sd_bus_message *m, char **s)
{
	const char *v;
	int r;

	r = sd_bus_message_read(m, "v", "s", &v);
	if (r < 0)
		return r;
	free(*s);
	*s = strdup(v);
	return *s ? 0 : -ENOMEM;
}

/* Color, a(su): a multicolour LED's channels; empty for a plain LED. */
static int read_color(struct ctl_led *l, sd_bus_message *m)
{
	const char *name;
	uint32_t v;
	int r;

	for (size_t i = 0; i < l->n_channels; i++)
		free(l->channels[i].name);
	l->n_channels = 0;
	r = enter_variant_array(m, "a(su)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(m, "(su)", &name, &v)) > 0) {
		struct ctl_channel *ch;

		ch = realloc(l->channels, (l->n_channels + 1) * sizeof(*ch));
		if (!ch)
			return -ENOMEM;
		l->channels = ch;
		ch[l->n_channels] = (struct ctl_channel){.name = strdup(name), .intensity = v};
		if (!ch[l->n_channels].name)
			return -ENOMEM;
		l->n_channels++;
	}
	return exit_variant_array(m, r);
}

/* An a{sv} of io.uledsd1.LED properties (GetAll, PropertiesChanged, InterfacesAdded). Unknown
 * properties are skipped, so a newer daemon works with an older uledsctl. */
int ctl_led_read_props(struct ctl_led *l, sd_bus_message *m)
{
	const char *key;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		int b;

		r = sd_bus_message_read(m, "s", &key);
		if (r < 0)
			return r;
		if (streq(key, "Name"))
			r = read_string(m, &l->name);
		else if (streq(key, "Trigger"))
			r = read_string(m, &l->trigger);
		else if (streq(key, "Mode"))
			r = read_string(m, &l->mode);
		else if (streq(key, "Blink"))
			r = sd_bus_message_read(m, "v", "(uu)", &l->blink_on_ms, &l->blink_off_ms);
		else if (streq(key, "Brightness"))
			r = sd_bus_message_read(m, "v", "u", &l->brightness);
		else if (streq(key, "MaxBrightness"))
			r = sd_bus_message_read(m, "v", "u", &l->max_brightness);
		else if (streq(key, "Backends"))
			r = read_backends(l, m);
		else if (streq(key, "Color"))
			r = read_color(l, m);
		else if (streq(key, "Transient") && (r = sd_bus_message_read(m, "v", "b", &b)) >= 0)
			l->transient = b;
		else
			r = sd_bus_message_skip(m, "v");
		if (r < 0)
			return r;
		r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

/* The a{sa{sv}} of one object: returns 1 when it carries io.uledsd1.LED. */
int ctl_led_read_object(struct ctl_led *l, sd_bus_message *m)
{
	const char *iface;
	bool found = false;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
		r = sd_bus_message_read(m, "s", &iface);
		if (r < 0)
			return r;
		if (streq(iface, ULEDSD_LED_IFACE)) {
			found = true;
			r = ctl_led_read_props(l, m);
		} else {
			r = sd_bus_message_skip(m, "a{sv}");
		}
		if (r < 0)
			return r;
		r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(m);
	return r < 0 ? r : found;
}

void ctl_led_clear(struct ctl_led *l)
{
	for (size_t i = 0; i < l->n_backends; i++) {
		free(l->backends[i].name);
		free(l->backends[i].status);
	}
	free(l->backends);
	for (size_t i = 0; i < l->n_channels; i++)
		free(l->channels[i].name);
	free(l->channels);
	free(l->path);
	free(l->name);
	free(l->trigger);
	free(l->mode);
	*l = (struct ctl_led){0};
}

void ctl_leds_free(struct ctl_led *leds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ctl_led_clear(&leds[i]);
	free(leds);
}

static int led_compare(const void *a, const void *b)
{
	const struct ctl_led *x = a, *y = b;

	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* By name, as systemctl and ls do: the daemon's order (configuration order, a hash) means
 * nothing to a reader. */
void ctl_leds_sort(struct ctl_led *leds, size_t n)
{
	if (n > 1)
		qsort(leds, n, sizeof(*leds), led_compare);
}

bool ctl_led_has_backend(const struct ctl_led *l, const char *name)
{
	for (size_t i = 0; i < l->n_backends; i++)
		if (streq(l->backends[i].name, name))
			return true;
	return false;
}

/* Every LED with its properties in one round trip (GetManagedObjects), sorted by name.
 * Returns -errno, with the bus error in *e; ctl_get_leds says what went wrong. */
int ctl_read_leds(sd_bus *bus, struct ctl_led **ret, size_t *ret_n, sd_bus_error *e)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct ctl_led *leds = NULL;
	size_t n = 0;
	int r;

	r = sd_bus_call_method(bus, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
			       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", e, &reply,
			       NULL);
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
		struct ctl_led l = {0};
		const char *path;
		struct ctl_led *t;

		r = sd_bus_message_read(reply, "o", &path);
		if (r >= 0)
			r = ctl_led_read_object(&l, reply);
		if (r > 0 && l.name && (l.path = strdup(path)) &&
		    (t = realloc(leds, (n + 1) * sizeof(*t)))) {
			leds = t;
			leds[n++] = l;
		} else {
			ctl_led_clear(&l);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	if (r < 0) {
		ctl_leds_free(leds, n);
		return r;
	}
	ctl_leds_sort(leds, n);
	*ret = leds;
	*ret_n = n;
	return 0;
}

int ctl_get_leds(struct ctl *c, struct ctl_led **ret, size_t *ret_n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = ctl_read_leds(c->bus, ret, ret_n, &e);
	if (r < 0)
		r = ctl_error(c, r, &e, "Failed to list the LEDs");
	return r;
}

int ctl_call_led_method(struct ctl *c, const char *path, const char *method, sd_bus_error *e,
			const char *types, ...)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					   method);
	if (r >= 0) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = ctl_call_interactive(c, m, 0, e, NULL);
	return r;
}
