// SPDX-License-Identifier: MIT
/* One sd-event source for the fds of all LEDs: a private epoll set, dispatched in batches.
 *
 * sd-event dispatches one source per loop iteration and calls epoll_wait() before each, so a
 * burst over n LEDs as n sources costs n epoll_wait() calls besides the reads. Here the LED fds
 * sit in an epoll set of their own, whose fd is one sd-event source: a wakeup reads up to
 * LED_WATCH_BATCH ready LEDs with one epoll_wait() (bench/README.md, "what changed"). */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "led-watch.h"
#include "led.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

struct led_watch {
	int epfd;
	sd_event_source *source;
	unsigned n_members;
	struct led *only; /* the one member when n_members == 1, if known */
	/* The batch being dispatched: a member removed meanwhile is cleared here. */
	struct epoll_event batch[LED_WATCH_BATCH];
	int n_batch, pos;
};

static int on_watch(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
		    void *userdata)
{
	struct led_watch *w = userdata;
	int n;

	/* One LED: the set's fd being readable says which one is. Reading it at once keeps the
	 * syscalls of a change as they were with one sd-event source per LED (epoll_wait of the
	 * loop, read, the backend's call). A spurious wakeup reads EAGAIN. The next poll of the
	 * set (the loop's epoll_wait) drops the item from its ready list once the fd is drained. */
	if (w->n_members == 1 && w->only) {
		led_on_ready(w->only);
		return 0;
	}
	n = epoll_wait(w->epfd, w->batch, LED_WATCH_BATCH, 0);
	if (n < 0)
		return errno == EINTR ? 0 : log_error_errno(errno, "epoll_wait on LED fds: %m");
	w->n_batch = n;
	for (w->pos = 0; w->pos < w->n_batch; w->pos++) {
		struct led *l = w->batch[w->pos].data.ptr;

		if (!l)
			continue; /* removed by an earlier LED's dispatch */
		if (w->n_members == 1)
			w->only = l;
		led_on_ready(l);
	}
	w->n_batch = w->pos = 0;
	return 0;
}

static int led_watch_new(struct manager *m)
{
	_cleanup_free_ struct led_watch *w = NULL;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		return -errno;
	/* Level-triggered here: a batch that stops at LED_WATCH_BATCH leaves the rest ready (not
	 * reported yet, so still on the set's ready list), and the loop comes back for them
	 * after serving everything else. */
	r = sd_event_add_io(m->event, &w->source, w->epfd, EPOLLIN, on_watch, w);
	if (r < 0) {
		safe_close(w->epfd);
		return r;
	}
	(void)sd_event_source_set_description(w->source, "leds");
	m->led_watch = TAKE_PTR(w);
	return 0;
}

int led_watch_add(struct manager *m, struct led *l)
{
	struct led_watch *w;
	/* Edge-triggered: a driver whose poll says readable when a read gives EAGAIN (uledsd's
	 * kmod in event mode did, before 2026-12) costs a read per change, not a busy loop. */
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = l};
	int r;

	if (!m->led_watch) {
		r = led_watch_new(m);
		if (r < 0)
			return r;
	}
	w = m->led_watch;
	if (l->watched)
		return 0;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, l->fd, &ev) < 0)
		return -errno;
	l->watched = true;
	w->only = w->n_members++ == 0 ? l : NULL;
	return 0;
}

void led_watch_remove(struct manager *m, struct led *l)
{
	struct led_watch *w = m->led_watch;

	if (!w || !l->watched)
		return;
	if (epoll_ctl(w->epfd, EPOLL_CTL_DEL, l->fd, NULL) < 0)
		log_debug_errno(errno, "%s: EPOLL_CTL_DEL: %m", l->name);
	l->watched = false;
	w->n_members--;
	if (w->only == l || w->n_members != 1)
		w->only = NULL; /* learnt again from the next batch */
	for (int i = w->pos + 1; i < w->n_batch; i++)
		if (w->batch[i].data.ptr == l)
			w->batch[i].data.ptr = NULL;
}

void led_watch_free(struct manager *m)
{
	struct led_watch *w = m->led_watch;

	if (!w)
		return;
	sd_event_source_disable_unref(w->source);
	safe_close(w->epfd);
	free(w);
	m->led_watch = NULL;
}
