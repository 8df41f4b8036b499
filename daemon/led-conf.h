/* SPDX-License-Identifier: MIT */
/* One LED's definition as parsed, and how a new definition differs from the running one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

struct led_backend;

#define LED_NAME_MAX 63	   /* the kernel's LED_MAX_NAME_SIZE (64) minus the NUL */
#define LED_CHANNELS_MAX 8 /* ULEDS_MAX_CHANNELS: channels of a multicolour LED */

enum default_brightness_mode {
	DEFAULT_BRIGHTNESS_UNSET,   /* leave the kernel's initial value (0) */
	DEFAULT_BRIGHTNESS_VALUE,   /* default_brightness = N */
	DEFAULT_BRIGHTNESS_RESTORE, /* default_brightness = restore: last saved value */
};

/* blink = offload|software: who times a trigger's blinking (kmod/README, "Event mode"). */
enum led_blink_mode {
	LED_BLINK_OFFLOAD,  /* the kernel hands over on/off delays, uledsd's backends blink */
	LED_BLINK_SOFTWARE, /* the LED core toggles the brightness itself */
};

struct trigger_attr {
	char *key; /* sysfs attribute below the LED, e.g. "delay_on" */
	char *value;
	unsigned line;
};

/* Fields in order of size: a running LED keeps its definition, 10 000 LEDs 10 000 of them. */
struct led_conf {
	char *name;
	const char *file; /* where the section starts (str_shared) */
	char *trigger;	  /* NULL: none configured */
	struct trigger_attr *attrs;
	size_t n_attrs;
	/* The backend instances: parsed here, attached by the LED that runs this definition. */
	struct led_backend **backends;
	size_t n_backends;
	unsigned line;
	int max_brightness;
	enum default_brightness_mode default_mode;
	int default_brightness;
	unsigned trigger_line;
	enum led_blink_mode blink; /* fixed at registration: a change recreates the device */
	/* color = ...: a multicolour LED (0 channels: a plain one), fixed at registration. */
	unsigned n_channels;
	unsigned color_line;
	unsigned intensity[LED_CHANNELS_MAX]; /* multi_intensity = ... */
	unsigned intensity_line;
	unsigned backends_line;
	uint8_t color[LED_CHANNELS_MAX]; /* ULEDS_COLOR_* per channel */
	bool no_events;	    /* events = no: latest-value mode even where events exist */
	bool intensity_set; /* multi_intensity = ...: applied at start and on change */
	bool backends_set;  /* "backends =" seen */
};

/* A definition named name from file:line, with the defaults (max_brightness 255). */
int led_conf_new(const char *name, size_t name_len, const char *file, unsigned line,
		 struct led_conf **ret);
/* Frees the backends too (detaching those that are attached); NULL entries are skipped. */
struct led_conf *led_conf_free(struct led_conf *lc);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct led_conf *, led_conf_free)

/* What differs between the running definition and a new one of the same name. */
struct led_conf_diff {
	bool recreate; /* max_brightness, blink, color: the kernel device must be made again */
	bool defaults; /* default_brightness, multi_intensity */
	bool trigger;  /* trigger or its attributes */
	bool backends; /* a backend added, removed or with other settings */
};
void led_conf_diff(const struct led_conf *old, const struct led_conf *new,
		   struct led_conf_diff *ret);

enum led_change {
	LED_CHANGE_NONE,     /* identical: keep as it is */
	LED_CHANGE_UPDATE,   /* same device, other trigger/attributes/backends: update in place */
	LED_CHANGE_RECREATE, /* max_brightness changed: the kernel device must be recreated */
};
enum led_change led_conf_compare(const struct led_conf *old, const struct led_conf *new);

/* The kernel's name of colour id (ULEDS_COLOR_*): "red"; NULL past the last. */
const char *led_color_to_string(unsigned color);
/* "red" -> ULEDS_COLOR_RED; -EINVAL for a name the kernel does not know. */
int led_color_from_string(const char *s);

/* 1-63 bytes of UTF-8 without '/' or control characters, not "." or "..". */
bool led_name_is_valid(const char *name, const char **ret_reason);

/* A trigger's name as the configuration and SetTrigger accept it: 1-63 of [A-Za-z0-9_-]. */
bool trigger_name_is_valid(const char *s);
/* A trigger attribute (trigger.KEY, SetTriggerAttributes): a lower-case file name below the
 * LED's sysfs directory, never a path and never a file of the LED core ("brightness"). */
bool trigger_attr_name_is_valid(const char *s);
/* sysfs's trigger file, "none [timer] oneshot": every name (brackets off) and the selected
 * one. Either ret may be NULL; with ret_current, a list without exactly one selected trigger
 * is -EBADMSG. */
int trigger_list_parse(const char *list, char ***ret_names, char **ret_current);
