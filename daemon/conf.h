/* SPDX-License-Identifier: MIT */
/* Configuration: drop-in discovery, INI parsing (inih), validation and reload comparison. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct led_backend;

#define LED_NAME_MAX 63 /* the kernel's LED_MAX_NAME_SIZE (64) minus the NUL */

enum default_brightness_mode {
	DEFAULT_BRIGHTNESS_UNSET,   /* leave the kernel's initial value (0) */
	DEFAULT_BRIGHTNESS_VALUE,   /* default_brightness = N */
	DEFAULT_BRIGHTNESS_RESTORE, /* default_brightness = restore: last saved value */
};

struct trigger_attr {
	char *key; /* sysfs attribute below the LED, e.g. "delay_on" */
	char *value;
	unsigned line;
};

struct led_conf {
	char *name;
	char *file; /* where the section starts */
	unsigned line;

	int max_brightness;
	enum default_brightness_mode default_mode;
	int default_brightness;
	char *trigger; /* NULL: none configured */
	unsigned trigger_line;
	struct trigger_attr *attrs;
	size_t n_attrs;
	struct led_backend **backends;
	size_t n_backends;
	bool backends_set; /* "backends =" seen */
	unsigned backends_line;
	bool failed; /* had an error: not to be created */
};

struct conf {
	struct led_conf **leds; /* valid LEDs, in the order they were defined */
	size_t n_leds;
	char **failed_names; /* LEDs whose definition had errors (NULL-terminated) */
	size_t n_failed;
	char **errors; /* "FILE:LINE: message", NULL-terminated */
	size_t n_errors;
	size_t n_files;
	/* Every section seen (valid or not) and its "FILE:LINE", to report duplicates. */
	char **defined_names;
	char **defined_places;
	size_t n_defined;
};

/* Default search path, highest priority first. */
extern const char *const conf_default_dirs[];

/* The *.conf files to read, in application order (by file name). A name found in an earlier
 * directory hides the same name in later ones; a symlink to /dev/null (or an empty file that is
 * a link to it) masks the name. */
int conf_files_list(const char *const *dirs, char ***ret_files);

int conf_new(struct conf **ret);
struct conf *conf_free(struct conf *c);
/* Parse one file into c: errors are appended to c->errors, never fatal. */
int conf_parse_file(struct conf *c, const char *path);
/* Same, from an open stream (for tests). */
int conf_parse_stream(struct conf *c, const char *path, FILE *f);
/* Checks across files (exclusive backend resources); call after the last file. */
void conf_finish(struct conf *c);
/* conf_files_list + conf_parse_file for each + conf_finish. */
int conf_load(const char *const *dirs, struct conf **ret);

/* Appends a "FILE:LINE: ..." error. */
void conf_add_error(struct conf *c, const char *file, unsigned line, const char *format, ...)
	__attribute__((format(printf, 4, 5)));

struct led_conf *led_conf_free(struct led_conf *lc);
struct led_conf *conf_find(const struct conf *c, const char *name);
bool conf_is_failed(const struct conf *c, const char *name);

enum led_change {
	LED_CHANGE_NONE,     /* identical: keep as it is */
	LED_CHANGE_UPDATE,   /* same device, other trigger/attributes/backends: update in place */
	LED_CHANGE_RECREATE, /* max_brightness changed: the kernel device must be recreated */
};
enum led_change led_conf_compare(const struct led_conf *old, const struct led_conf *new);

bool led_name_is_valid(const char *name, const char **ret_reason);
bool led_conf_backends_same(const struct led_conf *a, const struct led_conf *b);
