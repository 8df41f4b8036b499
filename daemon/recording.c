// SPDX-License-Identifier: MIT
/* Recordings (Manager.Record): every transition of some LEDs as lines on a pipe per caller. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "led.h"
#include "log.h"
#include "manager.h"
#include "recording.h"
#include "string-util.h"
#include "uleds-ext.h"

struct recorder {
	struct manager *manager;
	struct recorder *next;
	int fd; /* the pipe's write end, O_NONBLOCK: the daemon never waits for a reader */
	uid_t uid;
	char **names; /* sorted, each once; NULL: every LED */
	size_t n_names;
	unsigned long long dropped; /* lines not written since the last that was */
	sd_event_source *io;	    /* EPOLLERR: the reader closed its end */
};

static struct recorder *recorder_free(struct recorder *r)
{
	if (!r)
		return NULL;
	sd_event_source_disable_unref(r->io);
	safe_close(r->fd);
	strv_free(r->names);
	free(r);
	return NULL;
}

static void recorder_unlink(struct recorder *r)
{
	struct recorder **p = &r->manager->recorders;

	while (*p && *p != r)
		p = &(*p)->next;
	if (*p)
		*p = r->next;
	log_debug("Recording on fd %d of uid %u ended.", r->fd, (unsigned)r->uid);
	recorder_free(r);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One line, whole or not at all: lines are shorter than PIPE_BUF, so a non-blocking write
 * of one is atomic. A full pipe costs the line (counted, and reported by the next line that
 * fits); a closed one ends the recording. Returns false when r was freed. */
static bool recorder_write(struct recorder *r, const char *line, size_t n)
{
	char note[64];
	int k;

	if (r->dropped > 0) {
		k = snprintf(note, sizeof(note), "%llu\t\tdropped\t%llu\n",
			     (unsigned long long)now_ns(), r->dropped);
		if (write(r->fd, note, (size_t)k) == k)
			r->dropped = 0;
		else if (errno != EAGAIN)
			goto closed;
	}
	if (r->dropped == 0 && write(r->fd, line, n) == (ssize_t)n)
		return true;
	if (r->dropped > 0 || errno == EAGAIN) {
		r->dropped++;
		return true;
	}
closed:
	recorder_unlink(r);
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A lookup per event and recorder: a sorted set, not a scan of the list. */
static bool recorder_wants(const struct recorder *r, const char *name)
{
	return !r->names || bsearch(&name, r->names, r->n_names, sizeof(char *), cmp_str);
}

static int format_event(char *buf, size_t size, const struct led *l, const struct uleds_event *ev)
{
	unsigned long long t = ev->timestamp_ns;

	if (ev->type == ULEDS_EVENT_BLINK)
		return snprintf(buf, size, "%llu\t%s\tblink\t%d\t%u\t%u\n", t, l->name,
				ev->brightness, ev->delay_on_ms, ev->delay_off_ms);
	return snprintf(buf, size, "%llu\t%s\tbrightness\t%d\n", t, l->name, ev->brightness);
}

static void recording_write_event(struct manager *m, const struct led *l,
				  const struct uleds_event *ev)
{
	struct recorder *r, *next;
	char line[256], lost[128];
	int n, nl = 0;

	if (!m->recorders)
		return;
	n = format_event(line, sizeof(line), l, ev);
	if (ev->lost)
		nl = snprintf(lost, sizeof(lost), "%llu\t%s\tlost\t%u\n",
			      (unsigned long long)ev->timestamp_ns, l->name, ev->lost);
	for (r = m->recorders; r; r = next) {
		next = r->next;
		if (!recorder_wants(r, l->name))
			continue;
		if (nl && !recorder_write(r, lost, (size_t)nl))
			continue;
		(void)recorder_write(r, line, (size_t)n);
	}
}

/* The header, then each LED's mode and state now, so a reader knows where it starts. */
static int recorder_greet(struct recorder *r)
{
	struct manager *m = r->manager;
	unsigned long long t = now_ns();
	char line[256];
	int n;

	if (write(r->fd, "uledsd-record 1\n", 16) != 16)
		return -errno;
	for (size_t i = 0; i < m->n_leds; i++) {
		const struct led *l = m->leds[i];

		if (!recorder_wants(r, l->name))
			continue;
		n = snprintf(line, sizeof(line), "%llu\t%s\tmode\t%s\t%u\n", t, l->name,
			     led_mode_to_string(l->mode), l->max_brightness);
		if (!recorder_write(r, line, (size_t)n))
			return -EPIPE;
		n = snprintf(line, sizeof(line), "%llu\t%s\tstate\t%u\t%u\t%u\n", t, l->name,
			     l->brightness, l->blink_on_ms, l->blink_off_ms);
		if (!recorder_write(r, line, (size_t)n))
			return -EPIPE;
	}
	return 0;
}

static int on_reader_gone(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			  void *userdata)
{
	recorder_unlink(userdata);
	return 0;
}

/* The quotas of [uledsd] (root is held to none), then every name an LED. */
static int recording_check(struct manager *m, uid_t uid, char **names, size_t n,
			   const char **ret_name)
{
	_cleanup_free_ bool *found = NULL;
	unsigned mine = 0, all = 0;

	for (const struct recorder *r = m->recorders; r; r = r->next)
		if (r->uid != 0) {
			all++;
			mine += r->uid == uid;
		}
	if (uid != 0 && mine >= m->policy.record_max_per_user) {
		*ret_name = "record_max_per_user";
		return -EUSERS;
	}
	if (uid != 0 && all >= m->policy.record_max) {
		*ret_name = "record_max";
		return -EUSERS;
	}
	if (n == 0)
		return 0;
	/* One pass over the LEDs, a lookup in the sorted names each: no names x LEDs. */
	found = calloc(n, sizeof(bool));
	if (!found)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_leds; i++) {
		const char *name = m->leds[i]->name;
		char **f = bsearch(&name, names, n, sizeof(char *), cmp_str);

		if (f)
			found[f - names] = true;
	}
	for (size_t i = 0; i < n; i++)
		if (!found[i]) {
			*ret_name = names[i];
			return -ENOENT;
		}
	return 0;
}

int recording_names_sort(char **names, const char **ret_duplicate)
{
	size_t n = strv_length(names);

	qsort(names, n, sizeof(char *), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (streq(names[i - 1], names[i])) {
			*ret_duplicate = names[i];
			return -ENOTUNIQ;
		}
	return 0;
}

int recording_start(struct manager *m, uid_t uid, char ***names, int *ret_fd, const char **ret_name)
{
	size_t n = names ? strv_length(*names) : 0;
	struct recorder *rec;
	int p[2], r;

	r = recording_check(m, uid, n ? *names : NULL, n, ret_name);
	if (r < 0)
		return r;
	/* A reader gone between two writes must not kill the daemon with SIGPIPE. */
	(void)signal(SIGPIPE, SIG_IGN);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	rec = calloc(1, sizeof(*rec));
	if (!rec) {
		safe_close(p[0]);
		safe_close(p[1]);
		return -ENOMEM;
	}
	*rec = (struct recorder){.manager = m,
				 .fd = p[1],
				 .uid = uid,
				 .names = n ? TAKE_PTR(*names) : NULL,
				 .n_names = n,
				 .next = m->recorders};
	/* Linux's default 64 KiB, ~1500 lines: slack for a reader that is late for a moment. */
	(void)fcntl(p[1], F_SETFL, O_NONBLOCK);
	m->recorders = rec;
	r = sd_event_add_io(m->event, &rec->io, p[1], 0, on_reader_gone, rec);
	if (r >= 0)
		(void)sd_event_source_set_description(rec->io, "record");
	if (r >= 0)
		r = recorder_greet(rec);
	if (r < 0) {
		if (r != -EPIPE)
			recorder_unlink(rec);
		safe_close(p[0]);
		return r;
	}
	log_debug("Recording %zu LEDs for uid %u on fd %d.", n ? n : m->n_leds, (unsigned)uid,
		  p[1]);
	*ret_fd = p[0];
	return 0;
}

void recording_stop_all(struct manager *m)
{
	while (m->recorders)
		recorder_unlink(m->recorders);
}

void recording_on_led_event(struct led *l, const struct led_event *ev, void *userdata)
{
	if (ev->type == LED_EVENT_RECORD)
		recording_write_event(userdata, l, ev->record);
}
