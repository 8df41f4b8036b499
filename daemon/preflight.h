/* SPDX-License-Identifier: MIT */
/* Checks before the LEDs are made (preflight.c). */
#pragma once

struct conf;
struct fdstore;

/* Raise the soft RLIMIT_NOFILE to the hard one (one fd per LED). */
void preflight_raise_nofile(void);
/* Warn when c's LEDs need more fds than the limit allows. */
void preflight_check_nofile(const struct conf *c);
/* 0 when some LED can work; else -errno, logged with the fix: uleds_path not openable for
 * lack of rights, or every configured LED exists already (another uledsd, another program)
 * and none is in the fd store fs. */
int preflight_can_run(const char *uleds_path, const char *sysfs_leds, const struct conf *c,
		      const struct fdstore *fs);
