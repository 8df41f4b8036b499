// SPDX-License-Identifier: MIT
/* The log backend: every brightness change as a log record, rate-limited per LED. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "led.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

#define LOG_DEFAULT_RATE 20 /* records per second and LED */

struct log_backend {
	int level;
	unsigned max_rate; /* 0: unlimited */
	bool rate_set;
	/* runtime */
	sd_event_source *timer;
	uint64_t last_usec; /* when the last record was written */
	unsigned pending;   /* value to log when the timer fires */
	bool have_pending;
	unsigned suppressed; /* changes folded into the pending record */
};

static int log_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	struct log_backend *p = b->priv;

	if (streq(key, "level")) {
		int l = log_level_from_string(value);

		if (l < LOG_ERR) {
			*ret_error = strdup("log.level must be one of debug, info, notice, warning, err.");
			return -EINVAL;
		}
		p->level = l;
		return 0;
	}
	if (streq(key, "max_rate")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || !*value || *end || value[0] == '-' || v > 100000) {
			*ret_error = strdup("log.max_rate must be a number of records per second from 0 (no limit) to 100000.");
			return -EINVAL;
		}
		p->max_rate = (unsigned)v;
		p->rate_set = true;
		return 0;
	}
	if (asprintf(ret_error, "unknown key 'log.%s'; the log backend knows log.level and log.max_rate.",
		     key) < 0)
		*ret_error = NULL;
	return -EINVAL;
}

static void log_emit_change(struct led_backend *b, unsigned v, unsigned suppressed)
{
	struct log_backend *p = b->priv;
	struct led *l = b->led;
	char f_led[96], f_b[32], f_m[32];
	const char *fields[] = { f_led, f_b, f_m, NULL };

	snprintf(f_led, sizeof(f_led), "LED=%s", l->name);
	snprintf(f_b, sizeof(f_b), "BRIGHTNESS=%u", v);
	snprintf(f_m, sizeof(f_m), "MAX_BRIGHTNESS=%u", l->max_brightness);
	if (suppressed)
		log_struct_fields(p->level, fields, "%s: brightness %u/%u (%u more changes not logged)",
				  l->name, v, l->max_brightness, suppressed);
	else
		log_struct_fields(p->level, fields, "%s: brightness %u/%u", l->name, v,
				  l->max_brightness);
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static int on_timer(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	struct led_backend *b = userdata;
	struct log_backend *p = b->priv;

	if (p->have_pending) {
		/* The last value of a burst is always logged. */
		log_emit_change(b, p->pending, p->suppressed > 0 ? p->suppressed - 1 : 0);
		p->have_pending = false;
		p->suppressed = 0;
		p->last_usec = now_usec();
	}
	return 0;
}

static int log_attach(struct led_backend *b, struct manager *m _unused_)
{
	struct log_backend *p = b->priv;

	if (!p->level)
		p->level = LOG_INFO;
	return 0;
}

static int log_set(struct led_backend *b, unsigned brightness)
{
	struct log_backend *p = b->priv;
	uint64_t now = now_usec(), interval;
	int r;

	interval = p->max_rate ? 1000000ULL / p->max_rate : 0;
	if (!p->have_pending && (!interval || !p->last_usec || now - p->last_usec >= interval)) {
		log_emit_change(b, brightness, 0);
		p->last_usec = now;
		return 0;
	}
	/* Too soon: keep only the latest value, write it when the interval is over. */
	p->pending = brightness;
	p->suppressed++;
	if (p->have_pending)
		return 0;
	p->have_pending = true;
	if (!p->timer) {
		r = sd_event_add_time(b->led->manager->event, &p->timer, CLOCK_MONOTONIC,
				      p->last_usec + interval, 0, on_timer, b);
		if (r >= 0)
			(void)sd_event_source_set_description(p->timer, "log-ratelimit");
	} else {
		(void)sd_event_source_set_time(p->timer, p->last_usec + interval);
		r = sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
	}
	if (r < 0) {
		/* No timer to write it later: write it now rather than never. */
		p->have_pending = false;
		p->suppressed = 0;
		log_emit_change(b, brightness, 0);
		p->last_usec = now;
	}
	return r;
}

static void log_detach(struct led_backend *b)
{
	struct log_backend *p = b->priv;

	if (p->have_pending && b->led)
		log_emit_change(b, p->pending, p->suppressed > 0 ? p->suppressed - 1 : 0);
	p->have_pending = false;
	p->timer = sd_event_source_disable_unref(p->timer);
}

static bool log_same(const struct led_backend *a, const struct led_backend *b)
{
	const struct log_backend *x = a->priv, *y = b->priv;
	int lx = x->level ? x->level : LOG_INFO, ly = y->level ? y->level : LOG_INFO;

	return lx == ly && x->max_rate == y->max_rate;
}

static int log_verify(struct led_backend *b, char **ret_error _unused_)
{
	struct log_backend *p = b->priv;

	if (!p->level)
		p->level = LOG_INFO;
	if (!p->max_rate && !p->rate_set)
		p->max_rate = LOG_DEFAULT_RATE;
	return 0;
}

const struct backend_ops backend_log = {
	.name = "log",
	.priv_size = sizeof(struct log_backend),
	.parse = log_parse,
	.verify = log_verify,
	.attach = log_attach,
	.set = log_set,
	.detach = log_detach,
	.same = log_same,
};
