/* SPDX-License-Identifier: MIT */
/* The LED object and what it hands out: the fields the files of the LED (led*.c) share, the
 * context every LED of a daemon runs in, and the events it emits to its listeners.
 *
 * News goes up: an LED never calls the bus, the recorder, the state saver or the manager. It
 * emits an event (led_emit()) to the listeners registered in its context, which the daemon
 * wires up in main.c. Everyone outside led*.c reads an LED's fields, writes none of them, and
 * calls led.h's functions. This header has no .c file: including it ties no module to led.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "led-conf.h"
#include "led-sysfs.h"
#include "led-watch.h"
#include "macro.h"

struct backend_shared;
struct bus_led;
struct led_state;
struct uleds_event;

/* How the LED's fd reports (kmod/README, "Event mode"); D-Bus Mode, uledsctl status. */
enum led_mode {
	LED_MODE_LATEST, /* in-tree uleds: the latest value, read when the daemon gets to it */
	LED_MODE_EVENT,	 /* every call of the LED core, in order, with kernel timestamps */
	LED_MODE_EVENT_OFFLOAD, /* and a trigger's blinking handed over as on/off delays */
};

enum led_event_type {
	LED_EVENT_ADDED,   /* the LED is up: backends attached, its first value dispatched */
	LED_EVENT_REMOVED, /* it goes: every field is still valid, the fd still open */
	/* A record of the LED core: every call, equal values included (a trigger that stops
	 * sets 0); in latest-value mode one the daemon makes up when it reads a value. */
	LED_EVENT_RECORD,
	LED_EVENT_CHANGED,	     /* the brightness the backends took changed (a transition) */
	LED_EVENT_BLINK_CHANGED,     /* an offloaded blink started, changed or ended */
	LED_EVENT_BACKENDS_CHANGED,  /* a backend's state, or the list of backends, changed */
	LED_EVENT_SIGNAL_BRIGHTNESS, /* a backend with ops->bus_signals asks for a signal */
	LED_EVENT_TRIGGER_SET,	     /* uledsd selected a trigger itself: look at it now */
	LED_EVENT_TRIGGER_MISSING,   /* the configured trigger is not there: look again later */
	LED_EVENT_ADOPT_FAILED,	     /* the fd store's fd could not be adopted (still open) */
};

struct led_event {
	enum led_event_type type;
	const struct uleds_event *record; /* LED_EVENT_RECORD */
};

struct led;

/* One who follows the LEDs of a context. event: every event of every LED. saved_brightness
 * (optional): the value a "default_brightness = restore" LED starts with, -ENOENT if none. */
struct led_listener {
	void (*event)(struct led *l, const struct led_event *ev, void *userdata);
	int (*saved_brightness)(struct led *l, unsigned *ret, void *userdata);
	void *userdata;
};

#define LED_LISTENERS_MAX 8

/* What the LEDs of one daemon share. The paths are owned here (tests point them elsewhere). */
struct led_context {
	sd_event *event;
	char *uleds_path; /* /dev/uleds */
	char *sysfs_leds; /* /sys/class/leds */
	char *dev_dir;	  /* /dev, where GPIO chips appear */
	int uleds_ext;	  /* /dev/uleds has our kmod's ioctls: -1 not known yet, 0 no, 1 yes */
	struct backend_shared *backend_shared; /* per-daemon state of backends (gpio's watch) */
	struct led_watch *watch;	       /* every LED's fd, one sd-event source */
	struct led_listener listeners[LED_LISTENERS_MAX];
	size_t n_listeners;
};

struct led {
	struct led_context *ctx;
	struct led_conf *conf; /* owned: the definition in effect, with its attached backends */
	char *name;	       /* own copy, stable across updates: backends and the bus borrow it */
	int fd;
	bool adopted;	   /* fd came from the fd store */
	bool transient;	   /* made by CreateLED, not by the configuration (transient.c) */
	bool announced;	   /* LED_EVENT_ADDED was emitted: LED_EVENT_REMOVED will be */
	bool apply_failed; /* the last update could not apply trigger/default: retried */
	unsigned brightness;
	unsigned max_brightness;
	unsigned n_channels; /* a multicolour LED's channels (conf->color), 0 for a plain LED */
	unsigned intensity[LED_CHANNELS_MAX]; /* multi_intensity as the kernel reports it */
	enum led_mode mode;
	size_t event_size;		    /* event mode: bytes a record */
	unsigned blink_on_ms, blink_off_ms; /* an offloaded blink runs: both 0 when none */
	unsigned long long lost;	    /* records the kernel's ring dropped */
	struct led_watch_member watch;	    /* in the context's epoll set (led-watch.c) */
	char *sysfs;			    /* e.g. /sys/class/leds/NAME */
	/* What listeners keep per LED, each written by its listener only. */
	bool store_queued;	 /* waits for the next fd store batch (fdstore.c) */
	struct bus_led *bus;	 /* D-Bus object (bus.c) */
	struct led_state *state; /* a pending save of the brightness (state.c) */
};

static inline void led_emit_record(struct led *l, enum led_event_type type,
				   const struct uleds_event *record)
{
	const struct led_event ev = {.type = type, .record = record};

	for (size_t i = 0; i < l->ctx->n_listeners; i++)
		l->ctx->listeners[i].event(l, &ev, l->ctx->listeners[i].userdata);
}

static inline void led_emit(struct led *l, enum led_event_type type)
{
	led_emit_record(l, type, NULL);
}

/* Write a sysfs attribute of this LED ("brightness", "trigger", "delay_on"). */
static inline int led_write_attr(struct led *l, const char *attr, const char *value)
{
	return sysfs_attr_write(l->sysfs, attr, value);
}
/* Read one, trailing newline removed. */
static inline int led_read_attr(struct led *l, const char *attr, char **ret)
{
	return sysfs_attr_read(l->sysfs, attr, ret);
}
/* The trigger the kernel has selected now ("none" when none). */
static inline int led_current_trigger(struct led *l, char **ret)
{
	return sysfs_current_trigger(l->sysfs, ret);
}
