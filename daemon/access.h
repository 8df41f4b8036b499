/* SPDX-License-Identifier: MIT */
/* Who may change state over D-Bus: root, the group uledsd, and whom polkit admits. */
#pragma once

#include "uledsd-bus.h"

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct manager;


enum access_action {
	ACCESS_MANAGE,		/* change LEDs, triggers, transient LEDs of dbus/log, reload */
	ACCESS_CREATE_HARDWARE, /* a transient LED with a gpio or pwm backend: root or polkit */
};

/* The caller of msg may change state: 1 yes; -EACCES (error set: AccessDenied) no. 0: the
 * answer needs asking dbus-daemon or polkit; the method handler returns 1 now and is
 * called again with the same message once the answer is there. */
int access_check(struct manager *m, sd_bus_message *msg, sd_bus_error *error);
/* The same for another action. More calls waiting than [uledsd] pending_max(_per_user)
 * allow: -EUSERS, error LimitsExceeded naming the key. */
int access_check_action(struct manager *m, sd_bus_message *msg, enum access_action action,
			sd_bus_error *error);
/* For CanManage: 1 the caller may change state now (polkit asking for a password is no),
 * -EACCES no, 0 asked. */
int access_can_manage(struct manager *m, sd_bus_message *msg);
/* The caller's effective uid as dbus-daemon saw it is 0. */
bool access_caller_is_root(sd_bus_message *msg);
/* The caller's effective uid as dbus-daemon saw it; (uid_t)-1 when it cannot be had. */
uid_t access_caller_uid(sd_bus_message *msg);
/* Forget pending questions (the bus goes away). */
void access_free_all(struct manager *m);
