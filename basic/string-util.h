/* SPDX-License-Identifier: MIT */
/* Strings and NULL-terminated string arrays (strv): the helpers every file may use. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "macro.h"

#define streq(a, b) (strcmp((a), (b)) == 0)

/* Equal strings, or both NULL. */
static inline bool streq_ptr(const char *a, const char *b)
{
	return (!a && !b) || (a && b && streq(a, b));
}

/* Frees every string up to the terminating NULL, then the array; returns NULL. */
char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);
/* Appends s, taking ownership (freed on failure; a NULL s is -ENOMEM, so
 * "strv_push(&l, &n, strdup(x))" needs no check of its own). *l stays NULL-terminated.
 * n caches the length (O(1) appends); NULL: counted. */
int strv_push(char ***l, size_t *n, char *s);

/* A whole unsigned decimal number: digits only (no sign, no space, no junk), <= UINT_MAX. */
int safe_atou(const char *s, unsigned *ret);

/* Sets *ret_error to a malloc'ed message (NULL when out of memory); returns r when it is
 * negative, else -EINVAL: "return error_setf(ret_error, r, ...)". */
int error_setf(char **ret_error, int r, const char *format, ...) _printf_(3, 4);

/* Levenshtein distance of two short strings (names): UINT_MAX when b is longer than 255. */
unsigned edit_distance(const char *a, const char *b);

/* Well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF). */
bool utf8_is_valid(const char *s);
/* A copy of s with every byte that is not part of valid UTF-8 written as \xNN. */
char *utf8_escape_invalid(const char *s);

/* A small file that holds one unsigned decimal number and an optional newline ("42\n"), as
 * sysfs attributes and uledsd's state files do. -EBADMSG for anything else, -E2BIG when it
 * is longer than any such number. */
int read_unsigned_file(const char *path, unsigned *ret);

/* One refcounted copy of a string that many objects hold alike (the file of 10 000 LED
 * sections and of their backends, a chip's name): str_shared() returns the copy of s, made on
 * first use (NULL when out of memory); each result is given back with str_unshare() (NULL is
 * fine). One thread only: the daemon's. */
const char *str_shared(const char *s);
void str_unshare(const char *s);
