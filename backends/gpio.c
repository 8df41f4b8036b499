// SPDX-License-Identifier: MIT
/* The gpio backend: drives one GPIO line (libgpiod v2) from an LED, follows chip hotplug
 * (gpio-chips.c), finds and requests the line (gpio-line.c). */
#include <stdio.h>
#include <string.h>

#include "gpio-chips.h"
#include "gpio-conf.h"
#include "gpio-group.h"
#include "gpio-line.h"
#include "log.h"
#include "string-util.h"

/* ---- ops ---- */

static void line_attach(struct gpio_backend *p, struct led_backend *b, unsigned brightness)
{
	p->self = b;
	p->value = -1;
	p->brightness = brightness;
	gpio_watcher_add(b->ctx.shared, p);
	gpio_group_attach(p);
}

/* gpio.lines: a line instance per channel, configured like the backend but for its line. */
static int channels_attach(struct gpio_backend *p, struct led_backend *b)
{
	p->channels = calloc(p->n_lines, sizeof(*p->channels));
	if (!p->channels)
		return -ENOMEM;
	for (unsigned i = 0; i < p->n_lines; i++) {
		struct gpio_backend *c = &p->channels[i];
		unsigned v;

		*c = (struct gpio_backend){
		    .chip = p->chip,
		    .active_low = p->active_low,
		    .drive = p->drive,
		    .bias = p->bias,
		    .threshold = p->threshold,
		    .on_exit = p->on_exit,
		    .share = p->share,
		    .parent = p,
		};
		if (safe_atou(p->lines[i], &v) >= 0 && p->lines[i][0] >= '0' &&
		    p->lines[i][0] <= '9') {
			c->by_offset = true;
			c->offset = v;
		} else
			c->line = p->lines[i];
	}
	for (unsigned i = 0; i < p->n_lines; i++)
		line_attach(&p->channels[i], b, led_backend_channel(b, b->ctx.brightness, i));
	return 0;
}

static int gpio_attach(struct led_backend *b)
{
	struct gpio_backend *p = b->priv;

	p->self = b;
	if (!b->ctx.shared)
		return -EINVAL; /* made by shared_new before every attach */
	if (p->threshold > b->ctx.max_brightness)
		log_warning(
		    "%s: gpio.threshold = %u is above max_brightness %u: the line never turns on.",
		    gpio_led_name(p), p->threshold, b->ctx.max_brightness);
	if (p->n_lines)
		return channels_attach(p, b);
	line_attach(p, b, b->ctx.brightness);
	return 0;
}

/* Drive the line to value (0 or 1) when it differs from what it shows. */
static int gpio_drive(struct gpio_backend *p, int value)
{
	/* Dimming changes brightness often and the line rarely: only changes reach the kernel. */
	if (value == p->value)
		return 0;
	if (p->group) {
		gpio_group_set(p, value);
		return 0;
	}
	if (!p->request)
		return 0;
	if (gpiod_line_request_set_value(p->request, p->line_offset,
					 value ? GPIOD_LINE_VALUE_ACTIVE
					       : GPIOD_LINE_VALUE_INACTIVE) < 0) {
		int r = -errno;

		if (r == -ENODEV)
			gpio_chip_gone(p);
		return r;
	}
	p->value = value;
	return 0;
}

static void blink_stop(struct gpio_backend *p)
{
	p->blink_timer = sd_event_source_disable_unref(p->blink_timer);
	p->blink_on_ms = p->blink_off_ms = 0;
}

/* Each phase is timed from the previous deadline, not from when the loop got here: no drift
 * however late the daemon runs. */
static int on_blink_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct gpio_backend *p = userdata;
	unsigned ms;

	p->blink_lit = !p->blink_lit;
	(void)gpio_drive(p, p->blink_lit ? gpio_wanted_value(p, p->brightness) : 0);
	ms = p->blink_lit ? p->blink_on_ms : p->blink_off_ms;
	(void)sd_event_source_set_time(s, usec + (uint64_t)(ms ? ms : 1) * 1000);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int line_blink(struct led_backend *b, struct gpio_backend *p, unsigned brightness,
		      unsigned on_ms, unsigned off_ms)
{
	int r;

	p->brightness = brightness;
	/* Same delays: a new level, applied at once when lit; the rhythm goes on. */
	if (p->blink_timer && on_ms == p->blink_on_ms && off_ms == p->blink_off_ms)
		return p->blink_lit ? gpio_drive(p, gpio_wanted_value(p, brightness)) : 0;
	blink_stop(p);
	p->blink_on_ms = on_ms;
	p->blink_off_ms = off_ms;
	p->blink_lit = true;
	r = sd_event_add_time_relative(b->ctx.event, &p->blink_timer, CLOCK_MONOTONIC,
				       (uint64_t)(on_ms ? on_ms : 1) * 1000, 0, on_blink_timer, p);
	if (r < 0)
		return r;
	(void)sd_event_source_set_description(p->blink_timer, "gpio-blink");
	return gpio_drive(p, gpio_wanted_value(p, brightness));
}

static int gpio_blink(struct led_backend *b, unsigned brightness, unsigned on_ms, unsigned off_ms)
{
	struct gpio_backend *p = b->priv;
	int r = 0;

	if (!p->channels)
		return line_blink(b, p, brightness, on_ms, off_ms);
	for (unsigned i = 0; i < p->n_lines; i++) {
		int k = line_blink(b, &p->channels[i], led_backend_channel(b, brightness, i),
				   on_ms, off_ms);

		r = r < 0 ? r : k;
	}
	return r;
}

static int line_set(struct gpio_backend *p, unsigned brightness)
{
	blink_stop(p);
	p->brightness = brightness;
	return gpio_drive(p, gpio_wanted_value(p, brightness));
}

/* A multicolour LED: each line follows its channel's share (intensity) of the brightness. */
static int gpio_set(struct led_backend *b, unsigned brightness)
{
	struct gpio_backend *p = b->priv;
	int r = 0;

	if (!p->channels)
		return line_set(p, brightness);
	for (unsigned i = 0; i < p->n_lines; i++) {
		int k = line_set(&p->channels[i], led_backend_channel(b, brightness, i));

		r = r < 0 ? r : k;
	}
	return r;
}

static void line_detach(struct gpio_backend *p)
{
	struct gpiod_line_request *request = p->group ? p->group->request : p->request;

	gpio_busy_stop(p);
	blink_stop(p);
	if (request && p->on_exit == GPIO_ON_EXIT_OFF && p->value != 0) {
		if (gpiod_line_request_set_value(request, p->line_offset,
						 GPIOD_LINE_VALUE_INACTIVE) < 0)
			log_debug_errno(errno, "%s: gpio: failed to turn line %u on %s off: %m",
					gpio_led_name(p), p->line_offset, p->chip_name);
		else
			log_debug(
			    "%s: gpio: line %u on %s driven off before release (on_exit = off).",
			    gpio_led_name(p), p->line_offset, p->chip_name);
	}
	if (request)
		log_debug("%s: gpio: releasing line %u on %s.", gpio_led_name(p), p->line_offset,
			  p->chip_name);
	gpio_group_leave(p);
	gpio_request_drop(p);
	gpio_watcher_remove(p);
	str_unshare(p->chip_name);
	p->chip_name = NULL;
	p->lost = false;
}

static void gpio_detach(struct led_backend *b)
{
	struct gpio_backend *p = b->priv;

	if (!p->channels) {
		line_detach(p);
		return;
	}
	for (unsigned i = 0; i < p->n_lines; i++) {
		line_detach(&p->channels[i]);
		free(p->channels[i].channel_status);
	}
	free(p->channels);
	p->channels = NULL;
}

static int gpio_shared_new(sd_event *event, const char *dev_dir, void **ret)
{
	return gpio_watcher_new(event, dev_dir, gpio_group_chip_gone, gpio_group_attach, ret);
}

static void gpio_describe(const struct led_backend *b, char *buf, size_t size)
{
	gpio_line_attached_text(b->priv, buf, size);
}

static void gpio_shared_flush(void *shared)
{
	gpio_groups_flush(shared);
}

static void gpio_shared_free(void *shared)
{
	gpio_groups_free(shared);
	gpio_watcher_free(shared);
}

const struct backend_ops backend_gpio = {
    .name = "gpio",
    .hardware = true,
    .priv_size = sizeof(struct gpio_backend),
    .shared_new = gpio_shared_new,
    .shared_flush = gpio_shared_flush,
    .shared_free = gpio_shared_free,
    .parse = gpio_parse,
    .verify = gpio_verify,
    .claim = gpio_claim,
    .check = gpio_check,
    .attach = gpio_attach,
    .set = gpio_set,
    .blink = gpio_blink,
    .detach = gpio_detach,
    .same = gpio_same,
    .free_priv = gpio_free_priv,
    .describe = gpio_describe,
};
