/* SPDX-License-Identifier: MIT */
/* One virtual LED: its uleds fd, its brightness, and the definition (backends included) it runs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "led-conf.h"
#include "macro.h"

struct manager;

/* How the LED's fd reports (kmod/README, "Event mode"); D-Bus Mode, uledsctl status. */
enum led_mode {
	LED_MODE_LATEST, /* in-tree uleds: the latest value, read when the daemon gets to it */
	LED_MODE_EVENT,	 /* every call of the LED core, in order, with kernel timestamps */
	LED_MODE_EVENT_OFFLOAD, /* and a trigger's blinking handed over as on/off delays */
};

struct led {
	struct manager *manager;
	struct led_conf *conf; /* owned: the definition in effect, with its attached backends */
	char *name;	       /* own copy, stable across updates: backends and the bus borrow it */
	int fd;
	bool adopted; /* fd came from the fd store */
	bool
	    apply_failed; /* the last update could not apply trigger/default: retried next reload */
	unsigned brightness;
	unsigned max_brightness;
	unsigned n_channels; /* a multicolour LED's channels (conf->color), 0 for a plain LED */
	unsigned intensity[LED_CHANNELS_MAX]; /* multi_intensity as the kernel reports it */
	enum led_mode mode;
	size_t event_size;		    /* event mode: bytes a record */
	unsigned blink_on_ms, blink_off_ms; /* an offloaded blink runs: both 0 when none */
	unsigned long long lost;	    /* records the kernel's ring dropped */
	bool store_queued; /* waits for the next fd store batch (fdstore.c) */
	bool watched; /* in the manager's epoll set (led-watch.c) */
	char *sysfs; /* e.g. /sys/class/leds/NAME */
	void *bus;   /* D-Bus object state (bus.c) */
	void *state; /* restore state (state.c) */
};

/* Create the kernel LED for conf (taking ownership of conf) and attach its backends.
 * adopt_fd >= 0: an fd that already carries the LED (fd store): no registration.
 * On failure returns -errno and a malloc'ed message for the user in *ret_error. Returns 1
 * (message set too) when the LED exists but its trigger is not available yet. */
int led_new(struct manager *m, struct led_conf *conf, int adopt_fd, struct led **ret,
	    char **ret_error);
/* A trigger that was not available: attach it if it is now (1: attached). */
int led_retry_trigger(struct led *l);
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

/* Send the current brightness to every backend. */
void led_dispatch(struct led *l);
/* Some backend of the LED sends bus signals for its brightness (ops->bus_signals). */
bool led_has_bus_signals(const struct led *l);

/* Set the channel intensities (n_channels values, each <= max_brightness) through sysfs's
 * multi_intensity, as any writer would: the kernel's record brings them back. */
int led_write_intensity(struct led *l, const unsigned *intensity);

/* Write a sysfs attribute of this LED ("brightness", "trigger", "delay_on"). */
int led_write_attr(struct led *l, const char *attr, const char *value);
/* Read one, trailing newline removed. */
int led_read_attr(struct led *l, const char *attr, char **ret);
/* The trigger the kernel has selected now ("none" when none). */
int led_current_trigger(struct led *l, char **ret);
