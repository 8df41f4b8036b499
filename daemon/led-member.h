/* SPDX-License-Identifier: MIT */
/* What the watch (led-watch.c) and the uleds group (led-group.c) know of one LED: its fd and
 * where its news goes. An LED embeds one (led-types.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct uleds_event;

/* Changes read per wakeup at most; more ready members wait for the next loop iteration, so
 * the bus and timers are served in between. */
#define LED_WATCH_BATCH 128

struct led_watch_member {
	int fd;
	bool watched;
	uint32_t group_id; /* its id in the watch's uleds group; 0: not in one */
	void (*ready)(struct led_watch_member *mb); /* fd is readable (edge-triggered) */
	/* in a group: one record of the LED, read from the group's fd */
	void (*record)(struct led_watch_member *mb, const struct uleds_event *ev);
};
