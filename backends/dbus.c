// SPDX-License-Identifier: MIT
/* The dbus backend: Brightness PropertiesChanged signals for this LED, at most max_rate a second.
 */
#include <stdio.h>

#include "backend.h"
#include "ratelimit.h"
#include "string-util.h"

#define DBUS_DEFAULT_RATE 30 /* signals per second and LED: smooth enough for a GUI */
#define DBUS_MAX_RATE 1000

/* Why signals are a backend, chosen per LED: a 1 ms timer LED would send a thousand
 * PropertiesChanged a second to every client on the bus. Without it the LED's Brightness is
 * still a property, read on demand, and its object is exported without the emits flag. */
struct dbus_backend {
	unsigned max_rate; /* 0 until parsed or defaulted by verify() */
	/* runtime: O(1) per LED however fast it changes; the signal reads the value when sent */
	struct ratelimit rl;
};

static int dbus_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	struct dbus_backend *p = b->priv;
	unsigned v;

	if (streq(key, "max_rate")) {
		if (safe_atou(value, &v) < 0 || v == 0 || v > DBUS_MAX_RATE)
			return error_setf(
			    ret_error, -EINVAL,
			    "dbus.max_rate must be a number of signals per second from 1 to %u.",
			    DBUS_MAX_RATE);
		p->max_rate = v;
		return 0;
	}
	return error_setf(ret_error, -EINVAL,
			  "unknown key 'dbus.%s'; the dbus backend knows dbus.max_rate.", key);
}

static int dbus_verify(struct led_backend *b, char **ret_error _unused_)
{
	struct dbus_backend *p = b->priv;

	if (!p->max_rate)
		p->max_rate = DBUS_DEFAULT_RATE;
	return 0;
}

/* The end of a burst: the signal carries the LED's value now, the latest one. */
static void dbus_fire(void *userdata, unsigned folded _unused_)
{
	led_backend_signal_brightness(userdata);
}

static int dbus_attach(struct led_backend *b)
{
	struct dbus_backend *p = b->priv;

	(void)dbus_verify(b, NULL);
	ratelimit_init(&p->rl, p->max_rate, "dbus-ratelimit", dbus_fire, b);
	return led_backend_set_status(b, true, "attached, at most %u signals/s", p->max_rate);
}

static int dbus_set(struct led_backend *b, unsigned brightness _unused_)
{
	struct dbus_backend *p = b->priv;
	int r;

	r = ratelimit_test(&p->rl, b->ctx.event, ratelimit_now());
	if (r != 0)
		led_backend_signal_brightness(b);
	return r < 0 ? r : 0;
}

/* The Blink property itself is the LED's (bus_led_blink_changed()): a GUI animates it. The
 * level is the Brightness, coalesced as always. */
static int dbus_blink(struct led_backend *b, unsigned brightness, unsigned on_ms _unused_,
		      unsigned off_ms _unused_)
{
	return dbus_set(b, brightness);
}

static void dbus_detach(struct led_backend *b)
{
	struct dbus_backend *p = b->priv;

	ratelimit_done(&p->rl);
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
    .bus_signals = true,
    .parse = dbus_parse,
    .verify = dbus_verify,
    .attach = dbus_attach,
    .set = dbus_set,
    .blink = dbus_blink,
    .detach = dbus_detach,
    .same = dbus_same,
};
