/* SPDX-License-Identifier: MIT */
/* The gpio backend's chip watcher (hotplug under dev_dir) and its scan of the chips. */
#pragma once

#include "gpio-types.h"

/* chip_gone and chip_back: called for the backends added (gpio_watcher_add) when their chip
 * goes away or a chip appears. */
int gpio_watcher_new(sd_event *event, const char *dev_dir, void (*chip_gone)(struct gpio_backend *),
		     void (*chip_back)(struct gpio_backend *), void **ret);
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
