/* SPDX-License-Identifier: MIT */
/* gpio.share: lines of one chip in one line request, written together once a wakeup. */
#pragma once

#include "gpio-types.h"

/* Attach p's line: with gpio.share, on a scanned chip, it waits for the next group pass;
 * else it is requested now (gpio_try_attach), after any line a group let go is free. */
void gpio_group_attach(struct gpio_backend *p);
/* p leaves its group (or the pass's waiting list); the others are requested again by the next
 * pass. No-op for a line without a group. */
void gpio_group_leave(struct gpio_backend *p);
/* The watcher's chip_gone: p waits for its chip (gpio_chip_gone), out of its group. */
void gpio_group_chip_gone(struct gpio_backend *p);
/* Drive p's line (a group member) to value with the group's next write. */
void gpio_group_set(struct gpio_backend *p, int value);
/* The group pass now: groups a member left are requested again, then the waiting lines of
 * each chip are requested together (up to GPIO_GROUP_MAX a request). */
void gpio_groups_flush(struct gpio_watcher *w);
/* Release every group and stop the passes (the watcher goes). */
void gpio_groups_free(struct gpio_watcher *w);
