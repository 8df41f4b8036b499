// SPDX-License-Identifier: MIT
/* One LED's definition: its lifetime, its name rules, and the one place a reload diff is made. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "led-conf.h"
#include "string-util.h"

int led_conf_new(const char *name, size_t name_len, const char *file, unsigned line,
		 struct led_conf **ret)
{
	_cleanup_(led_conf_freep) struct led_conf *lc = NULL;

	lc = calloc(1, sizeof(*lc));
	if (!lc)
		return -ENOMEM;
	lc->name = strndup(name, name_len);
	lc->file = str_shared(file);
	lc->line = line;
	lc->max_brightness = 255;
	if (!lc->name || !lc->file)
		return -ENOMEM;
	*ret = TAKE_PTR(lc);
	return 0;
}

struct led_conf *led_conf_free(struct led_conf *lc)
{
	if (!lc)
		return NULL;
	/* Entries may be NULL: led_reconcile() moved the kept ones into the new definition. */
	for (size_t i = 0; i < lc->n_backends; i++)
		led_backend_free(lc->backends[i]);
	free(lc->backends);
	for (size_t i = 0; i < lc->n_attrs; i++) {
		free(lc->attrs[i].key);
		free(lc->attrs[i].value);
	}
	free(lc->attrs);
	free(lc->trigger);
	str_unshare(lc->file);
	free(lc->name);
	free(lc);
	return NULL;
}

static bool trigger_same(const struct led_conf *a, const struct led_conf *b)
{
	if (!streq_ptr(a->trigger, b->trigger) || a->n_attrs != b->n_attrs)
		return false;
	for (size_t i = 0; i < a->n_attrs; i++)
		if (!streq(a->attrs[i].key, b->attrs[i].key) ||
		    !streq(a->attrs[i].value, b->attrs[i].value))
			return false;
	return true;
}

/* In order: a backend listed elsewhere in "backends =" is a change (it is attached anew). */
static bool backends_same(const struct led_conf *a, const struct led_conf *b)
{
	if (a->n_backends != b->n_backends)
		return false;
	for (size_t i = 0; i < a->n_backends; i++) {
		const struct led_backend *x = a->backends[i], *y = b->backends[i];

		if (x->ops != y->ops || (x->ops->same && !x->ops->same(x, y)))
			return false;
	}
	return true;
}

void led_conf_diff(const struct led_conf *old, const struct led_conf *new,
		   struct led_conf_diff *ret)
{
	*ret = (struct led_conf_diff){
	    .recreate = old->max_brightness != new->max_brightness || old->blink != new->blink ||
			old->no_events != new->no_events || old->n_channels != new->n_channels ||
			memcmp(old->color, new->color, sizeof(old->color)) != 0,
	    /* A number counts only when it is the mode: restore ignores it. */
	    .defaults = old->default_mode != new->default_mode ||
			(new->default_mode == DEFAULT_BRIGHTNESS_VALUE &&
			 old->default_brightness != new->default_brightness) ||
			old->intensity_set != new->intensity_set ||
			memcmp(old->intensity, new->intensity, sizeof(old->intensity)) != 0,
	    .trigger = !trigger_same(old, new),
	    .backends = !backends_same(old, new),
	};
}

enum led_change led_conf_compare(const struct led_conf *old, const struct led_conf *new)
{
	struct led_conf_diff d;

	led_conf_diff(old, new, &d);
	if (d.recreate)
		return LED_CHANGE_RECREATE;
	return d.defaults || d.trigger || d.backends ? LED_CHANGE_UPDATE : LED_CHANGE_NONE;
}

/* The kernel's led_colors[] (drivers/leds/led-core.c), indexed by LED_COLOR_ID_*: the
 * words /sys/class/leds/NAME/multi_index shows. */
static const char *const color_names[] = {
    "white",	  "red", "green",  "blue",   "amber", "violet", "yellow", "ir",
    "multicolor", "rgb", "purple", "orange", "pink",  "cyan",	"lime",
};

const char *led_color_to_string(unsigned color)
{
	return color < ELEMENTSOF(color_names) ? color_names[color] : NULL;
}

int led_color_from_string(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(color_names); i++)
		if (streq(color_names[i], s))
			return (int)i;
	return -EINVAL;
}

bool led_name_is_valid(const char *name, const char **ret_reason)
{
	const char *reason = NULL;
	size_t n = strlen(name);

	if (n == 0)
		reason = "it is empty";
	else if (n > LED_NAME_MAX)
		reason = "it is longer than the kernel's 63 bytes";
	else if (strchr(name, '/'))
		reason = "it contains '/'";
	else if (streq(name, ".") || streq(name, ".."))
		reason = "\".\" and \"..\" are not valid names";
	/* D-Bus carries UTF-8 only: sd-bus would refuse every message naming this LED,
	 * GetManagedObjects for all LEDs included. */
	else if (!utf8_is_valid(name))
		reason = "it is not valid UTF-8 (write the name in UTF-8)";
	else
		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			if (*p < 0x20 || *p == 0x7f) {
				reason = "it contains a control character";
				break;
			}
	if (ret_reason)
		*ret_reason = reason;
	return !reason;
}

bool trigger_name_is_valid(const char *s)
{
	if (!*s || strlen(s) > LED_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

bool trigger_attr_name_is_valid(const char *s)
{
	/* Files of the LED core and of the device model: a "trigger.brightness" would change
	 * the LED behind the daemon's back, "power" or "device" lead out of the LED. */
	static const char *const reserved[] = {
	    "brightness", "max_brightness", "trigger",
	    "uevent",	  "power",	    "device",
	    "subsystem",  "of_node",	    "brightness_hw_changed"};

	if (!*s || strlen(s) > LED_NAME_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return false;
	for (size_t i = 0; i < ELEMENTSOF(reserved); i++)
		if (streq(s, reserved[i]))
			return false;
	return true;
}

int trigger_list_parse(const char *list, char ***ret_names, char **ret_current)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *current = NULL;
	size_t n = 0;

	for (const char *p = list;;) {
		size_t len;
		bool selected;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		len = strcspn(p, " \t\n");
		/* "[]" selects no name: a word like any other (found by fuzz-trigger-list). */
		selected = len >= 3 && p[0] == '[' && p[len - 1] == ']';
		if (selected) {
			/* Two selected triggers: not what the LED core writes. */
			if (current)
				return -EBADMSG;
			current = strndup(p + 1, len - 2);
			if (!current)
				return -ENOMEM;
		}
		if (strv_push(&names, &n, selected ? strdup(current) : strndup(p, len)) < 0)
			return -ENOMEM;
		p += len;
	}
	if (ret_current && !current)
		return -EBADMSG;
	if (ret_names)
		*ret_names = names ? TAKE_PTR(names) : calloc(1, sizeof(char *));
	if (ret_names && !*ret_names)
		return -ENOMEM;
	if (ret_current)
		*ret_current = TAKE_PTR(current);
	return 0;
}
