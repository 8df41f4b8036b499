/* SPDX-License-Identifier: MIT */
/* What a trigger name tells before any LED uses it (trigger-names.c): whether the running
 * kernel has it or a module for it, where a device's trigger comes from, the nearest name of
 * a mistyped one. For the error of an LED whose trigger is missing, and --check-config. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* ledtrig-NAME is a module of the running kernel (its modules.dep names the file). */
bool trigger_module_exists(const char *trigger);
/* Triggers a device's driver registers (phy0tx, hci0-power, mmc0, kbd-capslock, rfkill0):
 * where they come from, as the end of a sentence; NULL for any other name. */
const char *trigger_device_source(const char *trigger);
/* The name in list (a sysfs trigger file: "none [timer] heartbeat") nearest to trigger, at
 * most 3 edits away, "none" aside; NULL when none is near. Points into list. */
const char *trigger_nearest(char *list, const char *trigger);
/* Why a trigger is missing and what to do, for an error message: where a device's trigger
 * comes from, "load its module (modprobe ledtrig-NAME)", or "no module ledtrig-NAME exists"
 * with the nearest name in list (a sysfs trigger file, may be NULL; it is cut up). */
void trigger_hint(const char *trigger, char *list, char *buf, size_t size);
/* The triggers the running kernel has registered, as a sysfs trigger file lists them (read
 * from any LED's under sysfs_leds): -ENOENT when there is no LED to ask. */
int trigger_list_read(const char *sysfs_leds, char **ret);
/* --check-config: 0 when trigger is registered, has a module, or comes with a device;
 * else -ENOENT and a warning naming the nearest registered name. list: trigger_list_read()'s
 * (NULL when unknown: only modules.dep is asked). */
int trigger_check(const char *list, const char *trigger, char **ret_warning);
