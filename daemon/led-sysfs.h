/* SPDX-License-Identifier: MIT */
/* An LED's sysfs attributes ("brightness", "trigger", "delay_on", ...) in its directory dir
 * (/sys/class/leds/NAME). */
#pragma once

/* Write value to dir/attr in one write(). */
int sysfs_attr_write(const char *dir, const char *attr, const char *value);
/* Read all of dir/attr (at most 1 MiB), trailing newlines and spaces removed. */
int sysfs_attr_read(const char *dir, const char *attr, char **ret);
/* The trigger the kernel has selected now ("none" when none). */
int sysfs_current_trigger(const char *dir, char **ret);
