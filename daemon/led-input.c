// SPDX-License-Identifier: MIT
/* What an LED's fd says, read in its mode and handed on: to the backends, and as events to
 * the listeners (a record of every call, the changes). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/uleds.h>

#include "backend.h"
#include "led-input.h"
#include "log.h"
#include "uleds-ext.h"

/* The LED's state to one backend: a running offloaded blink, else the brightness. */
static void led_backend_take(struct led *l, struct led_backend *b)
{
	bool blinking = l->blink_on_ms || l->blink_off_ms;
	int r;

	if (blinking && b->ops->blink)
		r = b->ops->blink(b, l->brightness, l->blink_on_ms, l->blink_off_ms);
	else
		r = b->ops->set(b, l->brightness);
	if (r < 0)
		log_debug_errno(r, "%s: backend %s failed to take brightness %u: %m", l->name,
				b->ops->name, l->brightness);
}

void led_dispatch(struct led *l)
{
	struct led_conf *c = l->conf;

	for (size_t i = 0; i < c->n_backends; i++)
		if (c->backends[i]->attached)
			led_backend_take(l, c->backends[i]);
	led_emit(l, LED_EVENT_CHANGED);
}

/* A multicolour LED's record carries the channel intensities (the module clamps them to
 * max_brightness). true: they changed, which is a change even at the same brightness. */
static bool led_take_intensity(struct led *l, const struct uleds_event *ev)
{
	unsigned n = ev->n_channels < l->n_channels ? ev->n_channels : l->n_channels;

	if (!n || memcmp(l->intensity, ev->intensity, n * sizeof(unsigned)) == 0)
		return false;
	memcpy(l->intensity, ev->intensity, n * sizeof(unsigned));
	return true;
}

/* One record of the LED core, in order. Equal values go to recordings only: backends see
 * transitions. While an offloaded blink runs, a non-zero brightness is its new level, as
 * software blinking would go on at it; 0 ends it (kmod/README, "Event mode"). */
static void led_take_event(struct led *l, const struct uleds_event *ev)
{
	bool blinking = l->blink_on_ms || l->blink_off_ms;
	unsigned v = ev->brightness < 0 ? 0 : (unsigned)ev->brightness;

	l->lost += ev->lost;
	/* Any call of the LED core, an equal value included (a trigger that stops sets 0). */
	led_emit_record(l, LED_EVENT_RECORD, ev);
	if (ev->type == ULEDS_EVENT_BLINK) {
		if (!led_take_intensity(l, ev) && blinking && v == l->brightness &&
		    ev->delay_on_ms == l->blink_on_ms && ev->delay_off_ms == l->blink_off_ms)
			return;
		l->mode = LED_MODE_EVENT_OFFLOAD; /* an adopted fd tells only now */
		l->blink_on_ms = ev->delay_on_ms;
		l->blink_off_ms = ev->delay_off_ms;
	} else if (ev->type == ULEDS_EVENT_BRIGHTNESS) {
		if (v == l->brightness && (!blinking || v != 0) && !led_take_intensity(l, ev))
			return;
		if (v == 0)
			l->blink_on_ms = l->blink_off_ms = 0;
	} else
		return;
	l->brightness = v;
	if (blinking != (l->blink_on_ms || l->blink_off_ms) || ev->type == ULEDS_EVENT_BLINK)
		led_emit(l, LED_EVENT_BLINK_CHANGED);
	led_dispatch(l);
}

/* Event mode: whole records of l->event_size bytes (80 today; a larger future record starts
 * with the same fields). Edge-triggered: read until EAGAIN. */
static int led_read_events(struct led *l, int fd)
{
	uint8_t buf[64 * sizeof(struct uleds_event)];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - sizeof(buf) % l->event_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0 || (size_t)n % l->event_size)
			return n < 0 ? -errno : -EIO;
		for (size_t off = 0; off < (size_t)n; off += l->event_size) {
			struct uleds_event ev;

			memcpy(&ev, buf + off, sizeof(ev));
			led_take_event(l, &ev);
		}
	}
}

/* Latest-value mode: uleds keeps only the latest value and returns one int a read (a
 * multicolour LED: the brightness and then each channel's intensity, kmod/README), so a
 * short read means drained: one read() per change, no EAGAIN. 1: the value changed. */
static int led_read_latest(struct led *l, int fd)
{
	bool changed = false;
	int v[16];

	for (;;) {
		ssize_t n = read(fd, v, sizeof(v));

		if (n >= (ssize_t)sizeof(int)) {
			size_t got = (size_t)n / sizeof(int), stride = 1 + l->n_channels;
			/* the last whole value, should a stream hand over several */
			const int *last = v + (got >= stride ? (got / stride - 1) * stride : 0);

			l->brightness = (unsigned)(last[0] < 0 ? 0 : last[0]);
			for (size_t i = 0; i < l->n_channels && last + i + 1 < v + got; i++)
				l->intensity[i] = (unsigned)(last[i + 1] < 0 ? 0 : last[i + 1]);
			changed = true;
			if (n == (ssize_t)sizeof(v))
				continue;
			return changed;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return changed;
		return n < 0 ? -errno : -EIO;
	}
}

static void led_record_latest(struct led *l)
{
	struct uleds_event ev = {.type = ULEDS_EVENT_BRIGHTNESS, .brightness = (int)l->brightness};
	struct timespec ts;

	/* No kernel timestamp in this mode: when the daemon read it (the Mode line says so). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ev.timestamp_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	led_emit_record(l, LED_EVENT_RECORD, &ev);
}

void led_on_record(struct led_watch_member *mb, const struct uleds_event *ev)
{
	led_take_event((struct led *)((char *)mb - offsetof(struct led, watch)), ev);
}

void led_on_ready(struct led_watch_member *mb)
{
	struct led *l = (struct led *)((char *)mb - offsetof(struct led, watch));
	int r;

	if (l->mode != LED_MODE_LATEST)
		r = led_read_events(l, l->fd);
	else {
		r = led_read_latest(l, l->fd);
		if (r > 0) {
			led_record_latest(l);
			led_dispatch(l);
		}
	}
	if (r < 0) {
		/* A short read or an error: nothing sensible will come from this fd again. */
		log_error_errno(r,
				"%s: reading the uleds device failed (%m); the LED no longer "
				"forwards.",
				l->name);
		led_watch_remove(l->ctx->watch, &l->watch);
	}
}
