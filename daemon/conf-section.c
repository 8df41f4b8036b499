// SPDX-License-Identifier: MIT
/* One [LED] section of a drop-in: its keys, their values, and the checks that need the whole
 * section; the finished definition goes to the configuration (conf.h). */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "backend.h"
#include "conf-section.h"
#include "uledsd-conf.h"
#include "registry.h"
#include "string-util.h"

/* ---- values ---- */

/* strtoll() alone would take leading space and stop at junk ("10 lm" would be 10). */
static int parse_int(const char *s, long long min, long long max, int *ret)
{
	char *end;
	long long v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

/* ---- backends of a section ---- */

void section_error(struct parser *p, unsigned line, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* "max_brightness = 1  # one" is a common slip: say why the value looks odd. */
	conf_add_error(p->conf, p->path, line, "%s%s", msg ? msg : "(out of memory)",
		       p->hash_in_value && line == p->line
			   ? " (Only ';' after a space starts an inline comment, not '#'.)"
			   : "");
	if (p->in_section)
		p->sec.error = true; /* its LED is not created */
}

static int find_backend(struct led_conf *lc, const struct backend_ops *ops)
{
	for (size_t i = 0; i < lc->n_backends; i++)
		if (lc->backends[i]->ops == ops)
			return (int)i;
	return -1;
}

/* The section's instance of ops, made on first use (by "backends =" or a key). The three
 * arrays grow together: listed and first_key_line are the section's bookkeeping, freed at its
 * end, while the backends live on in lc. */
static int get_backend(struct parser *p, const struct backend_ops *ops)
{
	struct section *s = &p->sec;
	struct led_conf *lc = s->lc;
	_cleanup_(led_backend_freep) struct led_backend *b = NULL;
	size_t n = lc->n_backends + 1;
	struct led_backend **nb;
	bool *nl;
	unsigned *nf;
	int i = find_backend(lc, ops), r;

	if (i >= 0)
		return i;
	r = led_backend_new(ops, p->path, p->line, &b);
	if (r < 0)
		return r;
	nb = realloc(lc->backends, n * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	lc->backends = nb;
	nl = realloc(s->listed, n * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	s->listed = nl;
	nf = realloc(s->first_key_line, n * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	s->first_key_line = nf;
	s->listed[lc->n_backends] = false;
	s->first_key_line[lc->n_backends] = 0;
	lc->backends[lc->n_backends] = TAKE_PTR(b);
	return (int)lc->n_backends++;
}

static void parse_backends(struct parser *p, const char *value)
{
	_cleanup_free_ char *copy = strdup(value);
	struct led_conf *lc = p->sec.lc;
	char *save = NULL;

	if (!copy)
		return;
	lc->backends_set = true;
	lc->backends_line = p->line;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		const struct backend_ops *ops = backend_ops_find(w);
		int i;

		if (!ops) {
			section_error(p, p->line, "unknown backend '%s' in 'backends'; known: %s.",
				      w, backend_list_names());
			continue;
		}
		i = find_backend(lc, ops);
		if (i >= 0 && p->sec.listed[i]) {
			section_error(p, p->line, "backend '%s' is listed twice in 'backends'.", w);
			continue;
		}
		i = get_backend(p, ops);
		if (i < 0) {
			section_error(p, p->line, "out of memory");
			continue;
		}
		p->sec.listed[i] = true;
		lc->backends[i]->line = p->line;
	}
}

static void parse_backend_key(struct parser *p, const struct backend_ops *ops, const char *key,
			      const char *value)
{
	_cleanup_free_ char *err = NULL;
	struct led_conf *lc = p->sec.lc;
	int i, r;

	i = get_backend(p, ops);
	if (i < 0) {
		section_error(p, p->line, "out of memory");
		return;
	}
	if (!p->sec.first_key_line[i])
		p->sec.first_key_line[i] = p->line;
	if (!ops->parse) {
		section_error(p, p->line, "backend '%s' has no settings; remove '%s.%s'.",
			      ops->name, ops->name, key);
		return;
	}
	r = ops->parse(lc->backends[i], key, value, &err);
	if (r < 0)
		section_error(p, p->line, "%s", err ? err : "invalid value");
}

/* ---- the keys ---- */

static void parse_max_brightness(struct parser *p, const char *value)
{
	if (parse_int(value, 1, INT_MAX, &p->sec.lc->max_brightness) < 0)
		section_error(
		    p, p->line,
		    "max_brightness = '%s' is not valid: give a whole number from 1 to %d.", value,
		    INT_MAX);
}

static void parse_default_brightness(struct parser *p, const char *value)
{
	struct led_conf *lc = p->sec.lc;

	p->sec.default_line = p->line;
	if (streq(value, "restore"))
		lc->default_mode = DEFAULT_BRIGHTNESS_RESTORE;
	else if (parse_int(value, 0, INT_MAX, &lc->default_brightness) >= 0)
		lc->default_mode = DEFAULT_BRIGHTNESS_VALUE;
	else
		section_error(p, p->line,
			      "default_brightness = '%s' is not valid: give a number from 0 to "
			      "max_brightness, or 'restore'.",
			      value);
}

static void parse_trigger(struct parser *p, const char *value)
{
	struct led_conf *lc = p->sec.lc;

	if (!trigger_name_is_valid(value)) {
		section_error(p, p->line,
			      "trigger = '%s' is not a trigger name: use letters, digits, '_' and "
			      "'-' (see /sys/class/leds/*/trigger).",
			      value);
		return;
	}
	lc->trigger = strdup(value);
	lc->trigger_line = p->line;
}

static void parse_blink(struct parser *p, const char *value)
{
	if (streq(value, "offload"))
		p->sec.lc->blink = LED_BLINK_OFFLOAD;
	else if (streq(value, "software"))
		p->sec.lc->blink = LED_BLINK_SOFTWARE;
	else
		section_error(p, p->line,
			      "blink = '%s' is not valid: use offload (uledsd blinks) or software "
			      "(the kernel toggles the brightness).",
			      value);
}

static void parse_events(struct parser *p, const char *value)
{
	if (streq(value, "yes"))
		p->sec.lc->no_events = false;
	else if (streq(value, "no"))
		p->sec.lc->no_events = true;
	else
		section_error(
		    p, p->line,
		    "events = '%s' is not valid: use yes (every change as a timestamped "
		    "record, where the module offers it) or no (only the latest value, as "
		    "with the in-tree uleds module).",
		    value);
}

/* "red green blue", or the shorthands rgb (red green blue) and rgbw (and white). */
static void parse_color(struct parser *p, const char *value)
{
	static const char *const shorthand[][2] = {{"rgb", "red green blue"},
						   {"rgbw", "red green blue white"}};
	_cleanup_free_ char *copy = NULL;
	struct led_conf *lc = p->sec.lc;
	char *save = NULL;
	unsigned n = 0;

	for (size_t i = 0; i < ELEMENTSOF(shorthand); i++)
		if (streq(value, shorthand[i][0]))
			value = shorthand[i][1];
	copy = strdup(value);
	if (!copy)
		return;
	lc->color_line = p->line;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int c = led_color_from_string(w);

		if (c < 0) {
			section_error(
			    p, p->line,
			    "color: '%s' is not a colour the kernel knows; use white, red, "
			    "green, blue, amber, violet, yellow, ir, multicolor, rgb, "
			    "purple, orange, pink, cyan or lime (or rgb / rgbw alone).",
			    w);
			return;
		}
		if (n == LED_CHANNELS_MAX) {
			section_error(p, p->line,
				      "color has more than %d channels; the kernel's multicolour "
				      "LEDs take at most %d.",
				      LED_CHANNELS_MAX, LED_CHANNELS_MAX);
			return;
		}
		lc->color[n++] = (uint8_t)c;
	}
	if (n == 0) {
		section_error(p, p->line,
			      "color is empty: list one colour per channel (color = red green "
			      "blue) or write rgb or rgbw.");
		return;
	}
	lc->n_channels = n;
}

/* Checked against color and max_brightness at the section's end. */
static void parse_multi_intensity(struct parser *p, const char *value)
{
	_cleanup_free_ char *copy = strdup(value);
	struct led_conf *lc = p->sec.lc;
	char *save = NULL;
	unsigned n = 0;

	if (!copy)
		return;
	p->sec.intensity_words = 0;
	lc->intensity_line = p->line;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int v;

		if (parse_int(w, 0, INT_MAX, &v) < 0) {
			section_error(p, p->line,
				      "multi_intensity: '%s' is not a whole number from 0 to "
				      "max_brightness; give one per channel of 'color'.",
				      w);
			return;
		}
		if (n < LED_CHANNELS_MAX)
			lc->intensity[n] = (unsigned)v;
		n++;
	}
	p->sec.intensity_words = n;
	lc->intensity_set = true;
}

static void parse_trigger_attr(struct parser *p, const char *key, const char *value)
{
	struct led_conf *lc = p->sec.lc;
	struct trigger_attr *na;

	if (!trigger_attr_name_is_valid(key + 8)) {
		section_error(p, p->line,
			      "'%s' does not name a trigger attribute: use trigger.ATTRIBUTE with "
			      "a lower-case sysfs name such as trigger.delay_on.",
			      key);
		return;
	}
	na = realloc(lc->attrs, (lc->n_attrs + 1) * sizeof(*na));
	if (!na) {
		section_error(p, p->line, "out of memory");
		return;
	}
	lc->attrs = na;
	lc->attrs[lc->n_attrs++] =
	    (struct trigger_attr){.key = strdup(key + 8), .value = strdup(value), .line = p->line};
}

static void parse_prefixed_key(struct parser *p, const char *key, const char *dot,
			       const char *value)
{
	_cleanup_free_ char *prefix = strndup(key, (size_t)(dot - key));
	const struct backend_ops *ops = prefix ? backend_ops_find(prefix) : NULL;

	if (strncmp(key, "trigger.", 8) == 0) {
		parse_trigger_attr(p, key, value);
		return;
	}
	if (!ops) {
		section_error(p, p->line,
			      "unknown key '%s': '%s' is not a backend (known: %s) nor 'trigger'.",
			      key, prefix ? prefix : "", backend_list_names());
		return;
	}
	parse_backend_key(p, ops, dot + 1, value);
}

static void parse_key(struct parser *p, const char *key, const char *value)
{
	static const struct {
		const char *key;
		void (*parse)(struct parser *p, const char *value);
	} keys[] = {
#define KEY(k) {#k, parse_##k},
	    ULEDSD_LED_KEYS(KEY)
#undef KEY
	};
	const char *dot = strchr(key, '.');

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (streq(keys[i].key, key)) {
			keys[i].parse(p, value);
			return;
		}
	if (dot) {
		parse_prefixed_key(p, key, dot, value);
		return;
	}
	section_error(p, p->line,
		      "unknown key '%s'; known keys: max_brightness, default_brightness, trigger, "
		      "trigger.ATTRIBUTE, blink, events, color, multi_intensity, backends, "
		      "BACKEND.KEY.",
		      key);
}

/* ---- sections ---- */

/* Checks that need the whole section. */
static void section_verify(struct parser *p)
{
	struct section *s = &p->sec;
	struct led_conf *lc = s->lc;

	if (lc->default_mode == DEFAULT_BRIGHTNESS_VALUE &&
	    lc->default_brightness > lc->max_brightness)
		section_error(p, s->default_line,
			      "default_brightness = %d is above max_brightness = %d; lower it or "
			      "raise max_brightness.",
			      lc->default_brightness, lc->max_brightness);
	if (lc->intensity_set && !lc->n_channels)
		section_error(p, lc->intensity_line,
			      "multi_intensity needs a multicolour LED: add 'color = ...' to [%s] "
			      "(e.g. color = rgb) or remove multi_intensity.",
			      lc->name);
	else if (lc->intensity_set && s->intensity_words != lc->n_channels)
		section_error(p, lc->intensity_line,
			      "multi_intensity has %u values but color has %u channels; give one "
			      "value per channel, in the order of 'color'.",
			      s->intensity_words, lc->n_channels);
	else
		for (unsigned i = 0; lc->intensity_set && i < lc->n_channels; i++)
			if (lc->intensity[i] > (unsigned)lc->max_brightness) {
				section_error(
				    p, lc->intensity_line,
				    "multi_intensity: %u (channel %u, %s) is above "
				    "max_brightness = %d; lower it or raise max_brightness.",
				    lc->intensity[i], i, led_color_to_string(lc->color[i]),
				    lc->max_brightness);
				break;
			}
	if (lc->n_attrs > 0 && !lc->trigger)
		section_error(p, lc->attrs[0].line,
			      "'trigger.%s' needs a trigger: add 'trigger = ...' to [%s].",
			      lc->attrs[0].key, lc->name);
	for (size_t i = 0; i < lc->n_backends; i++) {
		struct led_backend *b = lc->backends[i];
		_cleanup_free_ char *err = NULL;

		if (!s->listed[i]) {
			section_error(p, s->first_key_line[i],
				      "'%s.*' settings given but '%s' is not in 'backends' of "
				      "[%s]; add it there or remove the settings.",
				      b->ops->name, b->ops->name, lc->name);
			continue;
		}
		b->n_channels = lc->n_channels;
		if (b->ops->verify && b->ops->verify(b, &err) < 0)
			section_error(p, b->line, "%s", err ? err : "invalid backend settings");
	}
}

void section_end(struct parser *p)
{
	struct section *s = &p->sec;

	p->in_policy = false;
	if (!p->in_section)
		return;
	if (!s->skip)
		section_verify(p);
	p->in_section = false;
	/* A repeated name: the first definition stands, this one is dropped without marking
	 * the name failed (that would keep an old LED instead of the first definition). */
	if (s->skip)
		led_conf_free(s->lc);
	else if (s->error)
		conf_add_failed(p->conf, s->lc);
	else
		conf_add_led(p->conf, s->lc);
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i].key);
	free(s->keys);
	free(s->listed);
	free(s->first_key_line);
	*s = (struct section){.lc = NULL};
}

void section_begin(struct parser *p, const char *raw, size_t len, bool skip)
{
	struct section *s = &p->sec;
	const char *reason, *prev;

	section_end(p);
	if (!skip && len == strlen(POLICY_SECTION) && strncmp(raw, POLICY_SECTION, len) == 0) {
		p->in_policy = true;
		return;
	}
	if (led_conf_new(raw, len, p->path, p->line, &s->lc) < 0)
		return;
	p->in_section = true;
	s->skip = skip;
	if (skip)
		return;
	if (!led_name_is_valid(s->lc->name, &reason)) {
		section_error(p, p->line, "[%s] is not a valid LED name: %s.", s->lc->name, reason);
		return;
	}
	prev = conf_defined_at(p->conf, s->lc->name);
	if (prev) {
		conf_add_error(p->conf, p->path, p->line,
			       "LED '%s' is already defined at %s; remove or rename this one.",
			       s->lc->name, prev);
		s->skip = true;
		return;
	}
	conf_remember_name(p->conf, s->lc->name, p->path, p->line);
}

void section_key(struct parser *p, const char *key, const char *value)
{
	struct section *s = &p->sec;
	struct seen_key *nk;

	if (s->skip)
		return;
	for (size_t i = 0; i < s->n_keys; i++)
		if (streq(s->keys[i].key, key)) {
			section_error(p, p->line,
				      "'%s' is set twice in [%s] (first at line %u); keep one.",
				      key, s->lc->name, s->keys[i].line);
			return;
		}
	nk = realloc(s->keys, (s->n_keys + 1) * sizeof(*nk));
	if (nk) {
		s->keys = nk;
		s->keys[s->n_keys++] = (struct seen_key){.key = strdup(key), .line = p->line};
	}
	p->hash_in_value = strchr(value, '#');
	parse_key(p, key, value);
	p->hash_in_value = false;
}
