// SPDX-License-Identifier: MIT
/* Applying an LED's definition through sysfs: colour, default brightness, trigger and its
 * attributes; a trigger that is missing gets a hint and is attached once it appears. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/uleds.h>

#include "led-apply.h"
#include "led-input.h"
#include "led-sysfs.h"
#include "log.h"
#include "string-util.h"
#include "trigger-names.h"
#include "uleds-ext.h"

/* A trigger the kernel does not have: where it comes from, its module, or the nearest name. */
static void trigger_module_hint(struct led *l, const char *trigger, char *buf, size_t size)
{
	_cleanup_free_ char *list = NULL;
	size_t n;

	(void)led_read_attr(l, "trigger", &list);
	trigger_hint(trigger, list, buf, size);
	n = strlen(buf);
	if (trigger_device_source(trigger))
		return;
	if (trigger_module_exists(trigger))
		snprintf(buf + n, size - n, "; uledsd attaches it when it appears");
	else if (list)
		snprintf(buf + n, size - n, " (see %s/trigger)", l->sysfs);
}

/* Select the configured trigger (or none). Already in effect (set at registration, or an
 * adopted LED): not touched, a restart would be a visible glitch. */
static int led_set_trigger(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	_cleanup_free_ char *cur = NULL;
	const char *want = c->trigger ? c->trigger : "none";
	char hint[256];
	int r;

	if (led_current_trigger(l, &cur) >= 0 && streq(cur, want))
		return 0;
	free(cur);
	cur = NULL;
	if (c->trigger) {
		struct uleds_trigger t = {0};

		snprintf(t.name, sizeof(t.name), "%s", c->trigger);
		r = ioctl(l->fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 ? -errno : 0;
		/* The in-tree uleds has no such ioctl (ENOTTY); an adopted fd may be any uleds. */
		if (r == -ENOTTY || r == -EINVAL || l->adopted)
			r = led_write_attr(l, "trigger", want);
	} else
		r = led_write_attr(l, "trigger", "none");
	if (r >= 0)
		r = led_current_trigger(l, &cur);
	if (r >= 0 && !streq(cur, want))
		r = -ENOENT;
	if (r >= 0)
		return 0;
	trigger_module_hint(l, want, hint, sizeof(hint));
	return error_setf(ret_error, r, "%s:%u: trigger '%s' is not available for [%s]: %s.",
			  c->file, c->trigger_line ? c->trigger_line : c->line, want, l->name,
			  hint);
}

int led_apply_trigger(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	r = led_set_trigger(l, ret_error);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_attrs; i++) {
		const struct trigger_attr *a = &c->attrs[i];
		_cleanup_free_ char *now = NULL;

		/* Rewriting an equal value would restart a running timer: a visible glitch. */
		if (led_read_attr(l, a->key, &now) >= 0 && streq(now, a->value))
			continue;
		r = led_write_attr(l, a->key, a->value);
		if (r == -ENOENT)
			return error_setf(ret_error, r,
					  "%s:%u: trigger '%s' has no attribute '%s'; see ls "
					  "/sys/class/leds/%s/.",
					  c->file, a->line, c->trigger ? c->trigger : "none",
					  a->key, l->name);
		if (r < 0)
			return error_setf(
			    ret_error, r,
			    "%s:%u: the kernel refused trigger.%s = %s (%s); check the value.",
			    c->file, a->line, a->key, a->value, strerror(-r));
	}
	return 0;
}

int led_write_intensity(struct led *l, const unsigned *intensity)
{
	char buf[LED_CHANNELS_MAX * 12] = "";
	size_t len = 0;

	for (unsigned i = 0; i < l->n_channels; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? " " : "",
					intensity[i]);
	return led_write_attr(l, "multi_intensity", buf);
}

/* The value a "default_brightness = restore" LED starts with: the listener that keeps them. */
static int led_saved_brightness(struct led *l, unsigned *ret)
{
	for (size_t i = 0; i < l->ctx->n_listeners; i++) {
		const struct led_listener *li = &l->ctx->listeners[i];

		if (li->saved_brightness)
			return li->saved_brightness(l, ret, li->userdata);
	}
	return -ENOENT;
}

int led_apply_default(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	char buf[16];
	unsigned v;
	int r;

	/* Before the brightness: the first lit value shows the configured colour. */
	if (c->intensity_set) {
		r = led_write_intensity(l, c->intensity);
		if (r < 0)
			return error_setf(ret_error, r,
					  "%s:%u: failed to set multi_intensity of [%s]: %s.",
					  c->file, c->intensity_line, l->name, strerror(-r));
	}
	if (c->default_mode == DEFAULT_BRIGHTNESS_VALUE)
		v = (unsigned)c->default_brightness;
	else if (c->default_mode == DEFAULT_BRIGHTNESS_RESTORE) {
		r = led_saved_brightness(l, &v);
		if (r < 0)
			return 0; /* nothing saved yet: start dark */
		if (v > l->max_brightness)
			v = l->max_brightness;
	} else
		return 0;
	snprintf(buf, sizeof(buf), "%u", v);
	r = led_write_attr(l, "brightness", buf);
	if (r < 0)
		return error_setf(ret_error, r,
				  "%s:%u: failed to set the default brightness of [%s]: %s.",
				  c->file, c->line, l->name, strerror(-r));
	return 0;
}

int led_read_brightness(struct led *l)
{
	_cleanup_free_ char *s = NULL;
	int r;

	r = led_read_attr(l, "brightness", &s);
	if (r < 0)
		return r;
	l->brightness = (unsigned)strtoul(s, NULL, 10);
	return 0;
}

/* A multicolour LED taken over from the fd store: its channels as sysfs shows them. */
void led_read_intensity(struct led *l)
{
	_cleanup_free_ char *s = NULL;
	char *p, *end;

	l->n_channels = l->conf->n_channels;
	if (!l->n_channels || led_read_attr(l, "multi_intensity", &s) < 0)
		return;
	p = s;
	for (unsigned i = 0; i < l->n_channels; i++, p = end) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		l->intensity[i] = v > l->max_brightness ? l->max_brightness : (unsigned)v;
	}
}

/* An offloaded blink that started before a crash is not announced again: rewriting delay_on
 * (timer and its kind) makes the LED core hand it over anew, as a BLINK record. */
void led_adopt_blink(struct led *l)
{
	_cleanup_free_ char *on = NULL;

	if (led_read_attr(l, "delay_on", &on) >= 0)
		(void)led_write_attr(l, "delay_on", on);
}

/* The kernel lists the trigger now. Only reading: selecting a missing trigger through our
 * module's ioctl makes the LED core start a modprobe (request_module_nowait()). */
static bool led_trigger_listed(struct led *l, const char *trigger)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *list = NULL;

	return led_read_attr(l, "trigger", &list) >= 0 &&
	       trigger_list_parse(list, &names, NULL) >= 0 && strv_contains(names, trigger);
}

int led_retry_trigger(struct led *l)
{
	_cleanup_free_ char *err = NULL;

	if (!l->apply_failed || !l->conf->trigger || !led_trigger_listed(l, l->conf->trigger) ||
	    led_apply_trigger(l, &err) < 0)
		return 0;
	l->apply_failed = false;
	log_info("%s: trigger '%s' is available now; attached.", l->name, l->conf->trigger);
	(void)led_read_brightness(l);
	led_dispatch(l);
	return 1;
}
