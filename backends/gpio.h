/* SPDX-License-Identifier: MIT */
/* The gpio backend's per-LED data, shared by its configuration and runtime halves. */
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

	/* runtime */
	struct led_backend *self;
	struct gpio_watcher *watcher;
	struct gpio_backend *next; /* in watcher->backends */
	struct gpiod_line_request *request;
	char *chip_name;    /* "gpiochip0" of the request (or of busy_chip) */
	unsigned line_offset; /* resolved offset in chip_name */
	int value;          /* logical value driven now, -1: none */
	bool lost;          /* the chip went away while attached */
	struct gpiod_chip *busy_chip; /* watching a line someone else holds */
	sd_event_source *busy_io;
};

/* One inotify watch on the manager's dev_dir, shared by all gpio backends of that manager. */
/* What a scan of the chips found, so 1000 LEDs looking up labels and line names scan once. */
struct gpio_chip_entry {
	char *name; /* gpiochipN */
	char *label;
	char **lines; /* line names (NULL entries for unnamed lines) */
	unsigned n_lines;
	struct gpiod_chip *chip; /* kept open from the scan: one open for all its LEDs */
};

struct gpio_watcher {
	struct gpio_watcher *next;
	struct manager *manager;
	int fd;
	sd_event_source *io;
	struct gpio_backend *backends;
	/* valid until the next inotify event under dev_dir */
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
