/* SPDX-License-Identifier: MIT */
/* The contract of io.uledsd1 (uledsd-dbus(7)): every name the daemon serves and its clients
 * (uledsctl, uledsd-panel) call. Written once here: a rename is one edit. Plain macros, no
 * types, so that sd-bus and GDBus code alike include it. */
#pragma once

/* The well-known name and the objects. An LED's path is LED_PATH_PREFIX "/" followed by its
 * name escaped as sd_bus_path_encode() does (g_dbus_escape_object_path() differs: ask the
 * Manager's GetLED or read GetManagedObjects rather than building one). */
#define ULEDSD_BUS_NAME "io.uledsd1"
#define ULEDSD_MANAGER_PATH "/io/uledsd1"
#define ULEDSD_LED_PATH_PREFIX "/io/uledsd1/led"

/* Interfaces. */
#define ULEDSD_MANAGER_IFACE "io.uledsd1.Manager"
#define ULEDSD_LED_IFACE "io.uledsd1.LED"

/* Errors of our own (uledsd-dbus(7), ERRORS); the others are the freedesktop ones. */
#define ULEDSD_ERROR_UNKNOWN_LED "io.uledsd1.Error.UnknownLED"
#define ULEDSD_ERROR_UNKNOWN_TRIGGER "io.uledsd1.Error.UnknownTrigger"
#define ULEDSD_ERROR_UNKNOWN_ATTRIBUTE "io.uledsd1.Error.UnknownAttribute"
#define ULEDSD_ERROR_NOT_MULTICOLOR "io.uledsd1.Error.NotMulticolor"
#define ULEDSD_ERROR_NAME_IN_USE "io.uledsd1.Error.NameInUse"
#define ULEDSD_ERROR_NOT_TRANSIENT "io.uledsd1.Error.NotTransient"

/* polkit actions (conf/polkit-1/io.uledsd1.policy). */
#define ULEDSD_POLKIT_MANAGE "io.uledsd1.manage"
#define ULEDSD_POLKIT_CREATE_HARDWARE "io.uledsd1.create-hardware"

/* The group the right to manage is given to (uledsd-dbus(7), SECURITY). */
#define ULEDSD_GROUP "uledsd"
