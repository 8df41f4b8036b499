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

#ifndef ULEDS_IOC_SET_EVENT_MODE

#include <linux/types.h>

/*
 * Event mode: instead of the latest brightness as an int, read() returns
 * whole struct uleds_event records, one for every call the LED core makes,
 * oldest first. See kmod/README, "Event mode".
 */

/* struct uleds_event.type */
#define ULEDS_EVENT_BRIGHTNESS	1	/* brightness_set(): .brightness */
#define ULEDS_EVENT_BLINK	2	/* blink_set(): .delay_on_ms, .delay_off_ms */
#define ULEDS_EVENT_REMOVED	3	/* groups only: ULEDS_IOC_DEV_REMOVE of the
					 * member, which has left the group */

/* Room for the channel intensities of a multicolour LED. */
#define ULEDS_MAX_CHANNELS	8

struct uleds_event {
	__aligned_u64 timestamp_ns;	/* CLOCK_MONOTONIC of the call */
	__aligned_u64 boottime_ns;	/* CLOCK_BOOTTIME (counts suspend) */
	__aligned_u64 seq;		/* 1, 2, 3 ... per LED, lost ones too */
	__u32 lost;			/* records dropped right before this one */
	__u16 type;			/* ULEDS_EVENT_* */
	__u16 n_channels;		/* valid entries of intensity[] (0) */
	__s32 brightness;		/* BRIGHTNESS: the new value; BLINK: the
					 * brightness the LED blinks at */
	__u32 delay_on_ms;		/* BLINK only */
	__u32 delay_off_ms;		/* BLINK only */
	__u32 id;			/* read from a group: the member's id
					 * (ULEDS_IOC_GROUP_ADD); else 0 */
	__u32 intensity[ULEDS_MAX_CHANNELS];
};					/* 80 bytes on every architecture */

/* Argument of ULEDS_IOC_SET_EVENT_MODE. */
struct uleds_event_mode {
	__u32 ring_size;	/* records kept: 0 = 1024; 1 to 65536 */
	__u32 flags;		/* ULEDS_EVENT_F_* */
};

/*
 * The LED implements blink_set(): triggers that blink (timer, netdev ...)
 * hand over one ULEDS_EVENT_BLINK record instead of a record per toggle.
 * Only before the setup (EBUSY after).
 */
#define ULEDS_EVENT_F_BLINK	0x1

/*
 * Switches the fd to event mode, before or after the setup; again to resize
 * the ring (records waiting are dropped and counted as lost). Returns
 * sizeof(struct uleds_event). EINVAL: ring_size or flags out of range;
 * EBUSY: ULEDS_EVENT_F_BLINK after the setup; ENOMEM.
 */
#define ULEDS_IOC_SET_EVENT_MODE	_IOW(ULEDS_IOC_MAGIC, 3, struct uleds_event_mode)

#endif /* ULEDS_IOC_SET_EVENT_MODE */

#ifndef ULEDS_IOC_SET_MULTICOLOR

/*
 * Channel colours: the kernel's LED_COLOR_ID_* numbers (dt-bindings/leds/
 * common.h, the same in 6.1 and 6.12), which are not exported to user space.
 * /sys/class/leds/NAME/multi_index shows them by these names.
 */
#define ULEDS_COLOR_WHITE	0
#define ULEDS_COLOR_RED		1
#define ULEDS_COLOR_GREEN	2
#define ULEDS_COLOR_BLUE	3
#define ULEDS_COLOR_AMBER	4
#define ULEDS_COLOR_VIOLET	5
#define ULEDS_COLOR_YELLOW	6
#define ULEDS_COLOR_IR		7
#define ULEDS_COLOR_MULTI	8
#define ULEDS_COLOR_RGB		9
#define ULEDS_COLOR_PURPLE	10
#define ULEDS_COLOR_ORANGE	11
#define ULEDS_COLOR_PINK	12
#define ULEDS_COLOR_CYAN	13
#define ULEDS_COLOR_LIME	14
#define ULEDS_COLOR_MAX		15	/* first invalid */

/* Argument of ULEDS_IOC_SET_MULTICOLOR. */
struct uleds_multicolor {
	__u32 n_channels;			/* 1 to ULEDS_MAX_CHANNELS */
	__u32 color[ULEDS_MAX_CHANNELS];	/* ULEDS_COLOR_* per channel */
};

/*
 * Before the setup: the LED registers as a multicolour LED (multi_index,
 * multi_intensity in sysfs) with these channels, each at max_brightness at
 * first. Returns 0. EINVAL: channel count or colour out of range; EBUSY:
 * after the setup; EOPNOTSUPP: the kernel has no led-class-multicolor.
 * Channel intensities come in struct uleds_event.intensity[] (event mode)
 * or after the brightness (latest-value mode, see kmod/README).
 */
#define ULEDS_IOC_SET_MULTICOLOR	_IOW(ULEDS_IOC_MAGIC, 4, struct uleds_multicolor)

#endif /* ULEDS_IOC_SET_MULTICOLOR */

#ifndef ULEDS_IOC_GET_DEV

/*
 * Which LED the fd carries: fills struct uleds_user_dev with the name and
 * max_brightness it was set up with (as registered, never renamed). Returns
 * 0. ENODEV: before the setup, or after ULEDS_IOC_DEV_REMOVE. Lets a program
 * that gets fds back (systemd's fd store) tell them apart without a name per
 * fd. Numbers 16 and up: room below for the upstream proposal's own.
 */
#define ULEDS_IOC_GET_DEV		_IOR(ULEDS_IOC_MAGIC, 16, struct uleds_user_dev)

/*
 * Removes the LED now, while the fd (and any copy of it: dup(), fork(),
 * SCM_RIGHTS) stays open: /sys/class/leds/NAME goes before the ioctl returns,
 * and the name is free again. From then on poll reports POLLHUP (every
 * waiter is woken), read() fails with ENODEV, and the fd cannot set up
 * another LED (ENODEV). Returns 0; ENODEV when no LED is registered. A
 * holder of a copy that watches for POLLHUP (systemd's fd store does) learns
 * that the LED is gone and can drop its copy.
 */
#define ULEDS_IOC_DEV_REMOVE		_IO(ULEDS_IOC_MAGIC, 17)

#endif /* ULEDS_IOC_GET_DEV */

#ifndef ULEDS_IOC_GROUP_CREATE

/*
 * LED groups (kmod/README, "Groups"): one fd that reads the event records of
 * many LEDs, each tagged with an id the program chose, and that holds its
 * members alive after their own fds are closed.
 */

/* Argument of ULEDS_IOC_GROUP_ADD, ULEDS_IOC_GROUP_LEAVE, ULEDS_IOC_GROUP_GET. */
struct uleds_group_member {
	__u32 id;	/* the member's tag in struct uleds_event.id */
	__s32 fd;	/* ADD: the LED's fd; GET: a new fd for it; LEAVE: 0 */
};

/*
 * Turns a fresh fd of /dev/uleds (no setup, no mode, no trigger) into a group
 * with a ring of ring_size records (0: 4096; at most 262144; flags must be
 * 0). Returns sizeof(struct uleds_event). EBUSY: not a fresh fd.
 */
#define ULEDS_IOC_GROUP_CREATE		_IOW(ULEDS_IOC_MAGIC, 18, struct uleds_event_mode)

/*
 * On a group: the LED of .fd joins it as .id. Its waiting records (or its
 * unread latest value) move to the group, and every later one goes there.
 * The group holds the LED's file: closing the LED's own fd no longer removes
 * it. EALREADY: the LED is a member of this group already, and .id is set to
 * its id (how a program that got the group back learns an LED's id); EEXIST:
 * .id taken; EBUSY: the LED is in another group; ENODEV: removed; EINVAL:
 * .fd is no LED of this driver (a group, another file).
 */
#define ULEDS_IOC_GROUP_ADD		_IOWR(ULEDS_IOC_MAGIC, 19, struct uleds_group_member)

/*
 * On a group: member .id leaves; its records go to its own fd again. The
 * group's hold ends: with no other fd open, the LED goes before the ioctl
 * returns. ENOENT: no such member.
 */
#define ULEDS_IOC_GROUP_LEAVE		_IOW(ULEDS_IOC_MAGIC, 20, struct uleds_group_member)

/*
 * On a group: the member with the lowest id >= .id; sets .id to it and .fd
 * to a new fd (O_CLOEXEC) of the LED's file, as the fd it joined with.
 * ENOENT: none. Lets a program that got the group back (systemd's fd store)
 * walk and re-adopt every LED from the one fd.
 */
#define ULEDS_IOC_GROUP_GET		_IOWR(ULEDS_IOC_MAGIC, 21, struct uleds_group_member)

#endif /* ULEDS_IOC_GROUP_CREATE */

#endif /* _ULEDS_EXT_H */
