// SPDX-License-Identifier: MIT
/* One virtual LED's life: made (registered or adopted from the fd store), its backends wired,
 * updated in place by a reload, freed; and the context all LEDs of a daemon share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "led.h"
#include "led-apply.h"
#include "led-device.h"
#include "led-input.h"
#include "log.h"
#include "string-util.h"

const char *led_mode_to_string(enum led_mode mode)
{
	static const char *const names[] = {
	    [LED_MODE_LATEST] = "latest-value",
	    [LED_MODE_EVENT] = "event",
	    [LED_MODE_EVENT_OFFLOAD] = "event-offload",
	};

	return names[mode];
}

bool led_has_bus_signals(const struct led *l)
{
	for (size_t i = 0; i < l->conf->n_backends; i++)
		if (l->conf->backends[i]->ops->bus_signals)
			return true;
	return false;
}

static void on_backend_status(struct led_backend *b _unused_, void *userdata)
{
	led_emit(userdata, LED_EVENT_BACKENDS_CHANGED);
}

static void on_backend_signal(struct led_backend *b _unused_, void *userdata)
{
	led_emit(userdata, LED_EVENT_SIGNAL_BRIGHTNESS);
}

/* Give b what it needs of the daemon, and attach it. A backend that fails is reported; the
 * LED works without it. */
static void led_attach_backend(struct led *l, struct led_backend *b)
{
	struct led_context *m = l->ctx;
	struct backend_context ctx = {
	    .event = m->event,
	    .dev_dir = m->dev_dir,
	    .led_name = l->name,
	    .sysfs = l->sysfs,
	    .max_brightness = l->max_brightness,
	    .brightness = l->brightness,
	    .n_channels = l->n_channels,
	    .intensity = l->n_channels ? l->intensity : NULL,
	    .status_changed = on_backend_status,
	    .signal_brightness = on_backend_signal,
	    .userdata = l,
	};
	int r;

	r = backend_shared_get(&m->backend_shared, b->ops, m->event, m->dev_dir, &ctx.shared);
	if (r >= 0)
		r = led_backend_attach(b, &ctx);
	else
		(void)led_backend_set_status(b, false, "failed: %s", strerror(-r));
	if (r < 0)
		log_error_errno(
		    r, "%s:%u: [%s] backend %s failed to start: %m; the LED works without it.",
		    b->file, b->line, l->name, b->ops->name);
}

static void led_attach_backends(struct led *l)
{
	for (size_t i = 0; i < l->conf->n_backends; i++)
		if (!l->conf->backends[i]->attached)
			led_attach_backend(l, l->conf->backends[i]);
}

/* The fd store kept the LED alive: it exists with its trigger still running. */
static int led_adopt(struct led *l, int fd, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	l->fd = fd;
	l->adopted = true;
	led_set_event_mode(l);
	r = led_read_brightness(l);
	if (r < 0)
		return error_setf(ret_error, r,
				  "%s:%u: adopted LED '%s' has no readable %s/brightness.", c->file,
				  c->line, l->name, l->sysfs);
	led_read_intensity(l);
	/* The configured trigger may have changed while uledsd was down (one set at run time
	 * through sysfs or D-Bus, with none configured, stays). */
	r = c->trigger ? led_apply_trigger(l, ret_error) : 0;
	if (r >= 0 && l->mode != LED_MODE_LATEST)
		led_adopt_blink(l);
	return r;
}

static int led_create(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	r = led_register(l, ret_error);
	if (r < 0)
		return r;
	/* A new LED has no trigger and the brightness just read: touch sysfs only when the
	 * configuration asks for something else (1000 LEDs start in a blink). */
	if (c->default_mode == DEFAULT_BRIGHTNESS_UNSET && !c->trigger && !c->intensity_set)
		return 0;
	r = led_apply_default(l, ret_error);
	if (r >= 0 && c->trigger)
		r = led_apply_trigger(l, ret_error);
	/* A trigger whose module is not loaded yet: the LED works meanwhile, and
	 * led_retry_trigger() attaches it once the module appears. */
	if (r == -ENOENT && *ret_error) {
		l->apply_failed = true;
		led_emit(l, LED_EVENT_TRIGGER_MISSING);
		r = 1;
	}
	if (r < 0)
		return r;
	(void)led_read_brightness(l);
	led_read_intensity(l);
	return r;
}

int led_new(struct led_context *m, struct led_conf *conf, int adopt_fd, struct led **ret,
	    char **ret_error)
{
	_cleanup_(led_freep) struct led *l = NULL;
	bool pending;
	int r;

	*ret_error = NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		led_conf_free(conf);
		safe_close(adopt_fd);
		return -ENOMEM;
	}
	*l = (struct led){.ctx = m, .conf = conf, .fd = -1};
	l->max_brightness = (unsigned)conf->max_brightness;
	l->name = strdup(conf->name);
	if (!l->name || asprintf(&l->sysfs, "%s/%s", m->sysfs_leds, conf->name) < 0) {
		l->sysfs = NULL;
		safe_close(adopt_fd);
		return -ENOMEM;
	}
	/* uledsd's kmod: every LED of the daemon in one uleds group, made before the first
	 * registration (the in-tree uleds has none: each LED is read from its own fd). */
	if (m->uleds_ext != 0 && led_watch_open_group(m->event, &m->watch, m->uleds_path) > 0)
		m->uleds_ext = 1;
	r = adopt_fd >= 0 ? led_adopt(l, adopt_fd, ret_error) : led_create(l, ret_error);
	if (r < 0) {
		/* systemd's copy would keep an adopted LED alive: remove it (kmod) before the
		 * caller's FDSTOREREMOVE by name, which misses an fd stored in a batch. */
		if (l->adopted)
			led_emit(l, LED_EVENT_ADOPT_FAILED);
		return r;
	}
	pending = r > 0;
	/* All LEDs share one sd-event source (led-watch.c): a wakeup reads the records of many
	 * LEDs from their group, or every ready LED. */
	l->watch =
	    (struct led_watch_member){.fd = l->fd, .ready = led_on_ready, .record = led_on_record};
	r = led_watch_add(m->event, &m->watch, &l->watch);
	if (r < 0)
		return error_setf(ret_error, r, "Failed to watch LED '%s': %s.", l->name,
				  strerror(-r));
	led_attach_backends(l);
	led_dispatch(l);
	l->announced = true;
	led_emit(l, LED_EVENT_ADDED);
	*ret = TAKE_PTR(l);
	return pending;
}

static void led_detach_backends(struct led_conf *c)
{
	for (size_t i = 0; i < c->n_backends; i++)
		if (c->backends[i])
			led_backend_detach(c->backends[i]);
}

struct led *led_free(struct led *l)
{
	if (!l)
		return NULL;
	/* Listeners first: the fields are still valid, the fd still open. */
	if (l->announced)
		led_emit(l, LED_EVENT_REMOVED);
	/* Before anything they may use goes (a log backend writes its last record). */
	led_detach_backends(l->conf);
	/* Before close: the fd store's copy keeps the epoll item alive (led-watch.h). */
	led_watch_remove(l->ctx->watch, &l->watch);
	safe_close(l->fd);
	led_conf_free(l->conf);
	free(l->sysfs);
	free(l->name);
	free(l);
	return NULL;
}

enum led_change led_compare(const struct led *l, const struct led_conf *conf)
{
	enum led_change c = led_conf_compare(l->conf, conf);

	/* What failed to apply last time (a trigger module not loaded yet) is tried again. */
	if (c == LED_CHANGE_NONE && l->apply_failed)
		c = LED_CHANGE_UPDATE;
	return c;
}

/* conf's backends whose settings are unchanged take the place of the running instance (no
 * glitch on a GPIO line); the other running ones are detached before any new one attaches, so
 * a resource they held is free for their successor. conf becomes the LED's definition.
 * Returns how many backends were kept. */
static size_t led_reconcile(struct led *l, struct led_conf *conf)
{
	struct led_conf *old = l->conf;
	size_t n_keep = 0;

	for (size_t i = 0; i < conf->n_backends; i++) {
		struct led_backend *nb = conf->backends[i];

		for (size_t j = 0; j < old->n_backends; j++) {
			struct led_backend *ob = old->backends[j];

			if (!ob || ob->ops != nb->ops || (ob->ops->same && !ob->ops->same(ob, nb)))
				continue;
			led_backend_free(nb);
			conf->backends[i] = TAKE_PTR(old->backends[j]);
			n_keep++;
			break;
		}
	}
	led_detach_backends(old);
	l->conf = conf;
	led_conf_free(old);
	led_attach_backends(l);
	return n_keep;
}

int led_update(struct led *l, struct led_conf *conf, char **ret_error)
{
	struct led_conf_diff d;
	size_t n_keep;
	int r = 0;

	*ret_error = NULL;
	led_conf_diff(l->conf, conf, &d);
	n_keep = led_reconcile(l, conf);
	if (l->apply_failed || d.defaults)
		r = led_apply_default(l, ret_error);
	if (r >= 0 && (l->apply_failed || d.defaults || d.trigger))
		r = led_apply_trigger(l, ret_error);
	l->apply_failed = r < 0;
	if (l->apply_failed && l->conf->trigger)
		led_emit(l, LED_EVENT_TRIGGER_MISSING);
	(void)led_read_brightness(l);
	if (n_keep < l->conf->n_backends)
		led_dispatch(l);
	led_emit(l, LED_EVENT_BACKENDS_CHANGED);
	return r;
}

int led_context_init(struct led_context *ctx, sd_event *event)
{
	*ctx = (struct led_context){.event = event, .uleds_ext = -1};
	ctx->uleds_path = strdup("/dev/uleds");
	ctx->sysfs_leds = strdup("/sys/class/leds");
	ctx->dev_dir = strdup("/dev");
	return ctx->uleds_path && ctx->sysfs_leds && ctx->dev_dir ? 0 : -ENOMEM;
}

void led_context_done(struct led_context *ctx)
{
	ctx->watch = led_watch_free(ctx->watch);
	ctx->backend_shared = backend_shared_free(ctx->backend_shared);
	free(ctx->uleds_path);
	free(ctx->sysfs_leds);
	free(ctx->dev_dir);
	ctx->uleds_path = ctx->sysfs_leds = ctx->dev_dir = NULL;
}

void led_context_flush(struct led_context *ctx)
{
	backend_shared_flush(ctx->backend_shared);
}

int led_context_listen(struct led_context *ctx, const struct led_listener *listener)
{
	if (ctx->n_listeners == LED_LISTENERS_MAX)
		return -E2BIG;
	ctx->listeners[ctx->n_listeners++] = *listener;
	return 0;
}
