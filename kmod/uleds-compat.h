/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LED core symbols that are exported but declared only in the kernel's
 * private drivers/leds/leds.h, which out-of-tree modules cannot include.
 * Needed on kernels without LED_REJECT_NAME_CONFLICT (6.1) to look for a
 * name clash before registering.
 */
#ifndef _ULEDS_COMPAT_H
#define _ULEDS_COMPAT_H

#include <linux/list.h>
#include <linux/rwsem.h>

extern struct rw_semaphore leds_list_lock;
extern struct list_head leds_list;

#endif /* _ULEDS_COMPAT_H */
