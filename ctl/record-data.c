// SPDX-License-Identifier: MIT
/* uledsctl record's model: the daemon's lines parsed into per-LED transitions, and statistics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "record-data.h"

#define REC_MAX_FIELDS 8

static struct rec_led *rec_led_get(struct recording *rec, const char *name, size_t *ret_i)
{
	struct rec_led *n;

	for (size_t i = 0; i < rec->n_leds; i++)
		if (streq(rec->leds[i].name, name)) {
			*ret_i = i;
			return &rec->leds[i];
		}
	n = realloc(rec->leds, (rec->n_leds + 1) * sizeof(*n));
	if (!n)
		return NULL;
	rec->leds = n;
	n = &rec->leds[rec->n_leds];
	*n = (struct rec_led){.name = strdup(name), .initial.t_ns = rec->start_ns};
	if (!n->name)
		return NULL;
	if (strlen(name) > rec->name_width)
		rec->name_width = strlen(name);
	*ret_i = rec->n_leds++;
	return n;
}

static const struct rec_change *rec_led_now(const struct rec_led *l)
{
	return l->n_changes ? &l->changes[l->n_changes - 1] : &l->initial;
}

/* 1: a transition, 0: the same state again. */
static int rec_led_push(struct rec_led *l, const struct rec_change *c)
{
	const struct rec_change *now = rec_led_now(l);

	l->records++;
	if (now->value == c->value && now->on_ms == c->on_ms && now->off_ms == c->off_ms)
		return 0;
	if (l->n_changes == l->n_alloc) {
		size_t n = l->n_alloc ? 2 * l->n_alloc : 64;
		struct rec_change *p = realloc(l->changes, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->changes = p;
		l->n_alloc = n;
	}
	l->changes[l->n_changes++] = *c;
	return 1;
}

static int parse_uint(const char *s, unsigned long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EBADMSG : 0;
}

/* Fields after kind as numbers; n must match the kind. */
static int parse_args(char **f, size_t n_f, size_t n, unsigned long long *v)
{
	if (n_f != 3 + n)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++)
		if (parse_uint(f[3 + i], &v[i]) < 0)
			return -EBADMSG;
	return 0;
}

static int feed_led(struct recording *rec, char **f, size_t n_f, uint64_t t, size_t *ret_led)
{
	const char *kind = f[2];
	unsigned long long v[3];
	struct rec_change c = {.t_ns = t};
	struct rec_led *l = rec_led_get(rec, f[1], ret_led);

	if (!l)
		return -ENOMEM;
	if (streq(kind, "mode")) {
		if (n_f != 5 || parse_uint(f[4], &v[0]) < 0)
			return -EBADMSG;
		free(l->mode);
		l->mode = strdup(f[3]);
		l->max_brightness = (unsigned)v[0];
		return l->mode ? 0 : -ENOMEM;
	}
	if (streq(kind, "state")) {
		if (parse_args(f, n_f, 3, v) < 0)
			return -EBADMSG;
		l->initial = (struct rec_change){t, (unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
		return 0;
	}
	if (streq(kind, "lost"))
		return parse_args(f, n_f, 1, v) < 0 ? -EBADMSG : (l->lost += v[0], 0);
	if (streq(kind, "brightness")) {
		const struct rec_change *now = rec_led_now(l);

		if (parse_args(f, n_f, 1, v) < 0)
			return -EBADMSG;
		/* During an offloaded blink a non-zero value is its new level (uledsd-dbus(7)). */
		c.value = (unsigned)v[0];
		if (c.value && (now->on_ms || now->off_ms)) {
			c.on_ms = now->on_ms;
			c.off_ms = now->off_ms;
		}
		return rec_led_push(l, &c);
	}
	if (streq(kind, "blink")) {
		if (parse_args(f, n_f, 3, v) < 0)
			return -EBADMSG;
		c = (struct rec_change){t, (unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
		return rec_led_push(l, &c);
	}
	return 0; /* a kind added later: skipped, as documented */
}

int recording_feed(struct recording *rec, const char *line, size_t *ret_led)
{
	_cleanup_free_ char *copy = NULL;
	char *f[REC_MAX_FIELDS], *save = NULL, *p;
	unsigned long long t, v;
	size_t n_f = 0;

	if (!rec->header_seen) {
		if (strncmp(line, "uledsd-record 1", 15) != 0)
			return -EBADMSG;
		rec->header_seen = true;
		return 0;
	}
	copy = strdup(line);
	if (!copy)
		return -ENOMEM;
	/* strsep, not strtok: the name of a "dropped" line is empty. */
	for (save = copy; (p = strsep(&save, "\t")) && n_f < REC_MAX_FIELDS;)
		f[n_f++] = p;
	if (n_f < 3 || parse_uint(f[0], &t) < 0)
		return -EBADMSG;
	if (!rec->start_ns)
		rec->start_ns = t;
	if (t > rec->end_ns)
		rec->end_ns = t;
	if (!*f[1]) {
		if (streq(f[2], "dropped") && n_f == 4 && parse_uint(f[3], &v) >= 0)
			rec->dropped += v;
		return 0;
	}
	return feed_led(rec, f, n_f, t, ret_led);
}

void recording_clear(struct recording *rec)
{
	for (size_t i = 0; i < rec->n_leds; i++) {
		free(rec->leds[i].name);
		free(rec->leds[i].mode);
		free(rec->leds[i].changes);
	}
	free(rec->leds);
	*rec = (struct recording){0};
}
