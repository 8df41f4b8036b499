/* SPDX-License-Identifier: MIT */
/* One sd-event source for many fds (every LED's): a private epoll set, dispatched in batches.
 * It knows fds and a callback, not LEDs: an LED embeds a member (led-types.h). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "led-member.h"

struct led_watch;

/* With uledsd's kmod, the LEDs added from now on join a uleds group (led-group.c) instead
 * of the epoll set: 1 when the watch has one (made now or before), 0 when the driver has no
 * groups, < 0 on another error. *watch is made on first use. */
int led_watch_open_group(sd_event *event, struct led_watch **watch, const char *uleds_path);
/* The same with a group handed back (fd store, re-execution), taking fd: member() is given a
 * new fd of each member LED (it owns it), before the LEDs are adopted and added. */
int led_watch_adopt_group(sd_event *event, struct led_watch **watch, int fd,
			  int (*member)(int fd, void *userdata), void *userdata);
/* The group's fd (for the fd store), -1 when there is none. */
int led_watch_group_fd(const struct led_watch *w);

/* Watch mb->fd, which must be open; *watch is made on first use. In a group when the watch
 * has one (mb->record then gets its records), else in the epoll set (mb->ready). */
int led_watch_add(sd_event *event, struct led_watch **watch, struct led_watch_member *mb);
/* Stop watching mb (idempotent): EPOLL_CTL_DEL, which must come before close(mb->fd), since
 * the fd store's copy keeps the file, and with it the epoll item, alive. An event of mb not
 * dispatched yet in the running batch is dropped. */
void led_watch_remove(struct led_watch *w, struct led_watch_member *mb);
/* The set and its source, once no member is left. */
struct led_watch *led_watch_free(struct led_watch *w);
