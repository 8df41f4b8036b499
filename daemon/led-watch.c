// SPDX-License-Identifier: MIT
/* One sd-event source for the fds of all LEDs: a private epoll set, dispatched in batches.
 *
 * sd-event dispatches one source per loop iteration and calls epoll_wait() before each, so a
 * burst over n LEDs as n sources costs n epoll_wait() calls besides the reads. Here the LED fds
 * sit in an epoll set of their own, whose fd is one sd-event source: a wakeup reads up to
 * LED_WATCH_BATCH ready LEDs with one epoll_wait() (bench/README.md, "what changed").
 * While there is only one LED its fd is an sd-event source of its own: the set would cost that
 * LED a nested poll in the kernel on every change, and there is no batch to gain. */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "led-group.h"
#include "led-watch.h"
#include "log.h"
#include "macro.h"

struct led_watch {
	sd_event *event;
	int epfd;
	sd_event_source *source;
	unsigned n_members;
	/* The first member, until a second one comes: watched directly, not in the set. */
	struct led_watch_member *direct;
	sd_event_source *direct_source;
	/* The batch being dispatched: a member removed meanwhile is cleared here. */
	struct epoll_event batch[LED_WATCH_BATCH];
	int n_batch, pos;
	/* uledsd's kmod: the members' records come through one group fd (led-group.c) */
	struct led_group *group;
	bool group_tried;
};

static int on_watch(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
		    void *userdata)
{
	struct led_watch *w = userdata;
	int n;

	n = epoll_wait(w->epfd, w->batch, LED_WATCH_BATCH, 0);
	if (n < 0)
		return errno == EINTR ? 0 : log_error_errno(errno, "epoll_wait on LED fds: %m");
	w->n_batch = n;
	for (w->pos = 0; w->pos < w->n_batch; w->pos++) {
		struct led_watch_member *mb = w->batch[w->pos].data.ptr;

		if (mb) /* else removed by an earlier member's dispatch */
			mb->ready(mb);
	}
	w->n_batch = w->pos = 0;
	return 0;
}

static int on_direct(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
		     void *userdata)
{
	struct led_watch_member *mb = userdata;

	mb->ready(mb);
	return 0;
}

static int led_watch_new(sd_event *event, struct led_watch **ret)
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
	w->event = event;
	r = sd_event_add_io(event, &w->source, w->epfd, EPOLLIN, on_watch, w);
	if (r < 0) {
		safe_close(w->epfd);
		return r;
	}
	(void)sd_event_source_set_description(w->source, "leds");
	*ret = TAKE_PTR(w);
	return 0;
}

/* Edge-triggered, in the set and directly: a driver whose poll says readable when a read gives
 * EAGAIN (uledsd's kmod in event mode did, before 2026-12) costs a read per change, not a busy
 * loop. An fd that is readable when added is reported at once (the kernel polls it). */
static int set_add(struct led_watch *w, struct led_watch_member *mb)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = mb};

	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, mb->fd, &ev) < 0 ? -errno : 0;
}

int led_watch_open_group(sd_event *event, struct led_watch **watch, const char *uleds_path)
{
	int r;

	if (!*watch) {
		r = led_watch_new(event, watch);
		if (r < 0)
			return r;
	}
	if ((*watch)->group || (*watch)->group_tried)
		return !!(*watch)->group;
	(*watch)->group_tried = true;
	r = led_group_open(event, uleds_path, &(*watch)->group);
	/* ENOTTY: no groups in this driver; no driver at all: the registration says so */
	if (r == -ENOTTY || r == -ENOENT || r == -ENODEV || r == -ENXIO || r == -EACCES)
		return 0;
	if (r < 0)
		return log_warning_errno(r, "Cannot make a uleds group (%m); each LED is read "
					    "from its own fd.");
	log_debug("uleds group: the LEDs' records come through one fd.");
	return 1;
}

int led_watch_adopt_group(sd_event *event, struct led_watch **watch, int fd,
			  int (*member)(int fd, void *userdata), void *userdata)
{
	int r;

	if (!*watch) {
		r = led_watch_new(event, watch);
		if (r < 0) {
			safe_close(fd);
			return r;
		}
	}
	if ((*watch)->group) {
		safe_close(fd); /* one group a daemon: a second would be a stale copy */
		return -EEXIST;
	}
	(*watch)->group_tried = true;
	return led_group_adopt(event, fd, member, userdata, &(*watch)->group);
}

int led_watch_group_fd(const struct led_watch *w)
{
	return w ? led_group_fd(w->group) : -1;
}

int led_watch_add(sd_event *event, struct led_watch **watch, struct led_watch_member *mb)
{
	struct led_watch *w;
	int r;

	if (!*watch) {
		r = led_watch_new(event, watch);
		if (r < 0)
			return r;
	}
	w = *watch;
	if (mb->watched)
		return 0;
	if (w->group && mb->record) {
		r = led_group_add(w->group, mb);
		if (r >= 0) {
			mb->watched = true;
			w->n_members++;
			return 0;
		}
		log_warning_errno(r, "Cannot add fd %d to the uleds group (%m); it is read alone.",
				  mb->fd);
	}
	if (w->n_members == 0) {
		r = sd_event_add_io(w->event, &w->direct_source, mb->fd, EPOLLIN | EPOLLET,
				    on_direct, mb);
		if (r < 0)
			return r;
		(void)sd_event_source_set_description(w->direct_source, "led");
		w->direct = mb;
	} else {
		/* A second LED: the first moves into the set, a change pending on it included. */
		if (w->direct) {
			r = set_add(w, w->direct);
			if (r < 0)
				return r;
			w->direct_source = sd_event_source_disable_unref(w->direct_source);
			w->direct = NULL;
		}
		r = set_add(w, mb);
		if (r < 0)
			return r;
	}
	mb->watched = true;
	w->n_members++;
	return 0;
}

void led_watch_remove(struct led_watch *w, struct led_watch_member *mb)
{
	if (!w || !mb->watched)
		return;
	mb->watched = false;
	w->n_members--;
	if (mb->group_id) {
		led_group_remove(w->group, mb);
		return;
	}
	if (w->direct == mb) {
		/* sd-event deletes it from its epoll set (before the caller's close). */
		w->direct_source = sd_event_source_disable_unref(w->direct_source);
		w->direct = NULL;
		return;
	}
	if (epoll_ctl(w->epfd, EPOLL_CTL_DEL, mb->fd, NULL) < 0)
		log_debug_errno(errno, "EPOLL_CTL_DEL of fd %d: %m", mb->fd);
	for (int i = w->pos + 1; i < w->n_batch; i++)
		if (w->batch[i].data.ptr == mb)
			w->batch[i].data.ptr = NULL;
}

struct led_watch *led_watch_free(struct led_watch *w)
{
	if (!w)
		return NULL;
	sd_event_source_disable_unref(w->direct_source);
	sd_event_source_disable_unref(w->source);
	led_group_free(w->group);
	safe_close(w->epfd);
	free(w);
	return NULL;
}
