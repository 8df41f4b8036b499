/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helpers of the uleds ABI conformance test (uleds-abi.c), shared with its parts in other
 * files (uleds-abi-group.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "../../kmod/uleds-ext.h"

#define LEDS_DIR "/sys/class/leds"

extern const char *device;

/* One result line, "ok N - what" or "not ok N - what: " and fmt (what differed). */
bool check(bool cond, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double now(void);
void sleep_ms(int ms);
/* "ENODEV", or "success (N)" for r >= 0. */
const char *err_name(int r);
void copy_name(char dst[LED_MAX_NAME_SIZE], const char *src);
/* These return -errno on failure. */
int open_dev(int flags);
int setup_write(int fd, const char *name, int max_brightness);
int ioctl_setup(int fd, const char *name, int max_brightness);
int new_led(const char *name, int max_brightness, int flags);
int read_value(int fd, int *value);
bool led_exists(const char *name);
int sysfs_write(const char *name, const char *attr, const char *value);
int sysfs_read(const char *name, const char *attr, char *buf, size_t size);
int count_leds(const char *prefix);
int event_mode(int fd, unsigned int ring_size, unsigned int flags);
/* Every record waiting on an O_NONBLOCK fd, at most max. */
int read_events(int fd, struct uleds_event *ev, int max);
int new_event_led(const char *name, unsigned int ring, unsigned int flags);
int get_dev(int fd, struct uleds_user_dev *u);
int dev_remove(int fd);

/* uleds-abi-group.c */
void test_groups(void);
