/* SPDX-License-Identifier: MIT */
/* One sd-event source for many fds (every LED's): a private epoll set, dispatched in batches.
 * It knows fds and a callback, not LEDs: an LED embeds a member (led-types.h). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

struct led_watch;

/* Changes read per wakeup at most; more ready members wait for the next loop iteration, so
 * the bus and timers are served in between. */
#define LED_WATCH_BATCH 128

struct led_watch_member {
	int fd;
	bool watched;
	void (*ready)(struct led_watch_member *mb); /* fd is readable (edge-triggered) */
};

/* Watch mb->fd, which must be open; *watch is made on first use. */
int led_watch_add(sd_event *event, struct led_watch **watch, struct led_watch_member *mb);
/* Stop watching mb (idempotent): EPOLL_CTL_DEL, which must come before close(mb->fd), since
 * the fd store's copy keeps the file, and with it the epoll item, alive. An event of mb not
 * dispatched yet in the running batch is dropped. */
void led_watch_remove(struct led_watch *w, struct led_watch_member *mb);
/* The set and its source, once no member is left. */
struct led_watch *led_watch_free(struct led_watch *w);
