// SPDX-License-Identifier: MIT
/* Saved brightness for "default_brightness = restore" LEDs, like systemd-backlight's. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "led-name.h"
#include "led.h"
#include "log.h"
#include "state.h"
#include "string-util.h"

/* A blinking LED changes many times a second: save at most this often (and at exit). */
#define STATE_SAVE_DELAY_USEC (10 * 1000000ULL)

struct led_state {
	const char *dir;
	sd_event_source *timer;
	bool pending;
	unsigned saved; /* last value written */
	bool have_saved;
};

static int state_path(const struct led *l, const char *dir, char **ret)
{
	_cleanup_free_ char *esc = NULL;

	/* The fd-name escaping is reversible (one file per LED name); names never hold '/' and
	 * are never "." or ".." (led_name_is_valid()). */
	if (led_name_escape(l->name, &esc) < 0)
		return -ENOMEM;
	if (asprintf(ret, "%s/%s", dir, esc) < 0)
		return -ENOMEM;
	return 0;
}

static int state_load(const struct led *l, const char *dir, unsigned *ret)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = state_path(l, dir, &path);
	if (r < 0)
		return r;
	r = read_unsigned_file(path, ret);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return log_warning_errno(r, "%s: ignoring unreadable saved brightness in %s: %m",
					 l->name, path);
	return 0;
}

static int state_save(struct led *l)
{
	struct led_state *s = l->state;
	_cleanup_free_ char *path = NULL, *tmp = NULL;
	FILE *f;
	int r;

	s->pending = false;
	if (s->have_saved && s->saved == l->brightness)
		return 0;
	r = state_path(l, s->dir, &path);
	/* "%tmp": an escaped name has '%' only before two hex digits, so no LED's file is
	 * called like this (with ".tmp", LED "a"'s temporary file would be LED "a.tmp"'s). */
	if (r < 0 || asprintf(&tmp, "%s%%tmp", path) < 0)
		return -ENOMEM;
	(void)mkdir(s->dir, 0755);
	/* Written to a temporary file and renamed: a crash leaves the old or the new value. */
	f = fopen(tmp, "we");
	if (!f)
		return log_warning_errno(errno, "%s: failed to save brightness to %s: %m", l->name,
					 tmp);
	fprintf(f, "%u\n", l->brightness);
	r = fflush(f) == 0 && fsync(fileno(f)) == 0 ? 0 : -errno;
	fclose(f);
	if (r >= 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return log_warning_errno(r, "%s: failed to save brightness to %s: %m", l->name,
					 path);
	}
	s->saved = l->brightness;
	s->have_saved = true;
	return 0;
}

static int on_timer(sd_event_source *src _unused_, uint64_t usec _unused_, void *userdata)
{
	(void)state_save(userdata);
	return 0;
}

static void state_changed(struct led *l, const char *dir)
{
	struct led_state *s = l->state;

	if (!s) {
		s = l->state = calloc(1, sizeof(*s));
		if (!s)
			return;
		s->dir = dir;
		/* The value just restored (or the first one seen) needs no write. */
		s->saved = l->brightness;
		s->have_saved = state_load(l, dir, &s->saved) >= 0 && s->saved == l->brightness;
	}
	if (s->have_saved && s->saved == l->brightness && !s->pending)
		return;
	if (s->pending)
		return;
	s->pending = true;
	if (!s->timer) {
		if (sd_event_add_time_relative(l->ctx->event, &s->timer, CLOCK_MONOTONIC,
					       STATE_SAVE_DELAY_USEC, 0, on_timer, l) < 0) {
			/* No timer (out of memory): save now rather than lose the value. */
			(void)state_save(l);
			return;
		}
		(void)sd_event_source_set_description(s->timer, "state-save");
	} else {
		(void)sd_event_source_set_time_relative(s->timer, STATE_SAVE_DELAY_USEC);
	}
	if (sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT) < 0)
		(void)state_save(l);
}

void led_state_free(struct led *l)
{
	struct led_state *s = l->state;

	if (!s)
		return;
	if (s->pending)
		(void)state_save(l);
	sd_event_source_disable_unref(s->timer);
	free(s);
	l->state = NULL;
}

void led_state_forget(struct led *l, const char *dir)
{
	_cleanup_free_ char *path = NULL;
	struct led_state *s = l->state;

	if (s)
		s->pending = false;
	led_state_free(l);
	if (state_path(l, dir, &path) >= 0 && unlink(path) < 0 && errno != ENOENT)
		log_warning_errno(errno, "%s: failed to remove its saved brightness %s: %m",
				  l->name, path);
}

void state_on_led_event(struct led *l, const struct led_event *ev, void *userdata)
{
	char *const *dir = userdata;

	if (ev->type == LED_EVENT_CHANGED && l->conf->default_mode == DEFAULT_BRIGHTNESS_RESTORE)
		state_changed(l, *dir);
	else if (ev->type == LED_EVENT_REMOVED)
		led_state_free(l); /* a pending save is written now */
}

int state_saved_brightness(struct led *l, unsigned *ret, void *userdata)
{
	char *const *dir = userdata;

	return state_load(l, *dir, ret);
}
