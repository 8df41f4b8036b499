/* SPDX-License-Identifier: MIT */
/* The gpio backend's data, shared by its configuration, chip-scan and runtime files. */
#pragma once

#include <gpiod.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "backend.h"

#define GPIO_CONSUMER_MAX 31 /* the kernel's GPIO_MAX_NAME_SIZE minus the NUL */

enum gpio_on_exit {
	GPIO_ON_EXIT_OFF, /* drive the line inactive, then release it */
	GPIO_ON_EXIT_KEEP,
};

struct gpio_watcher;

struct gpio_backend {
	/* configuration; 0 in an enum means "not set": the default applies */
	char *chip; /* path, chip name or label as written; NULL: search every chip */
	char *line; /* line name; NULL when by_offset */
	unsigned offset;
	bool by_offset;
	bool active_low;
	enum gpiod_line_drive drive;
	enum gpiod_line_bias bias;
	unsigned threshold;
	enum gpio_on_exit on_exit;
	/* gpio.lines = R G B: a multicolour LED, one line per colour channel, names or offsets
	 * as written (instead of line/offset above) */
	char **lines;
	unsigned n_lines;
	bool lines_given; /* gpio.lines seen, even an empty one (its error is said) */

	/* runtime */
	/* gpio.lines: one instance per line, each driving its channel's share of the
	 * brightness; configuration borrowed from this one, states joined into its state */
	struct gpio_backend *channels;
	struct gpio_backend *parent;
	char *channel_state; /* a channel's own state, NULL until it has one */
	bool channel_ok;
	struct led_backend *self;
	struct gpio_watcher *watcher;
	struct gpio_backend *next; /* in watcher->backends */
	struct gpiod_line_request *request;
	char *chip_name;	      /* "gpiochip0" of the request (or of busy_chip) */
	unsigned line_offset;	      /* resolved offset in chip_name */
	unsigned brightness;	      /* the LED's latest: what a late request drives */
	int value;		      /* logical value driven now, -1: none */
	bool lost;		      /* the chip went away while attached */
	struct gpiod_chip *busy_chip; /* watching a line someone else holds */
	sd_event_source *busy_io;
	sd_event_source *blink_timer; /* an offloaded blink: toggles the line itself */
	unsigned blink_on_ms, blink_off_ms;
	bool blink_lit; /* in the on phase */
};

/* What a scan of the chips found, so 1000 LEDs looking up labels and line names scan once. */
struct gpio_chip_entry {
	char *name; /* gpiochipN */
	char *label;
	char **lines; /* line names (NULL entries for unnamed lines) */
	unsigned n_lines;
	struct gpiod_chip *chip; /* kept open from the scan: one open for all its LEDs */
};

/* The backend's per-manager state (ops->shared_new): one inotify watch on dev_dir for chip
 * hotplug, the backends waiting on it, and the scan, valid until the next chip event. */
struct gpio_watcher {
	sd_event *event;
	char *dev_dir;
	int fd;
	sd_event_source *io;
	struct gpio_backend *backends;
	struct gpio_chip_entry *chips;
	size_t n_chips;
	bool chips_valid;
};

/* gpio-conf.c: the configuration half of struct backend_ops */
int gpio_parse(struct led_backend *b, const char *key, const char *value, char **ret_error);
int gpio_verify(struct led_backend *b, char **ret_error);
char *gpio_claim(const struct led_backend *b);
bool gpio_same(const struct led_backend *a, const struct led_backend *b);
void gpio_free_priv(struct led_backend *b);
/* "gpiochip2" for "/dev/gpiochip2" and "gpiochip2"; else the string itself (a label). */
const char *gpio_chip_key(const char *chip);
bool gpio_is_chip_name(const char *s);

/* gpio-chips.c: the watcher and its scan */
int gpio_watcher_new(sd_event *event, const char *dev_dir, void **ret);
void gpio_watcher_free(void *w);
void gpio_watcher_add(struct gpio_watcher *w, struct gpio_backend *p);
void gpio_watcher_remove(struct gpio_backend *p);
/* Scan every chip once (names, labels, line names), unless the scan is still valid. */
int gpio_chips_load(struct gpio_watcher *w);
void gpio_chips_clear(struct gpio_watcher *w);
const struct gpio_chip_entry *gpio_chips_get(struct gpio_watcher *w, const char *name);
/* Offset of the line called line on e, or -ENOENT. */
int gpio_chip_entry_line(const struct gpio_chip_entry *e, const char *line);
/* The scanned chips as "gpiochip0 [label], gpiochip1 [label]" ("none" without any). */
int gpio_chips_describe(const struct gpio_watcher *w, char **ret);
/* ops->check: -ENOENT with a warning when gpio.chip (or the line name) matches no chip now. */
int gpio_check(const struct led_backend *b, const char *dev_dir, char **ret_warning);

/* gpio.c: what a chip event does to a backend */
void gpio_try_attach(struct gpio_backend *p);
void gpio_chip_gone(struct gpio_backend *p);
