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

/* FDNAME of the fds stored in batches (uledsd's kmod). Never the escape of an LED name: that
 * writes '%' as %25. */
#define FDSTORE_BATCH_NAME "uleds%batch"

/* Store l's fd: at once by its name (in-tree uleds), or queued for the next batch (kmod). */
void fdstore_add(struct led *l);
/* Send the queued fds now (before READY=1); otherwise done in the next loop iteration. */
void fdstore_flush(struct manager *m);
/* Drop l from the queue (it is being freed). */
void fdstore_unqueue(struct led *l);
/* Tell systemd to drop l's fd (LED removed or recreated). No-op without systemd. */
void fdstore_remove(struct led *l);
/* The same for an adopted fd not (or no longer) held by an LED; fd -1 when closed already. */
void fdstore_forget(struct manager *m, const char *name, int fd);
