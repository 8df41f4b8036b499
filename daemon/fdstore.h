/* SPDX-License-Identifier: MIT */
/* Keeping uleds fds in systemd's file descriptor store, so LEDs survive a crash. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "led-types.h"
#include "macro.h"

struct conf;
struct fdstore;

/* The store of this process: a no-op one without NOTIFY_SOCKET. */
int fdstore_new(sd_event *event, struct fdstore **ret);
/* Releases the collected fds nobody took. */
struct fdstore *fdstore_free(struct fdstore *fs);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct fdstore *, fdstore_free)

/* The listener (userdata: the fdstore): a new LED's fd is stored (at once by its name with the
 * in-tree uleds, queued for the next batch with uledsd's kmod), a removed one leaves the
 * queue, an fd that could not be adopted leaves the store. */
void fdstore_on_led_event(struct led *l, const struct led_event *ev, void *userdata);

/* Whether there is a store to talk to: NOTIFY_SOCKET was set at fdstore_new() (tests). */
void fdstore_set_notify(struct fdstore *fs, bool notify);
/* Take fd for the LED name as if systemd's store had handed it over at start (tests). */
int fdstore_put(struct fdstore *fs, const char *name, int fd);
/* Collect the fds passed by systemd (LISTEN_FDS): kept until taken or released. A uleds group
 * among them becomes ctx's (led-watch.h), and each of its members is kept as an LED's fd. */
int fdstore_collect(struct fdstore *fs, struct led_context *ctx);
/* The stored fd for an LED name (ownership passes to the caller), or -ENOENT. */
int fdstore_take(struct fdstore *fs, const char *name);
/* A collected fd carries the LED name (not taken yet). */
bool fdstore_stored(const struct fdstore *fs, const char *name);
/* The collected fds not taken (kept for broken definitions), for a re-execution: the i-th
 * one's name (NULL when taken) and fd. */
size_t fdstore_n_kept(const struct fdstore *fs);
void fdstore_kept(const struct fdstore *fs, size_t i, const char **ret_name, int *ret_fd);
/* Close every collected fd nobody took, and drop them from systemd's store; except those
 * c names as failed (a definition with errors): those LEDs stay as they are, for a reload
 * that fixes the definition to adopt. c NULL: release all. */
void fdstore_release_unused(struct fdstore *fs, const struct conf *c);

/* FDNAME of the fds stored in batches (uledsd's kmod). Never the escape of an LED name: that
 * writes '%' as %25. */
#define FDSTORE_BATCH_NAME "uleds%batch"
/* FDNAME of the uleds group (uledsd's kmod with groups), which holds every LED of the daemon:
 * the one fd stored then. */
#define FDSTORE_GROUP_NAME "uleds%group"

/* Store l's fd (the listener does for every new LED that is not adopted): at once by its name
 * with the in-tree uleds, queued for the next batch with uledsd's kmod. */
void fdstore_add(struct fdstore *fs, struct led *l);
/* Send the queued fds now (before READY=1); otherwise done in the next loop iteration. */
void fdstore_flush(struct fdstore *fs);
/* Tell systemd to drop l's fd (LED removed or recreated). No-op without systemd. */
void fdstore_remove(struct fdstore *fs, struct led *l);
/* The same for an adopted fd not (or no longer) held by an LED; fd -1 when closed already. */
void fdstore_forget(struct fdstore *fs, const char *name, int fd);
