// SPDX-License-Identifier: MIT
/* The gpio backend's line: finds chip and line (by name, label or offset), requests it, waits
 * for a busy line or a missing chip, and reports each status once. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpio-chips.h"
#include "gpio-conf.h"
#include "gpio-line.h"
#include "log.h"
#include "string-util.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_info *, gpiod_line_info_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_info_event *, gpiod_info_event_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_settings *, gpiod_line_settings_free)

/* ---- runtime state ---- */

const char *gpio_led_name(const struct gpio_backend *p)
{
	return p->self && p->self->ctx.led_name ? p->self->ctx.led_name : "?";
}

int gpio_wanted_value(const struct gpio_backend *p, unsigned brightness)
{
	return brightness >= (p->threshold ? p->threshold : 1);
}

/* gpio.lines: the backend works when every line does; its status lists each line's. */
static void channels_report(struct gpio_backend *p)
{
	char buf[1024] = "";
	size_t len = 0;
	bool ok = true;

	for (unsigned i = 0; i < p->n_lines; i++) {
		const struct gpio_backend *c = &p->channels[i];

		ok = ok && c->channel_ok;
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
					"%s%s", i ? "; " : "",
					c->channel_status ? c->channel_status : "starting");
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	(void)led_backend_set_status(p->self, ok, "%s", buf);
}

/* Record the status; log it only when it changed, so a retry that fails alike stays quiet.
 * hint (may be NULL) is advice for the log only. */
static void gpio_report(struct gpio_backend *p, bool ok, int level, const char *hint,
			const char *format, ...) _printf_(5, 6);
static void gpio_report(struct gpio_backend *p, bool ok, int level, const char *hint,
			const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	struct led_backend *b = p->self;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg) {
		(void)led_backend_set_status(b, false, "out of memory");
		return;
	}
	if (p->parent) {
		if (p->channel_status && p->channel_ok == ok && streq(p->channel_status, msg))
			return;
		log_full(level, "%s: gpio: %s%s%s.", gpio_led_name(p), msg, hint ? ". " : "",
			 hint ? hint : "");
		free(p->channel_status);
		p->channel_status = TAKE_PTR(msg);
		p->channel_ok = ok;
		channels_report(p->parent);
		return;
	}
	led_backend_report(b, ok, level, hint, msg);
}

void gpio_busy_stop(struct gpio_backend *p)
{
	p->busy_io = sd_event_source_disable_unref(p->busy_io);
	if (p->busy_chip)
		gpiod_chip_close(p->busy_chip);
	p->busy_chip = NULL;
}

void gpio_request_drop(struct gpio_backend *p)
{
	if (p->request)
		gpiod_line_request_release(p->request);
	p->request = NULL;
	p->value = -1;
}

void gpio_chip_gone(struct gpio_backend *p)
{
	bool had = p->request || p->group;

	gpio_busy_stop(p);
	gpio_request_drop(p);
	p->solo = false; /* its return may share again */
	p->lost = p->lost || had;
	gpio_report(p, false, had ? LOG_WARNING : LOG_INFO,
		    had ? "The line is driven again when the chip comes back" : NULL,
		    "waiting for %s (removed)", p->chip_name ? p->chip_name : "its chip");
}

/* ---- resolving chip and line ---- */

void gpio_line_describe(const struct gpio_backend *p, char *buf, size_t size)
{
	if (p->by_offset)
		snprintf(buf, size, "line %u on %s", p->line_offset, p->chip_name);
	else
		snprintf(buf, size, "line '%s' (%u) on %s", p->line, p->line_offset, p->chip_name);
}

static void append_name(char *buf, size_t size, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", name);
}

/* gpio.chip is a path or gpiochipN: the scan has it open (one scan serves every LED at
 * start-up), else it is opened for the caller. */
static int chip_find_named(struct gpio_backend *p, struct gpiod_chip **ret_chip,
			   const struct gpio_chip_entry **ret_entry, char **ret_why)
{
	const char *dev_dir = p->watcher->dev_dir;
	char path[PATH_MAX];
	int r;

	if (!strchr(p->chip, '/') && gpio_chips_load(p->watcher) >= 0) {
		const struct gpio_chip_entry *e = gpio_chips_get(p->watcher, p->chip);

		if (e && e->chip) {
			*ret_chip = e->chip;
			*ret_entry = e;
			return 0;
		}
	}
	if (strchr(p->chip, '/'))
		snprintf(path, sizeof(path), "%s", p->chip);
	else
		snprintf(path, sizeof(path), "%s/%s", dev_dir, p->chip);
	*ret_chip = gpiod_chip_open(path);
	if (*ret_chip)
		return 0;
	r = -errno;
	if (r == -ENOENT || r == -ENODEV || r == -ENXIO)
		return asprintf(ret_why, "waiting for %s", p->chip) < 0 ? -ENOMEM : r;
	return asprintf(ret_why, "cannot open %s: %s", path, strerror(-r)) < 0 ? -ENOMEM : r;
}

/* Why no single chip was found: none yet (-ENOENT, retried on chip events) or several. */
static int chip_find_failed(struct gpio_backend *p, size_t n_found, const char *matches,
			    char **ret_why)
{
	int r;

	if (p->chip && n_found == 0)
		r = asprintf(ret_why, "waiting for a chip labelled '%s'", p->chip);
	else if (n_found == 0)
		r = asprintf(ret_why, "waiting for a chip with a line named '%s'", p->line);
	else if (p->chip)
		r = asprintf(
		    ret_why,
		    "several chips are labelled '%s' (%s): set gpio.chip to one of their names",
		    p->chip, matches);
	else
		r = asprintf(ret_why,
			     "line '%s' is on several chips (%s): set gpio.chip to the one to use",
			     p->line, matches);
	return r < 0 ? -ENOMEM : n_found == 0 ? -ENOENT : -ENOTUNIQ;
}

/* The chip of p. From the scan (*ret_entry set, the chip borrowed from it: valid until the
 * next chip event) or opened for the caller (*ret_entry NULL, the caller closes it).
 * Returns -errno with *ret_why saying what is missing (for the status). */
static int chip_find(struct gpio_backend *p, struct gpiod_chip **ret_chip,
		     const struct gpio_chip_entry **ret_entry, char **ret_why)
{
	struct gpio_watcher *w = p->watcher;
	const struct gpio_chip_entry *found = NULL;
	char matches[256] = "";
	size_t n_found = 0;
	int r;

	*ret_entry = NULL;
	if (p->chip && (strchr(p->chip, '/') || gpio_is_chip_name(p->chip)))
		return chip_find_named(p, ret_chip, ret_entry, ret_why);
	/* A label, or a line name on any chip: look at every chip (scanned once for all LEDs). */
	r = gpio_chips_load(w);
	if (r < 0)
		return asprintf(ret_why, "cannot list GPIO chips in %s: %s", w->dev_dir,
				strerror(-r)) < 0
			   ? -ENOMEM
			   : r;
	for (size_t i = 0; i < w->n_chips; i++) {
		const struct gpio_chip_entry *e = &w->chips[i];
		bool match = p->chip ? e->label && streq(e->label, p->chip)
				     : gpio_chip_entry_line(e, p->line) >= 0;

		if (!match)
			continue;
		append_name(matches, sizeof(matches), e->name);
		if (n_found++ == 0)
			found = e;
	}
	if (n_found == 1 && found->chip) {
		*ret_chip = found->chip;
		*ret_entry = found;
		return 0;
	}
	return chip_find_failed(p, n_found == 1 ? 0 : n_found, matches, ret_why);
}

/* ---- requesting the line ---- */

static void consumer_name(const char *led, char *buf)
{
	size_t n = strlen(led);

	if (n > GPIO_CONSUMER_MAX) {
		n = GPIO_CONSUMER_MAX;
		while (n > 0 && ((unsigned char)led[n] & 0xc0) == 0x80) /* keep UTF-8 whole */
			n--;
	}
	memcpy(buf, led, n);
	buf[n] = 0;
}

int gpio_line_config_add(const struct gpio_backend *p, struct gpiod_line_config *lc, int value)
{
	_cleanup_(gpiod_line_settings_freep) struct gpiod_line_settings *s = gpiod_line_settings_new();

	if (!s)
		return -ENOMEM;
	if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
	    gpiod_line_settings_set_output_value(s, value ? GPIOD_LINE_VALUE_ACTIVE
							  : GPIOD_LINE_VALUE_INACTIVE) < 0 ||
	    gpiod_line_settings_set_drive(s, p->drive ? p->drive : GPIOD_LINE_DRIVE_PUSH_PULL) <
		0 ||
	    gpiod_line_settings_set_bias(s, p->bias ? p->bias : GPIOD_LINE_BIAS_AS_IS) < 0)
		return -errno;
	gpiod_line_settings_set_active_low(s, p->active_low);
	return gpiod_line_config_add_line_settings(lc, &p->line_offset, 1, s) < 0 ? -errno : 0;
}

static struct gpiod_line_request *line_request(struct gpio_backend *p, struct gpiod_chip *chip,
					       int value)
{
	_cleanup_(gpiod_line_config_freep) struct gpiod_line_config *lc = NULL;
	_cleanup_(gpiod_request_config_freep) struct gpiod_request_config *rc = NULL;
	char consumer[GPIO_CONSUMER_MAX + 1];
	int r;

	lc = gpiod_line_config_new();
	rc = gpiod_request_config_new();
	if (!lc || !rc) {
		errno = ENOMEM;
		return NULL;
	}
	r = gpio_line_config_add(p, lc, value);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	consumer_name(gpio_led_name(p), consumer);
	gpiod_request_config_set_consumer(rc, consumer);
	return gpiod_chip_request_lines(chip, rc, lc);
}

static int on_line_info(sd_event_source *s _unused_, int fd _unused_, uint32_t revents _unused_,
			void *userdata)
{
	struct gpio_backend *p = userdata;
	_cleanup_(gpiod_info_event_freep) struct gpiod_info_event *ev = NULL;

	ev = gpiod_chip_read_info_event(p->busy_chip);
	if (!ev) {
		/* ENODEV: the chip went away; the inotify watch takes it from here. */
		log_debug_errno(errno, "%s: reading GPIO line info events failed: %m", gpio_led_name(p));
		gpio_busy_stop(p);
		return 0;
	}
	if (gpiod_info_event_get_event_type(ev) == GPIOD_INFO_EVENT_LINE_RELEASED) {
		gpio_busy_stop(p);
		gpio_try_attach(p);
	}
	return 0;
}

/* The line is held by someone else: say by whom, and take it as soon as it is released.
 * Returns true when it was released in the meantime (try again now). */
static bool line_busy(struct gpio_backend *p, struct gpiod_chip **chip, const char *line_desc)
{
	_cleanup_(gpiod_line_info_freep) struct gpiod_line_info *info = NULL;
	const char *consumer;
	int r;

	info = gpiod_chip_watch_line_info(*chip, p->line_offset);
	if (!info) {
		/* No release events then: the next chip event retries. */
		gpio_report(p, false, LOG_ERR, "Stop that user or pick another line",
			    "%s is used by another program or driver", line_desc);
		return false;
	}
	if (!gpiod_line_info_is_used(info))
		return true;
	consumer = gpiod_line_info_get_consumer(info);
	p->busy_chip = TAKE_PTR(*chip);
	r = sd_event_add_io(p->watcher->event, &p->busy_io, gpiod_chip_get_fd(p->busy_chip),
			    EPOLLIN, on_line_info, p);
	if (r < 0) {
		log_debug_errno(r, "%s: cannot watch the busy GPIO line: %m", gpio_led_name(p));
		gpio_busy_stop(p);
	} else
		(void)sd_event_source_set_description(p->busy_io, "gpio-busy-line");
	gpio_report(
	    p, false, LOG_ERR,
	    "Stop that user or pick another line; uledsd takes the line when it is released",
	    "%s is used by '%s'", line_desc, consumer && *consumer ? consumer : "(unnamed)");
	return false;
}

/* The chip found, with what the rest of the attach needs to know about it. */
struct chip_view {
	struct gpiod_chip *chip;	 /* borrowed from the scan, or owned */
	struct gpiod_chip *owned;	 /* closed by the caller */
	const struct gpio_chip_entry *e; /* from the scan, or NULL */
	struct gpiod_chip_info *info;	 /* when not from the scan */
	const char *label;
	size_t n_lines;
};

static void chip_view_done(struct chip_view *v)
{
	if (v->owned)
		gpiod_chip_close(v->owned);
	if (v->info)
		gpiod_chip_info_free(v->info);
}

/* The log's advice when gpio.chip (or the line name) matches no chip: the chips there are,
 * as gpiodetect shows them, next to what was written. */
static char *missing_chip_hint(struct gpio_backend *p)
{
	_cleanup_free_ char *chips = NULL;
	char *s;

	if (gpio_chips_load(p->watcher) < 0 || gpio_chips_describe(p->watcher, &chips) < 0)
		return NULL;
	if (asprintf(&s, "Chips now: %s; %s. uledsd takes the line when %s appears", chips,
		     p->chip ? "gpio.chip is a chip name, path or label as gpiodetect shows it"
			     : "gpioinfo lists their lines",
		     p->chip ? "the chip" : "such a chip") < 0)
		return NULL;
	return s;
}

/* Find the chip and record its name in p->chip_name. false: the status says why not. */
static bool attach_chip(struct gpio_backend *p, struct chip_view *v)
{
	_cleanup_free_ char *why = NULL, *hint = NULL;
	int r;

	r = chip_find(p, &v->chip, &v->e, &why);
	if (r < 0) {
		/* After a removal (logged already) the chip's absence is no news. */
		if (r == -ENOENT && !p->lost)
			hint = missing_chip_hint(p);
		gpio_report(p, false,
			    r != -ENOENT ? LOG_ERR
			    : p->lost	 ? LOG_DEBUG
					 : LOG_WARNING,
			    hint	   ? hint
			    : r == -ENOENT ? "uledsd takes the line when the chip appears"
					   : NULL,
			    "%s", why ? why : strerror(-r));
		return false;
	}
	if (!v->e) {
		v->owned = v->chip;
		v->info = gpiod_chip_get_info(v->chip);
		if (!v->info) {
			gpio_report(p, false, LOG_ERR, NULL, "cannot read chip info of %s: %s",
				    gpiod_chip_get_path(v->chip), strerror(errno));
			return false;
		}
	}
	str_unshare(p->chip_name);
	p->chip_name = str_shared(v->e ? v->e->name : gpiod_chip_info_get_name(v->info));
	if (!p->chip_name) {
		gpio_report(p, false, LOG_ERR, NULL, "out of memory");
		return false;
	}
	v->label = v->e ? (v->e->label ? v->e->label : "") : gpiod_chip_info_get_label(v->info);
	v->n_lines = v->e ? v->e->n_lines : gpiod_chip_info_get_num_lines(v->info);
	return true;
}

/* Resolve gpio.line to p->line_offset and describe it in desc. false: the status says why not. */
static bool attach_line(struct gpio_backend *p, struct chip_view *v, char *desc, size_t size)
{
	const struct gpio_chip_entry *e = v->e;
	int r;

	if (p->by_offset) {
		if (p->offset >= v->n_lines) {
			gpio_report(p, false, LOG_ERR, "Fix gpio.line (gpioinfo lists the lines)",
				    "line offset %u is past the %zu lines of %s (0-%zu)", p->offset,
				    v->n_lines, p->chip_name, v->n_lines - 1);
			return false;
		}
		p->line_offset = p->offset;
		gpio_line_describe(p, desc, size);
		return true;
	}
	if (!e && gpio_chips_load(p->watcher) >= 0)
		e = gpio_chips_get(p->watcher, p->chip_name);
	r = e ? gpio_chip_entry_line(e, p->line)
	      : gpiod_chip_get_line_offset_from_name(v->chip, p->line);
	if (r < 0) {
		gpio_report(p, false, LOG_ERR,
			    "Fix gpio.line or gpio.chip (gpioinfo lists the lines)",
			    "%s ('%s') has no line named '%s'", p->chip_name, v->label, p->line);
		return false;
	}
	p->line_offset = (unsigned)r;
	gpio_line_describe(p, desc, size);
	return true;
}

/* Request the line with value; a busy line is watched for its release. */
static bool attach_request(struct gpio_backend *p, struct chip_view *v, const char *desc, int value)
{
	int r;

	for (int attempt = 0;; attempt++) {
		p->request = line_request(p, v->chip, value);
		if (p->request)
			return true;
		r = -errno;
		if (r != -EBUSY)
			break;
		/* Watching for the release needs a chip handle of its own. */
		if (!v->owned)
			v->owned = gpiod_chip_open(gpiod_chip_get_path(v->chip));
		if (!v->owned) {
			gpio_report(p, false, LOG_ERR, NULL, "%s is busy; cannot open %s: %s", desc,
				    gpiod_chip_get_path(v->chip), strerror(errno));
			return false;
		}
		if (!line_busy(p, &v->owned, desc) || attempt > 0)
			return false;
		/* released in the meantime: once more */
	}
	/* The chip went between finding it and the request (seen in the soak test: a reload
	 * while the chip is unplugged): not a failure, it is away; its return attaches. */
	if (r == -ENODEV) {
		gpio_report(p, false, LOG_WARNING, NULL, "waiting for %s (removed)", p->chip_name);
		return false;
	}
	gpio_report(p, false, LOG_ERR,
		    r == -EINVAL || r == -EOPNOTSUPP
			? "Check gpio.drive and gpio.bias: the chip may not support them"
			: NULL,
		    "failed to request %s: %s", desc, strerror(-r));
	return false;
}

void gpio_line_attached_text(const struct gpio_backend *p, char *buf, size_t size)
{
	char desc[160];

	if (!p->chip_name) { /* detached since: nothing to describe */
		snprintf(buf, size, "detached");
		return;
	}
	gpio_line_describe(p, desc, sizeof(desc));
	if (p->group)
		snprintf(buf, size, "attached to %s (a request shared by %u lines)", desc,
			 p->group->n_members);
	else
		snprintf(buf, size, "attached to %s", desc);
}

void gpio_line_attached(struct gpio_backend *p, int value)
{
	char text[256];

	p->value = value;
	if (p->lost)
		log_info("%s: gpio: %s is back, line driven %s again.", gpio_led_name(p),
			 p->chip_name, value ? "on" : "off");
	p->lost = false;
	if (!p->parent) {
		/* The text is made when asked for (ops->describe): none kept per LED. */
		led_backend_describe(p->self, LOG_INFO);
		return;
	}
	gpio_line_attached_text(p, text, sizeof(text));
	gpio_report(p, true, LOG_INFO, NULL, "%s", text);
}

/* Find chip and line (chip_name, line_offset) without requesting it: 1 on a chip of the scan
 * (a group may request it), 0 on another (a path), -1 when not (the status says why). */
int gpio_line_resolve(struct gpio_backend *p)
{
	struct chip_view v = {.chip = NULL};
	char desc[160];
	int r = attach_chip(p, &v) && attach_line(p, &v, desc, sizeof(desc)) ? v.e != NULL : -1;

	chip_view_done(&v);
	return r;
}

/* Find chip and line and request it with the LED's current value. Whatever fails becomes the
 * status; chip events and line releases call this again. */
void gpio_try_attach(struct gpio_backend *p)
{
	struct chip_view v = {.chip = NULL};
	char desc[160];
	int value;

	if (p->request || p->group || p->joining)
		return;
	gpio_busy_stop(p);
	value = gpio_wanted_value(p, p->brightness);
	if (attach_chip(p, &v) && attach_line(p, &v, desc, sizeof(desc)) &&
	    attach_request(p, &v, desc, value))
		gpio_line_attached(p, value);
	chip_view_done(&v);
}
