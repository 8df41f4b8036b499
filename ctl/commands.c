// SPDX-License-Identifier: MIT
/* The one-shot commands: list, status, get, set, trigger, reload. */
#include <errno.h>
#include <stdarg.h>

#include "ctl.h"
#include "value.h"

#define ERROR_UNKNOWN_PROPERTY "org.freedesktop.DBus.Error.UnknownProperty"
/* Reload is synchronous and waits for the kernel; give it longer than sd-bus's 25 s. */
#define RELOAD_TIMEOUT_USEC (120ULL * 1000000ULL)

/* "log, gpio (waiting for gpiochip3)": a working backend by name, a failing one with why. */
static char *backends_summary(const struct ctl_led *l, bool *all_ok)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	*all_ok = true;
	if (!f)
		return NULL;
	for (size_t i = 0; i < l->n_backends; i++) {
		const struct ctl_backend *b = &l->backends[i];

		fprintf(f, "%s%s", i ? ", " : "", b->name);
		if (!b->ok) {
			fprintf(f, " (%s)", b->status);
			*all_ok = false;
		}
	}
	if (l->n_backends == 0)
		fputs("-", f);
	fclose(f);
	return s;
}

enum {
	LIST_LAMP,
	LIST_LED,
	LIST_BRIGHTNESS,
	LIST_COLOR,
	LIST_TRIGGER,
	LIST_BACKENDS,
	_LIST_COLUMNS,
};

/* The cells of the columns shown, in order. */
static void list_pick(const char *const *all, const size_t *shown, size_t n, const char **ret)
{
	for (size_t i = 0; i < n; i++)
		ret[i] = all[shown[i]];
}

static void list_json(const struct ctl *c, const struct ctl_led *leds, size_t n_leds)
{
	struct json j = {.f = stdout, .pretty = c->tty};

	json_begin(&j, '[');
	for (size_t i = 0; i < n_leds; i++)
		json_led(&j, &leds[i]);
	json_end(&j, ']');
}

/* One LED's row, in the columns shown. */
static void list_row(struct ctl *c, struct table *t, const struct ctl_led *l, const size_t *shown,
		     size_t n_shown)
{
	_cleanup_free_ char *name = NULL, *bright = NULL, *backends = NULL, *color = NULL;
	char lamp[32];
	bool ok;

	ctl_lamp_color(c, l, lamp);
	backends = backends_summary(l, &ok);
	color = ctl_color_text(l, ":", " ");
	if (asprintf(&name, "%s%s", l->name, l->transient ? " (transient)" : "") < 0)
		name = NULL;
	if (asprintf(&bright, "%u/%u", l->brightness, l->max_brightness) < 0)
		bright = NULL;
	const char *cells[_LIST_COLUMNS] = {
	    [LIST_LAMP] = ctl_lamp_glyph(l), [LIST_LED] = name,
	    [LIST_BRIGHTNESS] = bright,	     [LIST_COLOR] = color ? color : "-",
	    [LIST_TRIGGER] = l->trigger,     [LIST_BACKENDS] = backends,
	};
	const char *colors[_LIST_COLUMNS] = {
	    [LIST_LAMP] = lamp, [LIST_BACKENDS] = ok ? NULL : ANSI_RED};
	const char *row_cells[_LIST_COLUMNS], *row_colors[_LIST_COLUMNS];

	list_pick(cells, shown, n_shown, row_cells);
	list_pick(colors, shown, n_shown, row_colors);
	table_add(t, row_cells, row_colors);
}

int cmd_list(struct ctl *c, char **args, size_t n)
{
	static const char *const headers[_LIST_COLUMNS] = {
	    [LIST_LAMP] = "",	    [LIST_LED] = "LED",		[LIST_BRIGHTNESS] = "BRIGHTNESS",
	    [LIST_COLOR] = "COLOR", [LIST_TRIGGER] = "TRIGGER", [LIST_BACKENDS] = "BACKENDS",
	};
	const char *picked[_LIST_COLUMNS];
	size_t shown[_LIST_COLUMNS], n_shown = 0;
	struct ctl_led *leds = NULL;
	struct table *t;
	size_t n_leds = 0;
	bool multicolor = false;
	int r;

	r = ctl_get_leds(c, &leds, &n_leds);
	if (r > 0)
		return r;
	if (c->json) {
		list_json(c, leds, n_leds);
		ctl_leds_free(leds, n_leds);
		return CTL_EXIT_OK;
	}
	for (size_t i = 0; i < n_leds; i++)
		multicolor = multicolor || leds[i].n_channels > 0;
	/* The lamp column only on a terminal (scripts get plain fields), COLOR only when an LED
	 * has channels: a list without multicolour LEDs looks as it always did. */
	for (size_t k = 0; k < _LIST_COLUMNS; k++)
		if ((k != LIST_LAMP || c->tty) && (k != LIST_COLOR || multicolor))
			shown[n_shown++] = k;
	list_pick(headers, shown, n_shown, picked);
	t = table_new(n_shown, picked);
	if (!t) {
		ctl_leds_free(leds, n_leds);
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
	}
	table_set_right(t, c->tty ? LIST_BRIGHTNESS : LIST_BRIGHTNESS - 1);
	for (size_t i = 0; i < n_leds; i++)
		list_row(c, t, &leds[i], shown, n_shown);
	ctl_pager_open(c);
	table_print(c, t, stdout);
	if (c->tty && n_leds == 0)
		printf("No LEDs: uledsd manages none (see uledsd.conf(5)).\n");
	table_free(t);
	ctl_leds_free(leds, n_leds);
	return CTL_EXIT_OK;
}

static void print_led_detail(const struct ctl *c, const struct ctl_led *l)
{
	_cleanup_free_ char *color = ctl_color_text(l, " ", ", ");
	unsigned pct = l->max_brightness
			   ? (l->brightness * 100U + l->max_brightness / 2) / l->max_brightness
			   : 0;

	ctl_lamp(c, stdout, l);
	printf(" %s%s%s%s\n", ctl_ansi(c, ANSI_BOLD), l->name, ctl_ansi(c, ANSI_RESET),
	       l->transient ? " (transient)" : "");
	printf("        Path: %s\n", l->path);
	printf("  Brightness: %u/%u (%u%%)\n", l->brightness, l->max_brightness, pct);
	if (color)
		printf("       Color: %s\n", color);
	printf("     Trigger: %s\n", l->trigger);
	if (l->mode)
		printf("        Mode: %s\n", l->mode);
	if (l->blink_on_ms || l->blink_off_ms)
		printf("       Blink: %u ms on, %u ms off (offloaded)\n", l->blink_on_ms,
		       l->blink_off_ms);
	for (size_t i = 0; i < l->n_backends; i++) {
		const struct ctl_backend *b = &l->backends[i];

		printf("    %s %s%s: %s%s\n",
		       i ? "         " : "Backends:", b->ok ? "" : ctl_ansi(c, ANSI_RED), b->name,
		       b->status, b->ok ? "" : ctl_ansi(c, ANSI_RESET));
	}
	if (l->n_backends == 0)
		printf("    Backends: none\n");
}

/* What status shows: the daemon's version and load errors, and the LEDs asked for. */
struct status {
	char *version;
	char **errors;
	bool errors_known; /* LoadErrors is not in every uledsd */
	struct ctl_led *leds;
	size_t n_leds;
	bool *shown;
};

static void status_done(struct status *st)
{
	free(st->version);
	strv_free(st->errors);
	free(st->shown);
	ctl_leds_free(st->leds, st->n_leds);
}

/* Marks the LEDs named in args (all without args); a name not managed is an error. */
static int status_select(struct ctl *c, struct status *st, char **args, size_t n)
{
	int ret = CTL_EXIT_OK;

	st->shown = calloc(st->n_leds + 1, sizeof(bool));
	if (!st->shown)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
	for (size_t a = 0; a < n; a++) {
		bool found = false;

		for (size_t i = 0; i < st->n_leds; i++)
			if (streq(st->leds[i].name, args[a]))
				st->shown[i] = found = true;
		if (!found)
			ret = ctl_fail(c, CTL_EXIT_NO_SUCH_LED,
				       "No LED named '%s' is managed by uledsd; 'uledsctl list' "
				       "shows those that are.",
				       args[a]);
	}
	for (size_t i = 0; n == 0 && i < st->n_leds; i++)
		st->shown[i] = true;
	return ret;
}

static void status_json(const struct ctl *c, const struct status *st)
{
	struct json j = {.f = stdout, .pretty = c->tty};

	json_begin(&j, '{');
	json_key(&j, "version");
	json_string(&j, st->version);
	json_key(&j, "bus");
	json_string(&j, c->address ? c->address : c->bus_kind);
	json_key(&j, "led_count");
	json_uint(&j, st->n_leds);
	json_key(&j, "errors");
	if (st->errors_known && !st->errors) /* sd-bus reads an empty array as NULL */
		json_strv(&j, (char *[]){NULL});
	else
		json_strv(&j, st->errors_known ? st->errors : NULL);
	json_key(&j, "leds");
	json_begin(&j, '[');
	for (size_t i = 0; i < st->n_leds; i++)
		if (st->shown[i])
			json_led(&j, &st->leds[i]);
	json_end(&j, ']');
	json_end(&j, '}');
}

static void status_text(struct ctl *c, const struct status *st)
{
	size_t n_errors = strv_length(st->errors);

	ctl_pager_open(c);
	printf("%suledsd %s%s on the %s: %zu LED%s\n", ctl_ansi(c, ANSI_BOLD), st->version,
	       ctl_ansi(c, ANSI_RESET), c->bus_desc, st->n_leds, st->n_leds == 1 ? "" : "s");
	if (!st->errors_known)
		printf("Errors: not reported by this uledsd ('sudo uledsctl reload' lists them)\n");
	else if (n_errors == 0)
		printf("Errors: none in the last (re)load\n");
	else
		printf("Errors: %s%zu in the last (re)load%s\n", ctl_ansi(c, ANSI_RED), n_errors,
		       ctl_ansi(c, ANSI_RESET));
	for (char **s = st->errors; s && *s; s++)
		printf("  %s\n", *s);
	for (size_t i = 0; i < st->n_leds; i++)
		if (st->shown[i]) {
			putchar('\n');
			print_led_detail(c, &st->leds[i]);
		}
}

int cmd_status(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(status_done) struct status st = {.errors_known = true};
	int r;

	r = sd_bus_get_property_string(c->bus, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
				       ULEDSD_MANAGER_IFACE, "Version", &e, &st.version);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read uledsd's version");
	/* LoadErrors is not in every uledsd: without it, say so rather than claim "no errors". */
	r = sd_bus_get_property_strv(c->bus, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
				     ULEDSD_MANAGER_IFACE, "LoadErrors", &e, &st.errors);
	if (r < 0 && !sd_bus_error_has_name(&e, ERROR_UNKNOWN_PROPERTY))
		return ctl_error(c, r, &e, "Failed to read the errors of the last load");
	st.errors_known = r >= 0;
	r = ctl_get_leds(c, &st.leds, &st.n_leds);
	if (r > 0)
		return r;
	r = status_select(c, &st, args, n);
	if (!st.shown)
		return r;
	if (c->json)
		status_json(c, &st);
	else
		status_text(c, &st);
	return r;
}

/* A method of an LED that changes state: through polkit's interactive path on a terminal. */
int cmd_get(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *path = NULL;
	uint32_t v;
	int r;

	r = ctl_led_path(c, args[0], &path);
	if (r > 0)
		return r;
	r = sd_bus_get_property_trivial(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					"Brightness", &e, 'u', &v);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the brightness of '%s'", args[0]);
	printf("%u\n", v);
	return CTL_EXIT_OK;
}

/* Without values: each channel and its intensity, "red 255" a line (for scripts too). */
static int print_color(struct ctl *c, const char *name, const char *path)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *color;
	uint32_t v;
	int r, n = 0;

	r = sd_bus_get_property(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE, "Color", &e,
				&reply, "a(su)");
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the colour of '%s'", name);
	r = sd_bus_message_enter_container(reply, 'a', "(su)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(su)", &color, &v)) > 0) {
		printf("%s %u\n", color, v);
		n++;
	}
	if (r < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to read the colour of '%s': %s.", name,
				strerror(-r));
	if (n == 0)
		return ctl_fail(c, CTL_EXIT_FAILURE,
				"LED '%s' is not multicolour; give it 'color = ...' in "
				"uledsd.conf to make it so.",
				name);
	return CTL_EXIT_OK;
}

int cmd_color(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *path = NULL;
	uint32_t max, v[8];
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = ctl_led_path(c, args[0], &path);
	if (r > 0)
		return r;
	if (n == 1)
		return print_color(c, args[0], path);
	if (n - 1 > ELEMENTSOF(v))
		return ctl_fail(c, CTL_EXIT_FAILURE,
				"%zu values are too many: an LED has at most %zu colour channels.",
				n - 1, ELEMENTSOF(v));
	r = sd_bus_get_property_trivial(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					"MaxBrightness", &e, 'u', &max);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the max_brightness of '%s'", args[0]);
	for (size_t i = 1; i < n; i++) {
		r = ctl_parse_value(args[i], max, 0, &v[i - 1]);
		if (r < 0)
			return ctl_fail(
			    c, CTL_EXIT_FAILURE,
			    "'%s' is not an intensity for LED '%s': use a number from 0 "
			    "to %u (its max_brightness), on, off or 0%% to 100%%.",
			    args[i], args[0], max);
	}
	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					   "SetColor");
	if (r >= 0)
		r = sd_bus_message_append_array(m, 'u', v, (n - 1) * sizeof(uint32_t));
	if (r >= 0)
		r = ctl_call_interactive(c, m, 0, &e, NULL);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to set the colour of '%s'", args[0]);
	return CTL_EXIT_OK;
}

/* Without a trigger: the available ones, the selected one marked, as sysfs's [brackets] do. */
static int list_triggers(struct ctl *c, const char *name, const char *path)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *current = NULL;
	_cleanup_strv_free_ char **all = NULL;
	bool listed = false;
	int r;

	r = sd_bus_get_property_string(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE, "Trigger",
				       &e, &current);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to read the trigger of '%s'", name);
	r = sd_bus_get_property_strv(c->bus, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
				     "AvailableTriggers", &e, &all);
	if (r < 0 && !sd_bus_error_has_name(&e, ERROR_UNKNOWN_PROPERTY))
		return ctl_error(c, r, &e, "Failed to read the available triggers of '%s'", name);
	for (char **s = all; s && *s; s++) {
		bool sel = streq(*s, current);

		listed = listed || sel;
		printf("%s %s%s%s\n", sel ? "*" : " ", sel ? ctl_ansi(c, ANSI_GREEN) : "", *s,
		       sel ? ctl_ansi(c, ANSI_RESET) : "");
	}
	if (!listed)
		printf("* %s%s%s\n", ctl_ansi(c, ANSI_GREEN), current, ctl_ansi(c, ANSI_RESET));
	if (!all) {
		fflush(stdout);
		fprintf(stderr, "uledsctl: this uledsd does not tell the available triggers (no "
				"AvailableTriggers property); only the selected one is shown.\n");
	}
	return CTL_EXIT_OK;
}

static bool is_attribute(const char *arg)
{
	const char *eq = strchr(arg, '=');

	/* A sysfs file name of the LED: not empty, no path. */
	return eq && eq != arg && !memchr(arg, '/', (size_t)(eq - arg)) && strncmp(arg, ".=", 2) &&
	       strncmp(arg, "..=", 3);
}

static int set_attributes(struct ctl *c, const char *name, const char *path, const char *trigger,
			  char **attrs, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, path, ULEDSD_LED_IFACE,
					   "SetTriggerAttributes");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(ss)");
	for (size_t i = 0; r >= 0 && i < n; i++) {
		char *eq = strchr(attrs[i], '=');

		*eq = '\0';
		r = sd_bus_message_append(m, "(ss)", attrs[i], eq + 1);
		*eq = '=';
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = ctl_call_interactive(c, m, 0, &e, NULL);
	if (r >= 0)
		return CTL_EXIT_OK;
	if (sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_METHOD))
		return ctl_fail(
		    c, CTL_EXIT_FAILURE,
		    "This uledsd cannot write trigger attributes (it has no "
		    "%s.SetTriggerAttributes method)%s%s%s. Set them in the LED's configuration "
		    "instead (trigger.%.*s = ...) and run 'uledsctl reload'.",
		    ULEDSD_LED_IFACE, trigger ? "; trigger '" : "", trigger ? trigger : "",
		    trigger ? "' was selected with the kernel's default attributes" : "",
		    (int)strcspn(attrs[0], "="), attrs[0]);
	return ctl_error(c, r, &e, "Failed to set the trigger attributes of '%s'", name);
}

int cmd_trigger(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *path = NULL;
	const char *trigger = NULL;
	size_t first_attr = 1;
	int r;

	/* trigger NAME [TRIGGER] [ATTR=VALUE...]: a first word without '=' is the trigger. */
	if (n > 1 && !strchr(args[1], '=')) {
		trigger = args[1];
		first_attr = 2;
	}
	for (size_t i = first_attr; i < n; i++)
		if (!is_attribute(args[i]))
			return ctl_fail(c, CTL_EXIT_USAGE,
					"'%s' is not ATTR=VALUE (a trigger attribute such as "
					"delay_on=100); see 'uledsctl trigger --help'.",
					args[i]);
	r = ctl_led_path(c, args[0], &path);
	if (r > 0)
		return r;
	if (n == 1)
		return list_triggers(c, args[0], path);
	if (trigger) {
		r = ctl_call_led_method(c, path, "SetTrigger", &e, "s", trigger);
		if (r < 0)
			return ctl_error(c, r, &e, "Failed to select trigger '%s' for '%s'",
					 trigger, args[0]);
	}
	if (first_attr < n)
		return set_attributes(c, args[0], path, trigger, args + first_attr, n - first_attr);
	return CTL_EXIT_OK;
}

int cmd_reload(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_strv_free_ char **errors = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	size_t n_errors = 0;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
					   ULEDSD_MANAGER_IFACE, "Reload");
	if (r >= 0)
		r = ctl_call_interactive(c, m, RELOAD_TIMEOUT_USEC, &e, &reply);
	if (r < 0)
		return ctl_error(c, r, &e, "Reload failed");
	r = sd_bus_message_read_strv(reply, &errors);
	if (r < 0)
		return ctl_error(c, r, NULL, "Unexpected answer to Reload");
	/* The errors are the command's output (stdout, one a line); the verdict goes to stderr. */
	for (char **s = errors; s && *s; s++, n_errors++)
		printf("%s\n", *s);
	if (n_errors > 0)
		return ctl_fail(
		    c, CTL_EXIT_FAILURE,
		    "The configuration has %zu error%s (above); LEDs with errors keep their "
		    "previous definition. Fix %s and run 'uledsctl reload' again.",
		    n_errors, n_errors == 1 ? "" : "s", n_errors == 1 ? "it" : "them");
	return CTL_EXIT_OK;
}
