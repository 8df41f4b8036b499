/* SPDX-License-Identifier: MIT */
/* The gpio backend's data, shared by its configuration (gpio-conf.c), chip scan (gpio-chips.c),
 * line (gpio-line.c) and runtime (gpio.c) files. */
#pragma once

#include <gpiod.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "backend.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_config *, gpiod_line_config_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_request_config *, gpiod_request_config_free)

#define GPIO_CONSUMER_MAX 31 /* the kernel's GPIO_MAX_NAME_SIZE minus the NUL */

enum gpio_on_exit {
	GPIO_ON_EXIT_OFF, /* drive the line inactive, then release it */
	GPIO_ON_EXIT_KEEP,
};

struct gpio_watcher;
struct gpio_group;

struct gpio_backend {
	/* configuration; 0 in an enum means "not set": the default applies. Fields in order of
	 * size, here and below: 10 000 LEDs hold one each. */
	const char *chip; /* path, chip name or label as written (str_shared); NULL: every chip */
	char *line;	  /* line name; NULL when by_offset */
	/* gpio.lines = R G B: a multicolour LED, one line per colour channel, names or offsets
	 * as written (instead of line/offset above) */
	char **lines;
	unsigned offset;
	enum gpiod_line_drive drive;
	enum gpiod_line_bias bias;
	unsigned threshold;
	enum gpio_on_exit on_exit;
	unsigned n_lines;
	bool by_offset;
	bool active_low;
	bool share;	  /* gpio.share: may share one line request with lines of its chip */
	bool lines_given; /* gpio.lines seen, even an empty one (its error is said) */

	/* runtime */
	/* gpio.lines: one instance per line, each driving its channel's share of the
	 * brightness; configuration borrowed from this one, states joined into its state */
	struct gpio_backend *channels;
	struct gpio_backend *parent;
	char *channel_status; /* a channel's own state, NULL until it has one */
	struct led_backend *self;
	struct gpio_watcher *watcher;
	struct gpio_backend *next;	    /* in watcher->backends */
	struct gpiod_line_request *request; /* its own request; NULL while in a group */
	struct gpio_group *group;	    /* gpio.share: the request it shares, or NULL */
	struct gpio_backend *join_next;
	const char *chip_name;	      /* "gpiochip0" of the request (or of busy_chip), str_shared */
	struct gpiod_chip *busy_chip; /* watching a line someone else holds */
	sd_event_source *busy_io;
	sd_event_source *blink_timer; /* an offloaded blink: toggles the line itself */
	unsigned group_index;	      /* its line's place in group->members */
	unsigned line_offset;	      /* resolved offset in chip_name */
	unsigned brightness;	      /* the LED's latest: what a late request drives */
	int value;		      /* logical value driven now, -1: none */
	unsigned blink_on_ms, blink_off_ms;
	bool channel_ok;
	bool joining;	/* resolved, waiting in watcher->joining */
	bool solo;	/* a group request failed: a request of its own */
	bool lost;	/* the chip went away while attached */
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
	/* what a chip event does to a backend waiting here (gpio-line.c, given by gpio.c) */
	void (*chip_gone)(struct gpio_backend *p);
	void (*chip_back)(struct gpio_backend *p); /* a chip appeared: try to attach again */
	struct gpio_chip_entry *chips;
	size_t n_chips;
	bool chips_valid;
	/* gpio.share (gpio-group.c): lines resolved and waiting to be requested together, the
	 * groups, and the deferred passes that request the waiting ones and write the changed */
	struct gpio_backend *joining;
	struct gpio_group *groups;
	sd_event_source *join_pass;
	sd_event_source *write_pass;
};

#define GPIO_GROUP_MAX 64 /* lines in one kernel line request (GPIO_V2_LINES_MAX) */

/* One line request shared by gpio.share lines of one chip: their changes of one wakeup are
 * written with one ioctl. The kernel releases a request only whole, so a member leaving makes
 * the group request the others again. */
struct gpio_group {
	struct gpio_watcher *watcher;
	struct gpio_group *next; /* in watcher->groups */
	const char *chip_name;	 /* str_shared */
	struct gpiod_line_request *request;
	struct gpio_backend *members[GPIO_GROUP_MAX];
	unsigned offsets[GPIO_GROUP_MAX];
	enum gpiod_line_value values[GPIO_GROUP_MAX];
	unsigned n_members;
	bool dirty;	   /* values changed since the last write */
	bool left;	   /* a member left: request the rest again */
};
