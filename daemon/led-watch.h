/* SPDX-License-Identifier: MIT */
/* One sd-event source for the fds of all LEDs: a private epoll set, dispatched in batches. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

struct led;
struct manager;

/* Changes read per wakeup at most; more ready LEDs wait for the next loop iteration, so the
 * bus and timers are served in between. */
#define LED_WATCH_BATCH 128

/* Watch l's fd; l->fd must be open. The set and its sd-event source are made on first use. */
int led_watch_add(struct manager *m, struct led *l);
/* Stop watching l (idempotent): EPOLL_CTL_DEL, which must come before close(l->fd), since
 * the fd store's copy keeps the file, and with it the epoll item, alive. An event of l not
 * dispatched yet in the running batch is dropped. */
void led_watch_remove(struct manager *m, struct led *l);
/* The set and its source, once no LED is left (manager_free). */
void led_watch_free(struct manager *m);

/* Defined in led.c: read what the LED's fd has and forward it. */
void led_on_ready(struct led *l);
