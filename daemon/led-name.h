/* SPDX-License-Identifier: MIT */
/* An LED name as a file or fd name (the fd store's FDNAME, the state and transient files). */
#pragma once

/* Reversible escaping into systemd's FDNAME character set: ':' , '%', control characters and
 * anything outside printable ASCII become %XX. */
int led_name_escape(const char *name, char **ret);
int led_name_unescape(const char *fdname, char **ret);
