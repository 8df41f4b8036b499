/* SPDX-License-Identifier: MIT */
/* The trust model of io.uledsd1 (uledsd-dbus(7), SECURITY): what the right to manage allows,
 * and the quotas that bound what a caller who is not root makes the daemon hold. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The configuration section that sets them (uledsd.conf(5), "[uledsd]"): not an LED. */
#define POLICY_SECTION "uledsd"

/* Limits of one method call, checked before anything is looked up or asked (polkit keeps a
 * waiting call, so these bound what one pinned call costs). */
#define POLICY_SETTINGS_MAX 64	       /* CreateLED's (key, value) pairs */
#define POLICY_SETTINGS_BYTES_MAX 8192 /* their keys and values together */
#define POLICY_ATTRIBUTES_MAX 16       /* SetTriggerAttributes' pairs */
#define POLICY_ATTRIBUTE_VALUE_MAX 4096

struct policy {
	/* Triggers a caller who is not root may select (SetTrigger, CreateLED's trigger), and
	 * whose attributes it may set; sorted, NULL-terminated. */
	char **manage_triggers;
	/* Transient LEDs of callers who are not root: of one uid, of all of them. */
	unsigned transient_max_per_user, transient_max;
	/* Recordings (Record) of one uid who is not root, of all callers who are not root. */
	unsigned record_max_per_user, record_max;
	/* Method calls that wait for dbus-daemon's or polkit's answer: of one uid, in all. */
	unsigned pending_max_per_user, pending_max;
};

/* The built-in defaults (uledsd.conf(5)). */
int policy_init(struct policy *p);
void policy_done(struct policy *p);
/* Replace dst with a copy of src. */
int policy_copy(struct policy *dst, const struct policy *src);

/* One "key = value" of [uledsd]. -EINVAL/-ERANGE with a malloc'ed message (no FILE:LINE)
 * that says what to write instead; -ENOENT for a key that is not one of the section. */
int policy_parse_key(struct policy *p, const char *key, const char *value, char **ret_error);
/* The keys of [uledsd], space-separated (static storage), for messages. */
const char *policy_keys(void);

bool policy_trigger_allowed(const struct policy *p, const char *trigger);
/* "timer, heartbeat, ..." (malloc'ed), for messages. */
char *policy_triggers_string(const struct policy *p);

/* The part of name that marks an LED system services find and drive by name (UPower the
 * keyboard backlight by "*kbd_backlight*", the audio stack the mute LEDs), NULL if none:
 * only root may create such an LED. */
const char *policy_reserved_name(const char *name);
