/* SPDX-License-Identifier: MIT */
/* The interface every backend implements: the one daemon header a backend includes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "macro.h"

struct led_backend;

/* Everything of the daemon a backend may use, handed over at attach and kept in b->ctx. */
struct backend_context {
	sd_event *event;
	const char *dev_dir;  /* where device nodes appear ("/dev") */
	const char *led_name; /* valid while attached */
	const char *sysfs;    /* the LED's directory (/sys/class/leds/NAME), valid while attached */
	unsigned max_brightness;
	unsigned brightness; /* at attach; set() brings every later value */
	/* A multicolour LED (color = ...): its channels' intensities, kept current by the LED
	 * before each set(). A channel's brightness is brightness * intensity[i] /
	 * max_brightness, as the kernel's led_mc_calc_color_components(). 0: a plain LED. */
	unsigned n_channels;
	const unsigned *intensity;
	void *shared;	     /* this backend type's per-manager state (ops->shared_new), or NULL */

	/* The LED's side (each may be NULL): the backend's status changed; a bus signal for
	 * the brightness is due (backends with ops->bus_signals only). */
	void (*status_changed)(struct led_backend *b, void *userdata);
	void (*signal_brightness)(struct led_backend *b, void *userdata);
	void *userdata;
};

struct backend_ops {
	const char *name; /* as written in "backends = ..." and as key prefix ("gpio.line") */
	size_t priv_size; /* bytes of zeroed private data allocated for each instance */
	/* The LED's D-Bus object sends Brightness PropertiesChanged through this backend, so it
	 * is exported with the emits-change vtable while the backend is configured. */
	bool bus_signals;
	/* It drives a device of the board (a GPIO line, a PWM channel): a transient LED with it
	 * needs root or polkit's io.uledsd1.create-hardware, not only the right to manage. */
	bool hardware;

	/* Optional: state shared by all instances of one manager (gpio: one watch on dev_dir,
	 * one chip scan), made at the first attach and freed with the manager. */
	int (*shared_new)(sd_event *event, const char *dev_dir, void **ret);
	/* Optional: the daemon attached a batch of LEDs (the start, a reload, a created LED):
	 * finish now what attach() left for later (gpio.share: the shared line requests), so
	 * READY=1 and D-Bus replies come after it. Else it happens in the next loop iteration. */
	void (*shared_flush)(void *shared);
	void (*shared_free)(void *shared);

	/* One "NAME.key = value" line of the LED's section (key without the prefix).
	 * On a bad key or value returns -EINVAL and sets *ret_error to a malloc'ed message
	 * that says what is wrong and how to fix it (no FILE:LINE, the caller adds it). */
	int (*parse)(struct led_backend *b, const char *key, const char *value, char **ret_error);
	/* Optional: called when the section is complete (required keys, combinations). */
	int (*verify)(struct led_backend *b, char **ret_error);
	/* Optional: a string naming an exclusive resource ("gpio gpiochip0 LED_PWR"); two
	 * backends of the configuration returning the same string are a config error. */
	char *(*claim)(const struct led_backend *b);
	/* Optional, for --check-config: is the resource there now (dev_dir: "/dev")? Returns
	 * -errno with *ret_warning (malloc'ed, no FILE:LINE) when not; a warning, not an error:
	 * uledsd waits for what is missing (a GPIO chip plugged in later). */
	int (*check)(const struct led_backend *b, const char *dev_dir, char **ret_warning);
	/* Optional, for uledsd-generator (the systemd unit's sandbox): the directory below /sys
	 * that this backend writes, resolved now (malloc'ed; NULL on ENOMEM). A backend with one
	 * also listens to kernel uevents, which need AF_NETLINK in the host's network namespace.
	 * sysfs is where /sys is mounted ("/sys"). */
	char *(*sysfs_writes)(const struct led_backend *b, const char *sysfs);

	/* Bring the backend to life (b->ctx is set). A missing resource (a GPIO chip that is
	 * not there yet) is not an error: the backend puts it in its status and returns 0.
	 * Returns -errno only when it cannot work at all. */
	int (*attach)(struct led_backend *b);
	/* The LED's brightness changed (or is being driven initially). Ends a blink. */
	int (*set)(struct led_backend *b, unsigned brightness);
	/* Optional: the LED blinks, on_ms at brightness then off_ms dark, until the next set()
	 * (an offloaded blink, kmod/README "Event mode"). Called again with the same delays when
	 * the level changes. Without it the backend gets set(brightness): steadily on. */
	int (*blink)(struct led_backend *b, unsigned brightness, unsigned on_ms, unsigned off_ms);
	/* Release everything; safe on a half-attached or never attached backend. */
	void (*detach)(struct led_backend *b);
	/* Same configuration: on reload an attached backend is kept as it is. */
	bool (*same)(const struct led_backend *a, const struct led_backend *b);
	/* Optional: free parsed configuration in priv (called after detach). */
	void (*free_priv)(struct led_backend *b);
	/* Optional: the status text of a backend that reported with led_backend_describe(),
	 * written into buf when it is asked for (the bus), from what the backend knows now. */
	void (*describe)(const struct led_backend *b, char *buf, size_t size);
};

struct led_backend {
	const struct backend_ops *ops;
	struct backend_context ctx; /* set by led_backend_attach() */
	/* human-readable: "attached", "waiting for gpiochip3", ...; NULL while described */
	char *status;
	const char *file;	    /* where it was configured, for messages (str_shared) */
	void *priv;		    /* ops->priv_size bytes, in b's own allocation */
	unsigned line;
	unsigned n_channels; /* the LED's colour channels (0: plain), known to verify() */
	bool attached;
	bool ok;	/* the backend is working (status says why not otherwise) */
	bool described; /* the status is ops->describe()'s text, kept only as described_hash */
	unsigned described_hash;
};

int led_backend_new(const struct backend_ops *ops, const char *file, unsigned line,
		    struct led_backend **ret);
/* Detaches (when attached) and frees. */
struct led_backend *led_backend_free(struct led_backend *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct led_backend *, led_backend_free)

/* Copy ctx into b and attach. A failure is recorded in the status too. */
int led_backend_attach(struct led_backend *b, const struct backend_context *ctx);
void led_backend_detach(struct led_backend *b);
/* Record the backend's status and tell the LED (ctx.status_changed). Returns 0. */
int led_backend_set_status(struct led_backend *b, bool ok, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Set the status and log "LED: BACKEND: msg[. hint]." at level, only when the status changed:
 * a retry that fails alike stays quiet. hint (may be NULL) is advice for the log only. */
void led_backend_report(struct led_backend *b, bool ok, int level, const char *hint,
			const char *msg);
/* Like led_backend_report(b, true, level, NULL, ...) with the text ops->describe() writes
 * now; the text is not kept but made again when asked for: 10 000 working GPIO LEDs hold no
 * status text. */
void led_backend_describe(struct led_backend *b, int level);
/* b's status text: the one set, or ops->describe()'s written into buf; "" when none yet. */
const char *led_backend_status(const struct led_backend *b, char *buf, size_t size);
/* Channel i's share of brightness (multicolour LEDs; brightness itself for a plain one). */
unsigned led_backend_channel(const struct led_backend *b, unsigned brightness, unsigned i);
/* Ask the LED for a Brightness bus signal (ops->bus_signals backends). */
void led_backend_signal_brightness(struct led_backend *b);

/* Per-manager state of the backend types that have some (ops->shared_new): a list that the
 * manager owns, filled on demand. */
struct backend_shared;
int backend_shared_get(struct backend_shared **list, const struct backend_ops *ops, sd_event *event,
		       const char *dev_dir, void **ret);
/* Every ops->shared_flush of the list. */
void backend_shared_flush(struct backend_shared *list);
struct backend_shared *backend_shared_free(struct backend_shared *list);
