// SPDX-License-Identifier: MIT
/* The log backend: every brightness change as a log record, rate-limited per LED. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "log.h"
#include "ratelimit.h"
#include "string-util.h"

/* Without log.max_rate a self-blinking trigger (heartbeat: ~6 changes a second) would bury
 * everything else in the journal: one record, then at most one summary every 10 s. Without a
 * trigger the changes are someone's writes, each worth a record: at most 10 a second, so a
 * runaway script does not flood either. */
#define LOG_SUMMARY_USEC (10 * 1000000ULL)
#define LOG_WRITES_USEC (1000000ULL / 10)
#define LOG_MAX_RATE 100000

struct log_backend {
	int level;
	unsigned max_rate; /* 0: unlimited */
	bool rate_set;
	/* runtime */
	struct ratelimit rl;
	struct led_backend *self;
	unsigned value; /* the latest brightness: what a deferred record shows */
	unsigned blink_on_ms, blink_off_ms; /* the blink logged last (0/0: none) */
	int trigger_fd;			    /* the LED's sysfs trigger attribute, -1: not open */
};

static int log_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	struct log_backend *p = b->priv;
	unsigned v;

	if (streq(key, "level")) {
		int l = log_level_from_string(value);

		if (l < LOG_ERR)
			return error_setf(
			    ret_error, -EINVAL,
			    "log.level must be one of debug, info, notice, warning, err.");
		p->level = l;
		return 0;
	}
	if (streq(key, "max_rate")) {
		if (safe_atou(value, &v) < 0 || v > LOG_MAX_RATE)
			return error_setf(ret_error, -EINVAL,
					  "log.max_rate must be a number of records per second "
					  "from 0 (no limit) to %d.",
					  LOG_MAX_RATE);
		p->max_rate = v;
		p->rate_set = true;
		return 0;
	}
	return error_setf(ret_error, -EINVAL,
			  "unknown key 'log.%s'; the log backend knows log.level and log.max_rate.",
			  key);
}

static void log_emit_change(struct led_backend *b, unsigned v, unsigned suppressed)
{
	struct log_backend *p = b->priv;
	const char *name = b->ctx.led_name;
	unsigned max = b->ctx.max_brightness;
	char f_led[96], f_b[32], f_m[32];
	const char *fields[] = {f_led, f_b, f_m, NULL};

	snprintf(f_led, sizeof(f_led), "LED=%s", name);
	snprintf(f_b, sizeof(f_b), "BRIGHTNESS=%u", v);
	snprintf(f_m, sizeof(f_m), "MAX_BRIGHTNESS=%u", max);
	if (suppressed)
		log_struct_fields(p->level, fields,
				  "%s: brightness %u/%u (%u more changes not logged)", name, v, max,
				  suppressed);
	else
		log_struct_fields(p->level, fields, "%s: brightness %u/%u", name, v, max);
}

/* The end of a burst: the last value is always logged. */
static void log_fire(void *userdata, unsigned folded)
{
	struct log_backend *p = userdata;

	log_emit_change(p->self, p->value, folded);
}

static int log_verify(struct led_backend *b, char **ret_error _unused_)
{
	struct log_backend *p = b->priv;

	if (!p->level)
		p->level = LOG_INFO;
	return 0;
}

static int log_attach(struct led_backend *b)
{
	struct log_backend *p = b->priv;

	(void)log_verify(b, NULL);
	p->self = b;
	p->trigger_fd = -1;
	ratelimit_init(&p->rl, p->max_rate, "log-ratelimit", log_fire, p);
	if (!p->rate_set)
		p->rl.interval_usec = LOG_SUMMARY_USEC;
	return 0;
}

/* Does a trigger drive the LED? The kernel brackets the selected one: "[none] timer ...".
 * Read at every change (one pread of a kept fd): a stale answer would hold a person's write
 * back for 10 s right after the trigger went. Unknown counts as triggered: quiet is safe. */
static bool log_led_triggered(struct led_backend *b)
{
	struct log_backend *p = b->priv;
	char path[PATH_MAX], buf[64];
	ssize_t n;

	if (p->trigger_fd < 0 && b->ctx.sysfs) {
		snprintf(path, sizeof(path), "%s/trigger", b->ctx.sysfs);
		p->trigger_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	n = p->trigger_fd < 0 ? -1 : pread(p->trigger_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true;
	buf[n] = 0;
	return strncmp(buf, "[none]", 6) != 0; /* "none" comes first in the list */
}

/* The default pace follows who changes the LED: a trigger (quiet) or writes (each one). */
static void log_pick_pace(struct led_backend *b)
{
	struct log_backend *p = b->priv;
	uint64_t interval;

	if (p->rate_set)
		return;
	interval = log_led_triggered(b) ? LOG_SUMMARY_USEC : LOG_WRITES_USEC;
	/* The trigger went: its summary now, rather than a write waiting for it. */
	if (interval < p->rl.interval_usec && p->rl.pending)
		ratelimit_flush(&p->rl);
	p->rl.interval_usec = interval;
}

static int log_set(struct led_backend *b, unsigned brightness)
{
	struct log_backend *p = b->priv;
	int r;

	log_pick_pace(b);
	p->value = brightness;
	p->blink_on_ms = p->blink_off_ms = 0;
	r = ratelimit_test(&p->rl, b->ctx.event, ratelimit_now());
	if (r != 0)
		log_emit_change(b, brightness, 0); /* now, or (no timer) now rather than never */
	return r < 0 ? r : 0;
}

/* A blink is one record, not one per toggle; again only when its delays or level change. */
static int log_blink(struct led_backend *b, unsigned brightness, unsigned on_ms, unsigned off_ms)
{
	struct log_backend *p = b->priv;
	const char *name = b->ctx.led_name;
	char f_led[96], f_b[32], f_on[32], f_off[32];
	const char *fields[] = {f_led, f_b, f_on, f_off, NULL};

	if (p->value == brightness && p->blink_on_ms == on_ms && p->blink_off_ms == off_ms)
		return 0;
	p->value = brightness;
	p->blink_on_ms = on_ms;
	p->blink_off_ms = off_ms;
	snprintf(f_led, sizeof(f_led), "LED=%s", name);
	snprintf(f_b, sizeof(f_b), "BRIGHTNESS=%u", brightness);
	snprintf(f_on, sizeof(f_on), "BLINK_ON_MS=%u", on_ms);
	snprintf(f_off, sizeof(f_off), "BLINK_OFF_MS=%u", off_ms);
	log_struct_fields(p->level, fields, "%s: blinking %u ms on, %u ms off at brightness %u/%u",
			  name, on_ms, off_ms, brightness, b->ctx.max_brightness);
	return 0;
}

static void log_detach(struct led_backend *b)
{
	struct log_backend *p = b->priv;

	ratelimit_flush(&p->rl);
	p->trigger_fd = safe_close(p->trigger_fd);
}

static bool log_same(const struct led_backend *a, const struct led_backend *b)
{
	const struct log_backend *x = a->priv, *y = b->priv;
	int lx = x->level ? x->level : LOG_INFO, ly = y->level ? y->level : LOG_INFO;

	return lx == ly && x->max_rate == y->max_rate && x->rate_set == y->rate_set;
}

const struct backend_ops backend_log = {
    .name = "log",
    .priv_size = sizeof(struct log_backend),
    .parse = log_parse,
    .verify = log_verify,
    .attach = log_attach,
    .set = log_set,
    .blink = log_blink,
    .detach = log_detach,
    .same = log_same,
};
