// SPDX-License-Identifier: MIT
/* The gpio backend's configuration: gpio.* keys, checks without hardware, reload identity. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpio-conf.h"
#include "string-util.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "gpiochip12": the kernel's name of a chip, also its node in /dev. */
bool gpio_is_chip_name(const char *s)
{
	return strncmp(s, "gpiochip", 8) == 0 && all_digits(s + 8);
}

/* "/dev/gpiochip2" and "gpiochip2" are one chip; labels and other paths stay as written. */
const char *gpio_chip_key(const char *chip)
{
	if (strncmp(chip, "/dev/", 5) == 0 && gpio_is_chip_name(chip + 5))
		return chip + 5;
	return chip;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = {"yes", "true", "1", "on"};
	static const char *const no[] = {"no", "false", "0", "off"};

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

static char *strv_join(char *const *l, const char *sep)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; l && l[i]; i++)
		len += strlen(l[i]) + strlen(sep);
	s = calloc(1, len);
	for (size_t i = 0; s && l && l[i]; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, l[i]);
	}
	return s;
}

static bool strv_equal(char *const *a, char *const *b)
{
	size_t i = 0;

	for (; a && b && a[i] && b[i]; i++)
		if (!streq(a[i], b[i]))
			return false;
	return (!a || !a[i]) && (!b || !b[i]);
}

#define errorf(ret_error, ...) error_setf(ret_error, -EINVAL, __VA_ARGS__)

static int parse_chip(struct gpio_backend *p, const char *value, char **ret_error)
{
	if (!*value)
		return errorf(
		    ret_error,
		    "gpio.chip is empty: give a path (/dev/gpiochip0), a chip name (gpiochip0) or "
		    "a label as gpiodetect shows it in brackets, or remove it to search every "
		    "chip.");
	str_unshare(p->chip);
	p->chip = str_shared(value);
	return p->chip ? 0 : -ENOMEM;
}

static int parse_line(struct gpio_backend *p, const char *value, char **ret_error)
{
	unsigned v;

	if (!*value)
		return errorf(ret_error, "gpio.line is empty: give a line name (as gpioinfo shows "
					 "it) or an offset such as 3.");
	free(p->line);
	p->line = NULL;
	p->by_offset = all_digits(value);
	if (!p->by_offset) {
		p->line = strdup(value);
		return p->line ? 0 : -ENOMEM;
	}
	if (safe_atou(value, &v) < 0 || v > INT_MAX)
		return errorf(ret_error,
			      "gpio.line = %s is too large for a line offset; use the line's "
			      "offset on its chip (gpioinfo lists them) or its name.",
			      value);
	p->offset = v;
	return 0;
}

/* One word per colour channel, in the order of the LED's "color"; checked in gpio_verify(). */
static int parse_lines(struct gpio_backend *p, const char *value, char **ret_error)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	strv_free(p->lines);
	p->lines = NULL;
	p->n_lines = 0;
	p->lines_given = true;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		size_t n = p->n_lines;

		if (strv_push(&p->lines, &n, strdup(w)) < 0)
			return -ENOMEM;
		p->n_lines++;
	}
	if (!p->n_lines)
		return errorf(ret_error, "gpio.lines is empty: give one line (name or offset) per "
					 "colour channel, e.g. gpio.lines = LED_R LED_G LED_B.");
	return 0;
}

static int parse_flag(const char *key, bool *ret, const char *value, char **ret_error)
{
	int r = parse_bool(value);

	if (r < 0)
		return errorf(ret_error,
			      "gpio.%s = '%s' is not a boolean: use yes or no (true/false, on/off, "
			      "1/0).",
			      key, value);
	*ret = r;
	return 0;
}

static int parse_active_low(struct gpio_backend *p, const char *value, char **ret_error)
{
	return parse_flag("active_low", &p->active_low, value, ret_error);
}

static int parse_share(struct gpio_backend *p, const char *value, char **ret_error)
{
	return parse_flag("share", &p->share, value, ret_error);
}

/* A keyword among a few, each an enum value: "push-pull" -> GPIOD_LINE_DRIVE_PUSH_PULL. */
struct keyword {
	const char *word;
	int value;
};

struct keyword_key {
	const char *key;
	const char *help;	 /* "use HELP." in the error */
	struct keyword words[5]; /* ends with an empty entry */
};

static int parse_keyword(const struct keyword_key *k, const char *value, int *ret, char **ret_error)
{
	for (const struct keyword *w = k->words; w->word; w++)
		if (streq(w->word, value)) {
			*ret = w->value;
			return 0;
		}
	return errorf(ret_error, "gpio.%s = '%s' is not valid: use %s.", k->key, value, k->help);
}

static int parse_drive(struct gpio_backend *p, const char *value, char **ret_error)
{
	static const struct keyword_key k = {
	    "drive",
	    "push-pull (the default), open-drain or open-source",
	    {{"push-pull", GPIOD_LINE_DRIVE_PUSH_PULL},
	     {"open-drain", GPIOD_LINE_DRIVE_OPEN_DRAIN},
	     {"open-source", GPIOD_LINE_DRIVE_OPEN_SOURCE}},
	};
	int v, r = parse_keyword(&k, value, &v, ret_error);

	if (r >= 0)
		p->drive = (enum gpiod_line_drive)v;
	return r;
}

static int parse_bias(struct gpio_backend *p, const char *value, char **ret_error)
{
	static const struct keyword_key k = {
	    "bias",
	    "as-is (the default), disabled, pull-up or pull-down",
	    {{"as-is", GPIOD_LINE_BIAS_AS_IS},
	     {"disabled", GPIOD_LINE_BIAS_DISABLED},
	     {"pull-up", GPIOD_LINE_BIAS_PULL_UP},
	     {"pull-down", GPIOD_LINE_BIAS_PULL_DOWN}},
	};
	int v, r = parse_keyword(&k, value, &v, ret_error);

	if (r >= 0)
		p->bias = (enum gpiod_line_bias)v;
	return r;
}

static int parse_threshold(struct gpio_backend *p, const char *value, char **ret_error)
{
	unsigned v;

	if (safe_atou(value, &v) < 0 || v < 1 || v > INT_MAX)
		return errorf(ret_error,
			      "gpio.threshold = '%s' is not valid: give a whole number from 1 to "
			      "%d; the line is on while brightness >= threshold.",
			      value, INT_MAX);
	p->threshold = v;
	return 0;
}

static int parse_on_exit(struct gpio_backend *p, const char *value, char **ret_error)
{
	static const struct keyword_key k = {
	    "on_exit",
	    "off (drive the line inactive before releasing it, the default) or keep",
	    {{"off", GPIO_ON_EXIT_OFF}, {"keep", GPIO_ON_EXIT_KEEP}},
	};
	int v, r = parse_keyword(&k, value, &v, ret_error);

	if (r >= 0)
		p->on_exit = (enum gpio_on_exit)v;
	return r;
}

/* One table, so the keys a user may write are all in one place (and in the unknown-key
 * message below). */
int gpio_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	static const struct {
		const char *key;
		int (*parse)(struct gpio_backend *p, const char *value, char **ret_error);
	} keys[] = {
	    {"chip", parse_chip},	{"line", parse_line}, {"lines", parse_lines},
	    {"active_low", parse_active_low},
	    {"drive", parse_drive},	{"bias", parse_bias}, {"threshold", parse_threshold},
	    {"on_exit", parse_on_exit}, {"share", parse_share},
	};

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (streq(keys[i].key, key))
			return keys[i].parse(b->priv, value, ret_error);
	return errorf(ret_error,
		      "unknown key 'gpio.%s'; the gpio backend knows gpio.chip, gpio.line, "
		      "gpio.lines, gpio.active_low, gpio.drive, gpio.bias, gpio.threshold, gpio.on_exit "
		      "and gpio.share.",
		      key);
}

static int verify_lines(struct led_backend *b, char **ret_error)
{
	struct gpio_backend *p = b->priv;

	if (p->line || p->by_offset)
		return errorf(ret_error, "gpio.line and gpio.lines are both set; a multicolour LED "
					 "takes gpio.lines (one per channel), a plain one gpio.line.");
	if (!b->n_channels)
		return errorf(ret_error,
			      "gpio.lines needs a multicolour LED: add 'color = ...' with one "
			      "colour per line, or use gpio.line for a single line.");
	if (p->n_lines != b->n_channels)
		return errorf(ret_error,
			      "gpio.lines has %u lines but the LED has %u colour channels; give "
			      "one line per channel, in the order of 'color'.",
			      p->n_lines, b->n_channels);
	for (unsigned i = 0; i < p->n_lines; i++)
		if (all_digits(p->lines[i]) && !p->chip)
			return errorf(ret_error,
				      "gpio.lines: %s is an offset, which needs gpio.chip to say on "
				      "which chip; add gpio.chip or give line names.",
				      p->lines[i]);
	return 0;
}

int gpio_verify(struct led_backend *b, char **ret_error)
{
	struct gpio_backend *p = b->priv;

	if (p->n_lines)
		return verify_lines(b, ret_error);
	if (p->lines_given)
		return 0; /* an empty gpio.lines, reported where it is */
	if (b->n_channels)
		return errorf(ret_error,
			      "the LED is multicolour (color = ...): give the gpio backend one "
			      "line per channel with gpio.lines = R G B instead of gpio.line.");

	if (!p->line && !p->by_offset)
		return errorf(ret_error, "the gpio backend needs gpio.line: a line name (as "
					 "gpioinfo shows it) or an offset with gpio.chip.");
	if (p->by_offset && !p->chip)
		return errorf(
		    ret_error,
		    "gpio.line = %u is an offset, which needs gpio.chip to say on which chip; add "
		    "gpio.chip (gpiochipN or the chip's label) or give the line's name.",
		    p->offset);
	return 0;
}

/* Keyed by gpio_chip_key(): "/dev/gpiochip0" and "gpiochip0" clash. A label and the chip name
 * it stands for cannot be matched before the chip exists: the kernel refuses the second
 * request then (EBUSY), which the status reports. */
char *gpio_claim(const struct led_backend *b)
{
	const struct gpio_backend *p = b->priv;
	char *s;
	int r;

	if (p->n_lines) {
		_cleanup_free_ char *list = strv_join(p->lines, " ");

		r = asprintf(&s, "GPIO lines %s%s%s", list ? list : "?", p->chip ? " on " : "",
			     p->chip ? gpio_chip_key(p->chip) : "");
		return r < 0 ? NULL : s;
	}
	if (!p->line && !p->by_offset)
		return NULL;
	if (!p->chip)
		r = asprintf(&s, "GPIO line '%s'", p->line);
	else if (p->by_offset)
		r = asprintf(&s, "GPIO line %u on %s", p->offset, gpio_chip_key(p->chip));
	else
		r = asprintf(&s, "GPIO line '%s' on %s", p->line, gpio_chip_key(p->chip));
	return r < 0 ? NULL : s;
}

/* Defaults folded in: writing out a default (drive = push-pull) is no change, so a reload
 * does not release and request the line again for it. */
bool gpio_same(const struct led_backend *a, const struct led_backend *b)
{
	const struct gpio_backend *x = a->priv, *y = b->priv;

	return streq_ptr(x->chip ? gpio_chip_key(x->chip) : NULL,
			 y->chip ? gpio_chip_key(y->chip) : NULL) &&
	       x->by_offset == y->by_offset && streq_ptr(x->line, y->line) &&
	       (!x->by_offset || x->offset == y->offset) && x->active_low == y->active_low &&
	       (x->drive ? x->drive : GPIOD_LINE_DRIVE_PUSH_PULL) ==
		   (y->drive ? y->drive : GPIOD_LINE_DRIVE_PUSH_PULL) &&
	       (x->bias ? x->bias : GPIOD_LINE_BIAS_AS_IS) ==
		   (y->bias ? y->bias : GPIOD_LINE_BIAS_AS_IS) &&
	       (x->threshold ? x->threshold : 1) == (y->threshold ? y->threshold : 1) &&
	       x->on_exit == y->on_exit && x->share == y->share && x->n_lines == y->n_lines &&
	       (!x->n_lines || strv_equal(x->lines, y->lines));
}

void gpio_free_priv(struct led_backend *b)
{
	struct gpio_backend *p = b->priv;

	str_unshare(p->chip);
	free(p->line);
	p->chip = NULL;
	p->line = NULL;
	strv_free(p->lines);
	p->lines = NULL;
	p->n_lines = 0;
}
