/* SPDX-License-Identifier: MIT */
/* The interface every backend implements, and the registry that lists them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct led;
struct manager;
struct led_backend;

struct backend_ops {
	const char *name; /* as written in "backends = ..." and as key prefix ("gpio.line") */
	size_t priv_size; /* bytes of zeroed private data allocated for each instance */

	/* One "NAME.key = value" line of the LED's section (key without the prefix).
	 * On a bad key or value returns -EINVAL and sets *ret_error to a malloc'ed message
	 * that says what is wrong and how to fix it (no FILE:LINE, the caller adds it). */
	int (*parse)(struct led_backend *b, const char *key, const char *value, char **ret_error);
	/* Optional: called when the section is complete (required keys, combinations). */
	int (*verify)(struct led_backend *b, char **ret_error);
	/* Optional: a string naming an exclusive resource ("gpio gpiochip0 LED_PWR"); two
	 * backends of the configuration returning the same string are a config error. */
	char *(*claim)(const struct led_backend *b);

	/* Bring the backend to life for b->led. A missing resource (a GPIO chip that is not
	 * there yet) is not an error: the backend records it in its state and returns 0.
	 * Returns -errno only when it cannot work at all. */
	int (*attach)(struct led_backend *b, struct manager *m);
	/* The LED's brightness changed (or is being driven initially). */
	int (*set)(struct led_backend *b, unsigned brightness);
	/* Release everything; safe on a half-attached or never attached backend. */
	void (*detach)(struct led_backend *b);
	/* Same configuration: on reload an attached backend is kept as it is. */
	bool (*same)(const struct led_backend *a, const struct led_backend *b);
	/* Optional: free parsed configuration in priv (called after detach). */
	void (*free_priv)(struct led_backend *b);
};

struct led_backend {
	const struct backend_ops *ops;
	struct led *led;       /* set before attach */
	char *state;           /* human-readable: "attached", "waiting for gpiochip3", ... */
	bool ok;               /* the backend is working (state says why not otherwise) */
	char *file;            /* where it was configured, for messages */
	unsigned line;
	void *priv;            /* ops->priv_size bytes */
};

/* NULL when no such backend is built in. */
const struct backend_ops *backend_ops_find(const char *name);
/* Comma-separated names of the built-in backends (static storage). */
const char *backend_list_names(void);

int led_backend_new(const struct backend_ops *ops, const char *file, unsigned line,
		    struct led_backend **ret);
struct led_backend *led_backend_free(struct led_backend *b);

/* Record the backend's state (and tell D-Bus watchers). Returns 0. */
int led_backend_set_state(struct led_backend *b, bool ok, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

extern const struct backend_ops backend_log;
#if HAVE_GPIO
extern const struct backend_ops backend_gpio;
#endif
#if HAVE_DBUS
extern const struct backend_ops backend_dbus;
#endif
