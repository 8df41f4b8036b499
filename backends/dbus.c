// SPDX-License-Identifier: MIT
/* The dbus backend: Brightness PropertiesChanged signals for this LED, at most max_rate a second. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "bus.h"
#include "led.h"
#include "macro.h"
#include "manager.h"

#define DBUS_DEFAULT_RATE 30 /* signals per second and LED: smooth enough for a GUI */
#define DBUS_MAX_RATE 1000

struct dbus_backend {
	unsigned max_rate; /* 0 until parsed or defaulted by verify() */
	/* runtime: O(1) per LED however fast it changes; the signal reads the value when sent */
	sd_event_source *timer;
	uint64_t last_usec; /* when the last signal went out */
	bool pending;       /* a change arrived too soon: the timer sends it */
};

static int dbus_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	struct dbus_backend *p = b->priv;

	if (streq(key, "max_rate")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || !*value || *end || value[0] == '-' || v == 0 || v > DBUS_MAX_RATE) {
			if (asprintf(ret_error,
				     "dbus.max_rate must be a number of signals per second from 1 to %u.",
				     DBUS_MAX_RATE) < 0)
				*ret_error = NULL;
			return -EINVAL;
		}
		p->max_rate = (unsigned)v;
		return 0;
	}
	if (asprintf(ret_error, "unknown key 'dbus.%s'; the dbus backend knows dbus.max_rate.", key) < 0)
		*ret_error = NULL;
	return -EINVAL;
}

static int dbus_verify(struct led_backend *b, char **ret_error _unused_)
{
	struct dbus_backend *p = b->priv;

	if (!p->max_rate)
		p->max_rate = DBUS_DEFAULT_RATE;
	return 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static void dbus_emit(struct led_backend *b)
{
	struct dbus_backend *p = b->priv;

	p->pending = false;
	p->last_usec = now_usec();
	bus_led_brightness_changed(b->led);
}

static int on_timer(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	struct led_backend *b = userdata;
	struct dbus_backend *p = b->priv;

	/* The end of a burst: the signal carries the LED's value now, the latest one. */
	if (p->pending)
		dbus_emit(b);
	return 0;
}

static int dbus_attach(struct led_backend *b, struct manager *m _unused_)
{
	struct dbus_backend *p = b->priv;

	if (!p->max_rate)
		p->max_rate = DBUS_DEFAULT_RATE;
	return led_backend_set_state(b, true, "attached, at most %u signals/s", p->max_rate);
}

static int dbus_set(struct led_backend *b, unsigned brightness _unused_)
{
	struct dbus_backend *p = b->priv;
	uint64_t now = now_usec(), interval = 1000000ULL / (p->max_rate ? p->max_rate : 1);
	int r;

	if (p->pending)
		return 0; /* the timer is armed and will send the latest value */
	if (!p->last_usec || now - p->last_usec >= interval) {
		dbus_emit(b);
		return 0;
	}
	p->pending = true;
	if (!p->timer) {
		r = sd_event_add_time(b->led->manager->event, &p->timer, CLOCK_MONOTONIC,
				      p->last_usec + interval, 0, on_timer, b);
		if (r < 0) {
			p->pending = false;
			return r;
		}
		(void)sd_event_source_set_description(p->timer, "dbus-ratelimit");
		return 0;
	}
	r = sd_event_source_set_time(p->timer, p->last_usec + interval);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
}

static void dbus_detach(struct led_backend *b)
{
	struct dbus_backend *p = b->priv;

	p->pending = false;
	p->timer = sd_event_source_disable_unref(p->timer);
}

static bool dbus_same(const struct led_backend *a, const struct led_backend *b)
{
	const struct dbus_backend *x = a->priv, *y = b->priv;

	return (x->max_rate ? x->max_rate : DBUS_DEFAULT_RATE) ==
	       (y->max_rate ? y->max_rate : DBUS_DEFAULT_RATE);
}

const struct backend_ops backend_dbus = {
	.name = "dbus",
	.priv_size = sizeof(struct dbus_backend),
	.parse = dbus_parse,
	.verify = dbus_verify,
	.attach = dbus_attach,
	.set = dbus_set,
	.detach = dbus_detach,
	.same = dbus_same,
};
