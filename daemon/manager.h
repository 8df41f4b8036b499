/* SPDX-License-Identifier: MIT */
/* The daemon: event loop, signals, LED set, reload and service-manager notifications. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "led-types.h"
#include "macro.h"
#include "policy.h"

struct led;
struct conf;
struct recorder;
struct access;
struct bus;
struct transients;
struct fdstore;
struct manager;

/* What the daemon around the manager does at its steps (main.c wires them): the manager calls
 * down into LEDs, configuration and fd store only. Each may be NULL. */
struct manager_hooks {
	/* The configured LEDs exist; before the unused stored fds go and READY=1 (main: the
	 * transient LEDs of a crashed uledsd, then the bus). */
	void (*started)(struct manager *m);
	/* A reload is done; LoadErrors changed. */
	void (*reloaded)(struct manager *m);
	/* SIGUSR2: re-execute. */
	void (*reexec)(struct manager *m);
	/* The re-execution is sure to happen: leave the bus, the replies sent. */
	void (*before_exec)(struct manager *m);
};

enum bus_kind {
	BUS_KIND_NONE,
	BUS_KIND_SYSTEM,
	BUS_KIND_SESSION,
};

struct manager {
	sd_event *event;
	struct led_context led_ctx; /* what the LEDs share: paths, uleds flavour, listeners */
	struct manager_hooks hooks;
	char **config_dirs; /* search path, highest priority first */
	char *state_dir;    /* saved brightness of "restore" LEDs */
	enum bus_kind bus_kind;

	struct led **leds;
	size_t n_leds;
	size_t n_errors;    /* errors of the last (re)load */
	char **load_errors; /* and their text, for D-Bus LoadErrors (NULL before the first load) */

	struct policy policy; /* [uledsd] of the configuration in effect */
	struct conf *defined; /* only the names the configuration defined (conf_defined_at) */

	struct bus *bus;	      /* bus.c */
	struct transients *transient; /* transient.c: LEDs made by CreateLED */
	struct access *access;	      /* access.c: method calls waiting for dbus-daemon or polkit */
	struct fdstore *fdstore;      /* fdstore.c: systemd's fd store */
	bool reloading;
	unsigned n_reloads; /* completed reloads, in STATUS= for ExecReload= */
	bool notify;	    /* NOTIFY_SOCKET is set: talk to systemd */

	struct recorder *recorders; /* Manager.Record() pipes (recording.c) */

	sd_event_source *trigger_retry; /* armed while an LED waits for its trigger's module */
	uint64_t trigger_retry_usec;	/* its interval now: doubles while nothing comes */
};

/* The manager an LED of it belongs to (its context is the manager's led_ctx). */
static inline struct manager *led_manager(const struct led *l)
{
	return (struct manager *)((char *)l->ctx - offsetof(struct manager, led_ctx));
}

int manager_new(struct manager **ret);
struct manager *manager_free(struct manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct manager *, manager_free)

/* Load the configuration and create every valid LED. Returns -errno only when nothing can
 * work at all (no uleds device); config errors are logged and counted. */
int manager_start(struct manager *m);
/* Re-read the configuration and apply the difference. *ret_errors (optional) gets the
 * errors found, as "FILE:LINE: ..." strings. */
int manager_reload(struct manager *m, char ***ret_errors);
int manager_run(struct manager *m);
/* Follow every LED of m (bus, recorder, state saver, fd store; main.c): -E2BIG when full. */
int manager_listen(struct manager *m, const struct led_listener *listener);

struct led *manager_find_led(struct manager *m, const char *name);
/* Remove m->leds[i]; forget: drop its fd from systemd's fd store too. */
void manager_remove_led(struct manager *m, size_t i, bool forget);
/* Send a state notification to systemd ("STATUS=..."); no-op without NOTIFY_SOCKET. */
void manager_notify(struct manager *m, const char *state);
/* A one-line summary like "3 LEDs, 1 with errors" (static buffer). */
const char *manager_status(struct manager *m);
