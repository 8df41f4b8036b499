/* SPDX-License-Identifier: MIT */
/* The daemon: event loop, signals, LED set, reload and service-manager notifications. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "policy.h"

struct led;
struct conf;
struct backend_shared;
struct recorder;
struct led_watch;
struct access;

enum bus_kind {
	BUS_KIND_NONE,
	BUS_KIND_SYSTEM,
	BUS_KIND_SESSION,
};

struct manager {
	sd_event *event;
	char **config_dirs; /* search path, highest priority first */
	char *uleds_path;   /* /dev/uleds */
	char *sysfs_leds;   /* /sys/class/leds */
	char *state_dir;    /* saved brightness of "restore" LEDs */
	char *dev_dir;	    /* /dev, where GPIO chips appear */
	enum bus_kind bus_kind;

	struct led **leds;
	size_t n_leds;
	size_t n_errors;    /* errors of the last (re)load */
	char **load_errors; /* and their text, for D-Bus LoadErrors (NULL before the first load) */

	struct policy policy; /* [uledsd] of the configuration in effect */
	struct conf *defined; /* only the names the configuration defined (conf_defined_at) */

	int uleds_ext;	 /* /dev/uleds has our kmod's ioctls: -1 not known yet, 0 no, 1 yes */
	void *bus;	 /* bus.c */
	void *transient; /* transient.c: LEDs made by CreateLED */
	struct access *access; /* access.c: method calls waiting for dbus-daemon or polkit */
	bool reloading;
	unsigned n_reloads; /* completed reloads, in STATUS= for ExecReload= */
	bool notify;	    /* NOTIFY_SOCKET is set: talk to systemd */
	bool notify_warned;
	bool keep_logged; /* fd store LEDs of broken definitions: said once */

	struct backend_shared *backend_shared; /* per-manager state of backends (gpio's watch) */
	struct led_watch *led_watch;	       /* every LED's fd, one sd-event source */
	struct recorder *recorders;	       /* Manager.Record() pipes (record.c) */

	/* LEDs whose fds go to the fd store in the next batch (fdstore.c) */
	struct led **store_queue;
	size_t n_store_queue;
	sd_event_source *store_flush;

	sd_event_source *trigger_retry; /* armed while an LED waits for its trigger's module */
	uint64_t trigger_retry_usec;	/* its interval now: doubles while nothing comes */

	/* fds handed back by systemd's fd store at start (fdstore.c) */
	int *stored_fds;
	char **stored_names;
	size_t n_stored;
};

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
/* An LED's trigger is not available: look again in a while (manager.c, on_trigger_retry). */
void manager_trigger_retry_arm(struct manager *m);

struct led *manager_find_led(struct manager *m, const char *name);
/* Remove m->leds[i]; forget: drop its fd from systemd's fd store too. */
void manager_remove_led(struct manager *m, size_t i, bool forget);
/* Send a state notification to systemd ("STATUS=..."); no-op without NOTIFY_SOCKET. */
void manager_notify(struct manager *m, const char *state);
/* A one-line summary like "3 LEDs, 1 with errors" (static buffer). */
const char *manager_status(struct manager *m);
