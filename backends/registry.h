/* SPDX-License-Identifier: MIT */
/* The built-in backends, by name. */
#pragma once

#include "backend.h"
#include "config.h"

/* NULL when no such backend is built in. */
const struct backend_ops *backend_ops_find(const char *name);
/* Comma-separated names of the built-in backends (static storage). */
const char *backend_list_names(void);

extern const struct backend_ops backend_log;
extern const struct backend_ops backend_pwm;
#if HAVE_GPIO
extern const struct backend_ops backend_gpio;
#endif
#if HAVE_DBUS
extern const struct backend_ops backend_dbus;
#endif
