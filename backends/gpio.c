// SPDX-License-Identifier: MIT
/* The gpio backend: drives one GPIO line (libgpiod v2) from an LED, follows chip hotplug. */
#include <ctype.h>
#include <dirent.h>
#include <gpiod.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>

#include "backend.h"
#include "gpio.h"
#include "led.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

static struct gpio_watcher *watchers;

DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_chip *, gpiod_chip_close)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_chip_info *, gpiod_chip_info_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_info *, gpiod_line_info_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_info_event *, gpiod_info_event_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_settings *, gpiod_line_settings_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_config *, gpiod_line_config_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_request_config *, gpiod_request_config_free)

/* ---- runtime state ---- */

static const char *led_name(const struct gpio_backend *p)
{
	return p->self->led ? p->self->led->name : "?";
}

static int wanted_value(const struct gpio_backend *p, unsigned brightness)
{
	return brightness >= (p->threshold ? p->threshold : 1);
}

/* Record the state; log it only when it changed, so a retry that fails alike stays quiet.
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
		(void)led_backend_set_state(b, false, "out of memory");
		return;
	}
	if (b->state && b->ok == ok && streq(b->state, msg))
		return;
	log_full(level, "%s: gpio: %s%s%s.", led_name(p), msg, hint ? ". " : "", hint ? hint : "");
	(void)led_backend_set_state(b, ok, "%s", msg);
}

static void busy_stop(struct gpio_backend *p)
{
	p->busy_io = sd_event_source_disable_unref(p->busy_io);
	if (p->busy_chip)
		gpiod_chip_close(p->busy_chip);
	p->busy_chip = NULL;
}

static void request_drop(struct gpio_backend *p)
{
	if (p->request)
		gpiod_line_request_release(p->request);
	p->request = NULL;
	p->value = -1;
}

static void gpio_try_attach(struct gpio_backend *p);

/* The chip of our request (or of the line we wait for) is gone: wait for it to return. */
static void gpio_chip_gone(struct gpio_backend *p)
{
	bool had = p->request;

	busy_stop(p);
	request_drop(p);
	p->lost = p->lost || had;
	gpio_report(p, false, had ? LOG_WARNING : LOG_INFO,
		    had ? "The line is driven again when the chip comes back" : NULL,
		    "waiting for %s (removed)", p->chip_name ? p->chip_name : "its chip");
}

/* ---- resolving chip and line ---- */

static int chip_names_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the GPIO chip nodes in dir, in numeric order. */
static int chips_list(const char *dir, char ***ret, size_t *ret_n)
{
	_cleanup_strv_free_ char **l = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX], **nl;

		if (!gpio_is_chip_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!gpiod_is_gpiochip_device(path))
			continue;
		nl = realloc(l, (n + 2) * sizeof(char *));
		if (!nl || !(nl[n] = strdup(de->d_name))) {
			if (nl)
				l = nl;
			closedir(d);
			return -ENOMEM;
		}
		nl[++n] = NULL;
		l = nl;
	}
	closedir(d);
	qsort(l, n, sizeof(char *), chip_names_cmp);
	*ret = TAKE_PTR(l);
	*ret_n = n;
	return 0;
}

static struct gpiod_chip *chip_open_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return gpiod_chip_open(path);
}

static void append_name(char *buf, size_t size, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", name);
}

/* Opens the one chip that may carry the line. Returns 0 with *ret_chip, or -errno with
 * *ret_why saying what is missing (for the state; retried on the next chip event). */
static void chips_cache_clear(struct gpio_watcher *w)
{
	for (size_t i = 0; i < w->n_chips; i++) {
		struct gpio_chip_entry *e = &w->chips[i];

		for (unsigned j = 0; j < e->n_lines; j++)
			free(e->lines[j]);
		free(e->lines);
		free(e->label);
		free(e->name);
		if (e->chip)
			gpiod_chip_close(e->chip);
	}
	free(w->chips);
	w->chips = NULL;
	w->n_chips = 0;
	w->chips_valid = false;
}

static void chip_entry_fill(struct gpio_chip_entry *e, struct gpiod_chip *c)
{
	_cleanup_(gpiod_chip_info_freep) struct gpiod_chip_info *info = gpiod_chip_get_info(c);

	if (!info)
		return;
	e->chip = c; /* only a chip whose info was read serves from the cache */
	e->label = strdup(gpiod_chip_info_get_label(info));
	e->n_lines = (unsigned)gpiod_chip_info_get_num_lines(info);
	e->lines = calloc(e->n_lines ? e->n_lines : 1, sizeof(char *));
	if (!e->lines) {
		e->n_lines = 0;
		return;
	}
	for (unsigned j = 0; j < e->n_lines; j++) {
		_cleanup_(gpiod_line_info_freep) struct gpiod_line_info *li =
			gpiod_chip_get_line_info(c, j);
		const char *n = li ? gpiod_line_info_get_name(li) : NULL;

		e->lines[j] = n ? strdup(n) : NULL;
	}
}

/* Scan every chip once: names, labels, line names. */
static int chips_cache_load(struct gpio_watcher *w)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;
	int r;

	if (w->chips_valid)
		return 0;
	chips_cache_clear(w);
	r = chips_list(w->manager->dev_dir, &names, &n);
	if (r < 0)
		return r;
	w->chips = calloc(n ? n : 1, sizeof(*w->chips));
	if (!w->chips)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct gpiod_chip *c = chip_open_in(w->manager->dev_dir, names[i]);

		if (!c)
			continue;
		w->chips[w->n_chips].name = TAKE_PTR(names[i]);
		chip_entry_fill(&w->chips[w->n_chips], c);
		if (!w->chips[w->n_chips++].chip)
			gpiod_chip_close(c);
	}
	w->chips_valid = true;
	return 0;
}

static const struct gpio_chip_entry *chips_cache_get(struct gpio_watcher *w, const char *name)
{
	for (size_t i = 0; i < w->n_chips; i++)
		if (streq(w->chips[i].name, name))
			return &w->chips[i];
	return NULL;
}

static int chip_entry_line(const struct gpio_chip_entry *e, const char *line)
{
	for (unsigned j = 0; e && j < e->n_lines; j++)
		if (e->lines[j] && streq(e->lines[j], line))
			return (int)j;
	return -ENOENT;
}

/* The chip of p. From the scan (*ret_entry set, the chip borrowed from it: valid until the
 * next chip event) or opened for the caller (*ret_entry NULL, the caller closes it). */
static int chip_find(struct gpio_backend *p, const char *dev_dir, struct gpiod_chip **ret_chip,
		     const struct gpio_chip_entry **ret_entry, char **ret_why)
{
	const struct gpio_chip_entry *found = NULL;
	char matches[256] = "";
	size_t n_found = 0;
	int r;

	*ret_entry = NULL;
	if (p->chip && (strchr(p->chip, '/') || gpio_is_chip_name(p->chip))) {
		char path[PATH_MAX];

		/* gpiochipN: the scan has it open (one scan serves every LED at start-up). */
		if (!strchr(p->chip, '/') && chips_cache_load(p->watcher) >= 0) {
			found = chips_cache_get(p->watcher, p->chip);
			if (found && found->chip) {
				*ret_chip = found->chip;
				*ret_entry = found;
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
		return asprintf(ret_why, "cannot open %s: %s", path, strerror(-r)) < 0 ? -ENOMEM
										     : r;
	}

	/* A label, or a line name on any chip: look at every chip (scanned once for all LEDs). */
	r = chips_cache_load(p->watcher);
	if (r < 0)
		return asprintf(ret_why, "cannot list GPIO chips in %s: %s", dev_dir,
				strerror(-r)) < 0 ? -ENOMEM : r;
	for (size_t i = 0; i < p->watcher->n_chips; i++) {
		const struct gpio_chip_entry *e = &p->watcher->chips[i];
		bool match = p->chip ? e->label && streq(e->label, p->chip)
				     : chip_entry_line(e, p->line) >= 0;

		if (!match)
			continue;
		append_name(matches, sizeof(matches), e->name);
		if (n_found++ == 0)
			found = e;
	}
	if (n_found == 1 && !found->chip)
		n_found = 0;
	if (n_found == 1) {
		*ret_chip = found->chip;
		*ret_entry = found;
		return 0;
	}
	if (p->chip && n_found == 0)
		r = asprintf(ret_why, "waiting for a chip labelled '%s'", p->chip);
	else if (n_found == 0)
		r = asprintf(ret_why, "waiting for a chip with a line named '%s'", p->line);
	else if (p->chip)
		r = asprintf(ret_why,
			     "several chips are labelled '%s' (%s): set gpio.chip to one of their names",
			     p->chip, matches);
	else
		r = asprintf(ret_why,
			     "line '%s' is on several chips (%s): set gpio.chip to the one to use",
			     p->line, matches);
	return r < 0 ? -ENOMEM : n_found == 0 ? -ENOENT : -ENOTUNIQ;
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

static struct gpiod_line_request *line_request(struct gpio_backend *p, struct gpiod_chip *chip,
					       int value)
{
	_cleanup_(gpiod_line_settings_freep) struct gpiod_line_settings *s = NULL;
	_cleanup_(gpiod_line_config_freep) struct gpiod_line_config *lc = NULL;
	_cleanup_(gpiod_request_config_freep) struct gpiod_request_config *rc = NULL;
	char consumer[GPIO_CONSUMER_MAX + 1];

	s = gpiod_line_settings_new();
	lc = gpiod_line_config_new();
	rc = gpiod_request_config_new();
	if (!s || !lc || !rc) {
		errno = ENOMEM;
		return NULL;
	}
	if (gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
	    gpiod_line_settings_set_output_value(s, value ? GPIOD_LINE_VALUE_ACTIVE
							  : GPIOD_LINE_VALUE_INACTIVE) < 0 ||
	    gpiod_line_settings_set_drive(s, p->drive ? p->drive : GPIOD_LINE_DRIVE_PUSH_PULL) < 0 ||
	    gpiod_line_settings_set_bias(s, p->bias ? p->bias : GPIOD_LINE_BIAS_AS_IS) < 0)
		return NULL;
	gpiod_line_settings_set_active_low(s, p->active_low);
	if (gpiod_line_config_add_line_settings(lc, &p->line_offset, 1, s) < 0)
		return NULL;
	consumer_name(led_name(p), consumer);
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
		log_debug_errno(errno, "%s: reading GPIO line info events failed: %m", led_name(p));
		busy_stop(p);
		return 0;
	}
	if (gpiod_info_event_get_event_type(ev) == GPIOD_INFO_EVENT_LINE_RELEASED) {
		busy_stop(p);
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
	r = sd_event_add_io(p->watcher->manager->event, &p->busy_io,
			    gpiod_chip_get_fd(p->busy_chip), EPOLLIN, on_line_info, p);
	if (r < 0) {
		log_debug_errno(r, "%s: cannot watch the busy GPIO line: %m", led_name(p));
		busy_stop(p);
	} else
		(void)sd_event_source_set_description(p->busy_io, "gpio-busy-line");
	gpio_report(p, false, LOG_ERR,
		    "Stop that user or pick another line; uledsd takes the line when it is released",
		    "%s is used by '%s'", line_desc, consumer && *consumer ? consumer : "(unnamed)");
	return false;
}

/* Find chip and line and request it with the LED's current value. Whatever fails becomes the
 * state; chip events and line releases call this again. */
static void gpio_try_attach(struct gpio_backend *p)
{
	struct manager *m = p->watcher->manager;
	_cleanup_(gpiod_chip_closep) struct gpiod_chip *owned = NULL;
	_cleanup_(gpiod_chip_info_freep) struct gpiod_chip_info *info = NULL;
	const struct gpio_chip_entry *e;
	struct gpiod_chip *chip;
	_cleanup_free_ char *why = NULL;
	const char *label;
	char line_desc[160];
	size_t n_lines;
	int value, r;

	if (p->request)
		return;
	busy_stop(p);
	r = chip_find(p, m->dev_dir, &chip, &e, &why);
	if (r < 0) {
		/* After a removal (logged already) the chip's absence is no news. */
		gpio_report(p, false, r != -ENOENT ? LOG_ERR : p->lost ? LOG_DEBUG : LOG_WARNING,
			    r == -ENOENT ? "uledsd takes the line when the chip appears" : NULL, "%s",
			    why ? why : strerror(-r));
		return;
	}
	if (!e) {
		owned = chip;
		info = gpiod_chip_get_info(chip);
		if (!info) {
			gpio_report(p, false, LOG_ERR, NULL, "cannot read chip info of %s: %s",
				    gpiod_chip_get_path(chip), strerror(errno));
			return;
		}
	}
	free(p->chip_name);
	p->chip_name = strdup(e ? e->name : gpiod_chip_info_get_name(info));
	if (!p->chip_name) {
		gpio_report(p, false, LOG_ERR, NULL, "out of memory");
		return;
	}
	label = e ? (e->label ? e->label : "") : gpiod_chip_info_get_label(info);
	n_lines = e ? e->n_lines : gpiod_chip_info_get_num_lines(info);
	if (p->by_offset) {
		if (p->offset >= n_lines) {
			gpio_report(p, false, LOG_ERR, "Fix gpio.line (gpioinfo lists the lines)",
				    "line offset %u is past the %zu lines of %s (0-%zu)", p->offset,
				    n_lines, p->chip_name, n_lines - 1);
			return;
		}
		p->line_offset = p->offset;
		snprintf(line_desc, sizeof(line_desc), "line %u on %s", p->line_offset, p->chip_name);
	} else {
		if (!e && chips_cache_load(p->watcher) >= 0)
			e = chips_cache_get(p->watcher, p->chip_name);
		r = e ? chip_entry_line(e, p->line) : gpiod_chip_get_line_offset_from_name(chip, p->line);
		if (r < 0) {
			gpio_report(p, false, LOG_ERR, "Fix gpio.line or gpio.chip (gpioinfo lists the lines)",
				    "%s ('%s') has no line named '%s'", p->chip_name, label, p->line);
			return;
		}
		p->line_offset = (unsigned)r;
		snprintf(line_desc, sizeof(line_desc), "line '%s' (%u) on %s", p->line,
			 p->line_offset, p->chip_name);
	}

	value = wanted_value(p, p->self->led->brightness);
	for (int attempt = 0;; attempt++) {
		p->request = line_request(p, chip, value);
		if (p->request)
			break;
		r = -errno;
		if (r == -EBUSY) {
			/* Watching for the release needs a chip handle of its own. */
			if (!owned)
				owned = gpiod_chip_open(gpiod_chip_get_path(chip));
			if (!owned) {
				gpio_report(p, false, LOG_ERR, NULL, "%s is busy; cannot open %s: %s",
					    line_desc, gpiod_chip_get_path(chip), strerror(errno));
				return;
			}
			if (line_busy(p, &owned, line_desc) && attempt == 0)
				continue; /* released in the meantime */
			return;
		}
		gpio_report(p, false, LOG_ERR,
			    r == -EINVAL || r == -EOPNOTSUPP
				    ? "Check gpio.drive and gpio.bias: the chip may not support them"
				    : NULL,
			    "failed to request %s: %s", line_desc, strerror(-r));
		return;
	}
	p->value = value;
	if (p->lost)
		log_info("%s: gpio: %s is back, line driven %s again.", led_name(p), p->chip_name,
			 value ? "on" : "off");
	p->lost = false;
	gpio_report(p, true, LOG_INFO, NULL, "attached to %s", line_desc);
}

/* ---- chip hotplug ---- */

static int on_inotify(sd_event_source *s _unused_, int fd, uint32_t revents _unused_,
		      void *userdata)
{
	struct gpio_watcher *w = userdata;
	union {
		struct inotify_event ev;
		char raw[4096];
	} buf;
	/* Chips created or changed in this batch; a removal later in the batch cancels its
	 * entry (devtmpfs reports IN_ATTRIB right before IN_DELETE of a node). */
	char pending[8][NAME_MAX + 1];
	size_t n_pending = 0;
	bool rescan = false;

	for (;;) {
		ssize_t n = read(fd, &buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *ptr = buf.raw; ptr < buf.raw + n;) {
			struct inotify_event *ev = (struct inotify_event *)ptr;

			ptr += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				chips_cache_clear(w);
				rescan = true;
				continue;
			}
			if (!ev->len || !gpio_is_chip_name(ev->name))
				continue;
			chips_cache_clear(w);
			log_debug("GPIO chip node %s/%s: %s.", w->manager->dev_dir, ev->name,
				  ev->mask & (IN_DELETE | IN_MOVED_FROM) ? "removed"
				  : ev->mask & IN_ATTRIB		 ? "attributes changed"
									 : "created");
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				for (struct gpio_backend *p = w->backends; p; p = p->next)
					if ((p->request || p->busy_chip) && p->chip_name &&
					    streq(p->chip_name, ev->name))
						gpio_chip_gone(p);
				for (size_t i = 0; i < n_pending; i++)
					if (streq(pending[i], ev->name))
						pending[i][0] = 0;
			} else if (n_pending < ELEMENTSOF(pending))
				snprintf(pending[n_pending++], sizeof(pending[0]), "%s", ev->name);
			else
				rescan = true;
		}
	}
	/* Retry only for nodes still there: IN_ATTRIB also announces a removal. */
	for (size_t i = 0; i < n_pending && !rescan; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", w->manager->dev_dir, pending[i]);
		rescan = pending[i][0] && access(path, F_OK) == 0;
	}
	if (rescan)
		for (struct gpio_backend *p = w->backends; p; p = p->next)
			if (!p->request && !p->busy_chip)
				gpio_try_attach(p);
	return 0;
}

static struct gpio_watcher *watcher_free(struct gpio_watcher *w)
{
	if (!w)
		return NULL;
	sd_event_source_disable_unref(w->io);
	safe_close(w->fd);
	chips_cache_clear(w);
	free(w);
	return NULL;
}

static int watcher_add(struct gpio_backend *p, struct manager *m)
{
	struct gpio_watcher *w;
	int r;

	for (w = watchers; w && w->manager != m; w = w->next)
		;
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return -ENOMEM;
		w->manager = m;
		w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (w->fd < 0) {
			r = -errno;
			free(w);
			return r;
		}
		/* Chip nodes appear with the chip (devtmpfs) and may get their final permissions a
		 * moment later (udev): IN_ATTRIB retries then. */
		if (inotify_add_watch(w->fd, m->dev_dir,
				      IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM |
					      IN_ONLYDIR) < 0) {
			r = log_debug_errno(errno, "Failed to watch %s for GPIO chips: %m",
					    m->dev_dir);
			watcher_free(w);
			return r;
		}
		r = sd_event_add_io(m->event, &w->io, w->fd, EPOLLIN, on_inotify, w);
		if (r < 0) {
			watcher_free(w);
			return r;
		}
		(void)sd_event_source_set_description(w->io, "gpio-chip-watch");
		w->next = watchers;
		watchers = w;
	}
	p->watcher = w;
	p->next = w->backends;
	w->backends = p;
	return 0;
}

static void watcher_remove(struct gpio_backend *p)
{
	struct gpio_watcher *w = p->watcher, **wp;

	if (!w)
		return;
	for (struct gpio_backend **bp = &w->backends; *bp; bp = &(*bp)->next)
		if (*bp == p) {
			*bp = p->next;
			break;
		}
	p->watcher = NULL;
	p->next = NULL;
	if (w->backends)
		return;
	for (wp = &watchers; *wp; wp = &(*wp)->next)
		if (*wp == w) {
			*wp = w->next;
			break;
		}
	watcher_free(w);
}

/* ---- ops ---- */

static int gpio_attach(struct led_backend *b, struct manager *m)
{
	struct gpio_backend *p = b->priv;
	int r;

	p->self = b;
	p->value = -1;
	r = watcher_add(p, m);
	if (r < 0)
		return r;
	if (p->threshold > b->led->max_brightness)
		log_warning("%s: gpio.threshold = %u is above max_brightness %u: the line never turns on.",
			    b->led->name, p->threshold, b->led->max_brightness);
	gpio_try_attach(p);
	return 0;
}

static int gpio_set(struct led_backend *b, unsigned brightness)
{
	struct gpio_backend *p = b->priv;
	int value = wanted_value(p, brightness);

	/* Dimming changes brightness often and the line rarely: only changes reach the kernel. */
	if (!p->request || value == p->value)
		return 0;
	if (gpiod_line_request_set_value(p->request, p->line_offset,
					 value ? GPIOD_LINE_VALUE_ACTIVE
					       : GPIOD_LINE_VALUE_INACTIVE) < 0) {
		int r = -errno;

		if (r == -ENODEV)
			gpio_chip_gone(p);
		return r;
	}
	p->value = value;
	return 0;
}

static void gpio_detach(struct led_backend *b)
{
	struct gpio_backend *p = b->priv;

	watcher_remove(p);
	busy_stop(p);
	if (p->request && p->on_exit == GPIO_ON_EXIT_OFF && p->value != 0) {
		if (gpiod_line_request_set_value(p->request, p->line_offset,
						 GPIOD_LINE_VALUE_INACTIVE) < 0)
			log_debug_errno(errno, "%s: gpio: failed to turn line %u on %s off: %m",
					led_name(p), p->line_offset, p->chip_name);
		else
			log_debug("%s: gpio: line %u on %s driven off before release (on_exit = off).",
				  led_name(p), p->line_offset, p->chip_name);
	}
	if (p->request)
		log_debug("%s: gpio: releasing line %u on %s.", led_name(p), p->line_offset,
			  p->chip_name);
	request_drop(p);
	free(p->chip_name);
	p->chip_name = NULL;
	p->lost = false;
}

const struct backend_ops backend_gpio = {
	.name = "gpio",
	.priv_size = sizeof(struct gpio_backend),
	.parse = gpio_parse,
	.verify = gpio_verify,
	.claim = gpio_claim,
	.attach = gpio_attach,
	.set = gpio_set,
	.detach = gpio_detach,
	.same = gpio_same,
	.free_priv = gpio_free_priv,
};
