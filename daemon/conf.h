/* SPDX-License-Identifier: MIT */
/* The configuration: every LED definition of the drop-ins, and the errors found in them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "led-conf.h"
#include "macro.h"
#include "policy.h"

struct conf {
	struct led_conf **leds; /* valid LEDs, in the order they were defined */
	size_t n_leds;
	char **failed_names; /* LEDs whose definition had errors (NULL-terminated) */
	size_t n_failed;
	char **errors; /* "FILE:LINE: message", NULL-terminated */
	size_t n_errors;
	size_t n_files;
	char **notes; /* drop-ins overridden or masked: "PATH: overridden by PATH" */
	size_t n_notes;
	struct policy policy; /* [uledsd]: the built-in defaults where it sets nothing */
	/* Every section seen (valid or not) and its "FILE:LINE", to report duplicates. */
	void *defined; /* tsearch tree of "NAME\0FILE:LINE" */
	/* Or the same, packed (conf_defined_pack()): sorted, in one block with the strings. */
	char **packed;
	size_t n_packed;
};

int conf_new(struct conf **ret);
struct conf *conf_free(struct conf *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct conf *, conf_free)


/* Appends a "FILE:LINE: ..." error (bytes that are not UTF-8 escaped: errors travel over
 * D-Bus). */
void conf_add_error(struct conf *c, const char *file, unsigned line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/* A definition that had errors: not to be created, an old one of that name is kept. */
void conf_add_failed(struct conf *c, struct led_conf *lc);
/* A valid definition (taken; freed when it cannot be stored). */
void conf_add_led(struct conf *c, struct led_conf *lc);
/* Where an LED name was defined before ("FILE:LINE"), NULL when it was not. */
const char *conf_defined_at(const struct conf *c, const char *name);
void conf_remember_name(struct conf *c, const char *name, const char *path, unsigned line);
/* The names remembered so far, moved out of their tree into one block. The manager keeps the
 * names of 10 000 definitions: as 20 000 small blocks made among a reload's parsing, they held
 * on to every page of it once it was freed (6.5 MiB stayed resident). Out of memory: kept as
 * they are. */
void conf_defined_pack(struct conf *c);
/* Forget every name remembered, packed or not. */
void conf_defined_clear(struct conf *c);

struct led_conf *conf_find(const struct conf *c, const char *name);
bool conf_is_failed(const struct conf *c, const char *name);
