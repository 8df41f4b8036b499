/* SPDX-License-Identifier: MIT */
/* A uleds group of uledsd's kmod (led-group.c): the records of many LEDs from one fd, and one
 * fd that holds them all for systemd's fd store. Used by the watch (led-watch.c). */
#pragma once

#include <systemd/sd-event.h>

#include "led-member.h"

struct led_group;

/* A new group on the uleds device, read by a source of its own. -ENOTTY: the driver has no
 * groups (the in-tree uleds, an older kmod). */
int led_group_open(sd_event *e, const char *uleds_path, struct led_group **ret);
/* A group handed back (the fd store, a re-execution); takes fd. member() gets a new fd of
 * each member LED, which it owns. */
int led_group_adopt(sd_event *e, int fd, int (*member)(int fd, void *userdata), void *userdata,
		    struct led_group **ret);
/* mb->fd joins (or, a member already, is found under its id): mb->record gets its records,
 * mb->group_id is set. */
int led_group_add(struct led_group *g, struct led_watch_member *mb);
/* mb leaves: the group no longer holds its LED, which goes with its fd. */
void led_group_remove(struct led_group *g, struct led_watch_member *mb);
/* The group's fd, -1 for none. */
int led_group_fd(const struct led_group *g);
struct led_group *led_group_free(struct led_group *g);
