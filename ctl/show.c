// SPDX-License-Identifier: MIT
/* uledsctl show: the D-Bus properties of LEDs (or of uledsd), PROPERTY=VALUE a line, as
 * systemctl show prints a unit's; -p picks some, --value prints the values alone. */
#include <errno.h>
#include <inttypes.h>

#include "ctl.h"

static int print_value(FILE *f, sd_bus_message *m);

/* The items of the container M is in, SEP between them. */
static int print_items(FILE *f, sd_bus_message *m, const char *sep)
{
	int r;

	for (bool first = true;; first = false) {
		r = sd_bus_message_at_end(m, false);
		if (r != 0)
			return r < 0 ? r : 0;
		if (!first)
			fputs(sep, f);
		r = print_value(f, m);
		if (r < 0)
			return r;
	}
}

static int print_basic(FILE *f, sd_bus_message *m, char type)
{
	union {
		uint8_t y;
		int b;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
		double d;
		const char *s;
	} v;
	int r = sd_bus_message_read_basic(m, type, &v);

	if (r < 0)
		return r;
	switch (type) {
	case 'y': fprintf(f, "%" PRIu8, v.y); break;
	case 'b': fputs(v.b ? "yes" : "no", f); break;
	case 'n': fprintf(f, "%" PRId16, v.n); break;
	case 'q': fprintf(f, "%" PRIu16, v.q); break;
	case 'i': fprintf(f, "%" PRId32, v.i); break;
	case 'u': fprintf(f, "%" PRIu32, v.u); break;
	case 'x': fprintf(f, "%" PRId64, v.x); break;
	case 't': fprintf(f, "%" PRIu64, v.t); break;
	case 'd': fprintf(f, "%g", v.d); break;
	case 'h': fputs("(fd)", f); break;
	default: fputs(v.s, f); /* s, o, g */
	}
	return 0;
}

/* One value of any type: numbers in decimal, booleans yes/no, an array's items separated by
 * spaces, a struct's fields by ':' (Color=red:255 green:0, Blink=500:500). */
static int print_value(FILE *f, sd_bus_message *m)
{
	const char *contents;
	char type;
	int r = sd_bus_message_peek_type(m, &type, &contents);

	if (r <= 0)
		return r < 0 ? r : -EBADMSG;
	if (type != SD_BUS_TYPE_ARRAY && type != SD_BUS_TYPE_STRUCT &&
	    type != SD_BUS_TYPE_VARIANT && type != SD_BUS_TYPE_DICT_ENTRY)
		return print_basic(f, m, type);
	r = sd_bus_message_enter_container(m, type, contents);
	if (r >= 0)
		r = print_items(f, m, type == SD_BUS_TYPE_ARRAY ? " " : ":");
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r;
}

/* NAME=VALUE, or VALUE alone with --value; M is at the variant. */
static int print_property(struct ctl *c, const char *name, sd_bus_message *m)
{
	if (!c->show_value)
		printf("%s=", name);
	int r = print_value(stdout, m);

	putchar('\n');
	return r;
}

/* Every property of IFACE on PATH, in the daemon's order. */
static int show_all(struct ctl *c, const char *path, const char *iface, const char *what)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *name;
	int r = sd_bus_call_method(c->bus, ULEDSD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
				   "GetAll", &e, &reply, "s", iface);

	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the properties of %s", what);
	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		r = sd_bus_message_read(reply, "s", &name);
		if (r >= 0)
			r = print_property(c, name, reply);
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	return r < 0 ? ctl_error(c, r, NULL, "Unexpected reply with the properties of %s", what)
		     : 0;
}

/* The properties -p named, in that order (a script reads them so); NAME: the LED's, NULL for
 * uledsd's. */
static int show_some(struct ctl *c, const char *path, const char *iface, const char *what,
		     const char *name)
{
	for (char **p = c->show_props; *p; p++) {
		_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		int r = sd_bus_call_method(c->bus, ULEDSD_BUS_NAME, path,
					   "org.freedesktop.DBus.Properties", "Get", &e, &reply,
					   "ss", iface, *p);

		if (r < 0 && sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_PROPERTY))
			return ctl_fail(c, CTL_EXIT_FAILURE,
					"%s has no property '%s'; 'uledsctl show%s%s' lists them "
					"(the names are case-sensitive).",
					what, *p, name ? " " : "", name ? name : "");
		if (r < 0)
			return ctl_error(c, r, &e, "Failed to read %s of %s", *p, what);
		r = print_property(c, *p, reply);
		if (r < 0)
			return ctl_error(c, r, NULL, "Unexpected value of %s of %s", *p, what);
	}
	return 0;
}

/* LED NAME's properties, or uledsd's (the Manager's) for NULL; SEPARATE: a blank line first, once
 * the LED is found (an unknown name's error follows the LED before it directly). */
static int show_object(struct ctl *c, const char *name, bool separate)
{
	_cleanup_free_ char *path = NULL, *what = NULL;
	int r;

	if (!name)
		return c->show_props ? show_some(c, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE,
						 "uledsd", NULL)
				     : show_all(c, ULEDSD_MANAGER_PATH, ULEDSD_MANAGER_IFACE, "uledsd");
	r = ctl_led_path(c, name, &path);
	if (r != 0)
		return r;
	if (separate)
		putchar('\n'); /* a blank line between LEDs, as systemctl show has */
	if (asprintf(&what, "LED %s", name) < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
	return c->show_props ? show_some(c, path, ULEDSD_LED_IFACE, what, name)
			     : show_all(c, path, ULEDSD_LED_IFACE, what);
}

int cmd_show(struct ctl *c, char **args, size_t n)
{
	int r = 0;

	if (n == 0)
		return show_object(c, NULL, false);
	for (size_t i = 0; i < n && r == 0; i++)
		r = show_object(c, args[i], i > 0 && !c->show_value);
	return r;
}
