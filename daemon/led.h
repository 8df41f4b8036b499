/* SPDX-License-Identifier: MIT */
/* One virtual LED: its uleds fd, its brightness, and the definition (backends included) it
 * runs. The object and its events: led-types.h. */
#pragma once

#include <stdbool.h>

#include "led-apply.h"
#include "led-conf.h"
#include "led-input.h"
#include "led-types.h"
#include "macro.h"

/* The context's paths (the defaults: /dev/uleds, /sys/class/leds, /dev), no listeners. */
int led_context_init(struct led_context *ctx, sd_event *event);
/* Free what the context holds; its LEDs are gone already. */
void led_context_done(struct led_context *ctx);
/* The LEDs of a batch (the start, a reload, a created LED) are made: the backends finish what
 * their attach left for later (gpio.share's shared requests), before READY=1 or a reply. */
void led_context_flush(struct led_context *ctx);
/* Follow every LED of ctx: -E2BIG when LED_LISTENERS_MAX listen already. */
int led_context_listen(struct led_context *ctx, const struct led_listener *listener);

/* Create the kernel LED for conf (taking ownership of conf) and attach its backends.
 * adopt_fd >= 0: an fd that already carries the LED (fd store): no registration.
 * On failure returns -errno and a malloc'ed message for the user in *ret_error. Returns 1
 * (message set too) when the LED exists but its trigger is not available yet. */
int led_new(struct led_context *ctx, struct led_conf *conf, int adopt_fd, struct led **ret,
	    char **ret_error);
/* Detach backends, close the fd: the kernel removes the LED. */
struct led *led_free(struct led *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct led *, led_free)

/* Run a changed definition of the same name and max_brightness in place: reconcile (backends
 * with the same settings stay attached, the others are replaced), then apply what changed
 * (default brightness, trigger and its attributes). Takes ownership of conf. */
int led_update(struct led *l, struct led_conf *conf, char **ret_error);

/* How conf differs from the LED as it runs. */
enum led_change led_compare(const struct led *l, const struct led_conf *conf);

/* "latest-value", "event", "event-offload". */
const char *led_mode_to_string(enum led_mode mode);

/* Some backend of the LED sends bus signals for its brightness (ops->bus_signals). */
bool led_has_bus_signals(const struct led *l);
