/* SPDX-License-Identifier: GPL-2.0-or-later WITH Linux-syscall-note */
/*
 * uleds-ext.h - the uleds ABI of <linux/uleds.h> plus the ioctls proposed
 * upstream in 2025 (not merged), as implemented by the uledsd uleds module.
 *
 * Usable from user space and from the module. It includes <linux/uleds.h>
 * for struct uleds_user_dev and LED_MAX_NAME_SIZE, so including both headers,
 * in either order, is fine. If a future <linux/uleds.h> defines the ioctls
 * itself, its definitions win and this file adds nothing.
 *
 * Drivers without the ioctls (the in-tree uleds) answer them with ENOTTY.
 */
#ifndef _ULEDS_EXT_H
#define _ULEDS_EXT_H

#include <linux/ioctl.h>
#include <linux/uleds.h>

#ifndef ULEDS_IOC_SET_DEFAULT_TRIGGER

/* Argument of ULEDS_IOC_SET_DEFAULT_TRIGGER: a NUL-terminated trigger name. */
struct uleds_trigger {
	char name[LED_MAX_NAME_SIZE];
};

#define ULEDS_IOC_MAGIC			'l'

/*
 * Register the LED, exactly like a write() of struct uleds_user_dev.
 * Returns 0 instead of the byte count.
 */
#define ULEDS_IOC_DEV_SETUP		_IOW(ULEDS_IOC_MAGIC, 1, struct uleds_user_dev)

/*
 * Before the setup: the trigger becomes the LED's default trigger, attached
 * during registration, so the LED never exists without it. After the setup:
 * the trigger replaces the current one at once. A trigger that is not
 * registered yet is attached when it registers. Names match [A-Za-z0-9_-]+
 * and are not "default"; "none" means no trigger.
 */
#define ULEDS_IOC_SET_DEFAULT_TRIGGER	_IOW(ULEDS_IOC_MAGIC, 2, struct uleds_trigger)

#endif /* ULEDS_IOC_SET_DEFAULT_TRIGGER */

#endif /* _ULEDS_EXT_H */
