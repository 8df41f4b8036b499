/* SPDX-License-Identifier: MIT */
/* Keeping uleds fds in systemd's file descriptor store, so LEDs survive a crash. */
#pragma once

struct manager;
struct led;

/* Reversible escaping of an LED name into systemd's FDNAME character set. */
int fdstore_name_escape(const char *name, char **ret);
int fdstore_name_unescape(const char *fdname, char **ret);

/* Collect the fds passed by systemd (LISTEN_FDS): kept until taken or released. */
int fdstore_collect(struct manager *m);
/* The stored fd for an LED name (ownership passes to the caller), or -ENOENT. */
int fdstore_take(struct manager *m, const char *name);
/* Close every collected fd nobody took, and drop them from systemd's store; except those
 * c names as failed (a definition with errors): those LEDs stay as they are, for a reload
 * that fixes the definition to adopt. c NULL: release all. */
struct conf;
void fdstore_release_unused(struct manager *m, const struct conf *c);

/* Store l's fd / tell systemd to drop it (LED removed or recreated). No-ops without systemd. */
void fdstore_add(struct led *l);
void fdstore_remove(struct led *l);
/* The same by name: an adopted fd whose LED could not be set up again. */
void fdstore_forget(struct manager *m, const char *name);
