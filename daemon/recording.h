/* SPDX-License-Identifier: MIT */
/* Recordings: every transition of some LEDs, written to a pipe per recorder (uledsd-dbus(7)). */
#pragma once

#include "led-types.h"

#include <sys/types.h>

struct manager;
struct led;
struct uleds_event;

/* Sort names for recording_start(); -ENOTUNIQ when one is there twice (*ret_duplicate). */
int recording_names_sort(char **names, const char **ret_duplicate);
/* Start a recording of the LEDs named in *names (sorted by recording_names_sort(); names NULL,
 * *names NULL or empty: all, also those that come later), taken once the recording exists. *ret_fd
 * is the pipe's read end, the caller's to hand over and close. Writes the header and every LED's
 * state now. -EUSERS: a quota of [uledsd] is reached, *ret_name is its key (uid 0 has none);
 * -ENOENT: a name is not an LED (*ret_name points to it). */
int recording_start(struct manager *m, uid_t uid, char ***names, int *ret_fd,
		    const char **ret_name);
/* The listener (userdata: the manager): every record of an LED (from the kernel in event
 * mode, made up by the daemon otherwise) goes to the recordings that want it. */
void recording_on_led_event(struct led *l, const struct led_event *ev, void *userdata);
void recording_stop_all(struct manager *m);
