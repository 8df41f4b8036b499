// SPDX-License-Identifier: MIT
/* The gpio backend's chip side: one scan of every chip for all LEDs, and chip hotplug. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

#include "gpio-chips.h"
#include "gpio-conf.h"
#include "log.h"
#include "string-util.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_chip_info *, gpiod_chip_info_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpiod_line_info *, gpiod_line_info_free)

static int chip_names_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the GPIO chip nodes in dir, in numeric order. */
static int chips_list(const char *dir, char ***ret, size_t *ret_n)
{
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	size_t n = 0;
	int r;

	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (!gpio_is_chip_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!gpiod_is_gpiochip_device(path))
			continue;
		r = strv_push(&l, &n, strdup(de->d_name));
		if (r < 0)
			return r;
	}
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

void gpio_chips_clear(struct gpio_watcher *w)
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

int gpio_chips_load(struct gpio_watcher *w)
{
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0;
	int r;

	if (w->chips_valid)
		return 0;
	gpio_chips_clear(w);
	r = chips_list(w->dev_dir, &names, &n);
	if (r < 0)
		return r;
	w->chips = calloc(n ? n : 1, sizeof(*w->chips));
	if (!w->chips)
		return -ENOMEM;
	/* names keeps its strings: a chip that fails to open leaves a hole in no array. */
	for (size_t i = 0; i < n; i++) {
		struct gpio_chip_entry *e = &w->chips[w->n_chips];
		struct gpiod_chip *c = chip_open_in(w->dev_dir, names[i]);

		if (!c)
			continue;
		e->name = strdup(names[i]);
		if (!e->name) {
			gpiod_chip_close(c);
			return -ENOMEM;
		}
		chip_entry_fill(e, c);
		if (!e->chip)
			gpiod_chip_close(c);
		w->n_chips++;
	}
	w->chips_valid = true;
	return 0;
}

const struct gpio_chip_entry *gpio_chips_get(struct gpio_watcher *w, const char *name)
{
	for (size_t i = 0; i < w->n_chips; i++)
		if (streq(w->chips[i].name, name))
			return &w->chips[i];
	return NULL;
}

int gpio_chip_entry_line(const struct gpio_chip_entry *e, const char *line)
{
	for (unsigned j = 0; e && j < e->n_lines; j++)
		if (e->lines[j] && streq(e->lines[j], line))
			return (int)j;
	return -ENOENT;
}

/* "gpiochip0 [pinctrl-bcm2711], gpiochip1 [gpio-sim.0:node0]": the scanned chips as gpiodetect
 * names them, so a gpio.chip that matches nothing can be compared with what there is. */
int gpio_chips_describe(const struct gpio_watcher *w, char **ret)
{
	size_t size = 0;
	FILE *f;

	f = open_memstream(ret, &size);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_chips; i++) {
		const struct gpio_chip_entry *e = &w->chips[i];

		fprintf(f, "%s%s", i ? ", " : "", e->name);
		if (e->label)
			fprintf(f, " [%s]", e->label);
	}
	if (w->n_chips == 0)
		fputs("none", f);
	if (fclose(f) != 0 || !*ret)
		return -ENOMEM;
	return 0;
}

/* gpio.chip as written stands for e: its name (or /dev path) or its label. */
static bool chip_entry_is(const struct gpio_chip_entry *e, const char *chip)
{
	return streq(e->name, gpio_chip_key(chip)) || (e->label && streq(e->label, chip));
}

/* --check-config's look at the chips there are now: a gpio.chip (or a line name on any chip)
 * that matches none is a warning, not an error, as the chip may be plugged in later. */
int gpio_check(const struct led_backend *b, const char *dev_dir, char **ret_warning)
{
	const struct gpio_backend *p = b->priv;
	/* gpio.lines without gpio.chip: the chip is the one with the first line */
	const char *line = p->line ? p->line : p->n_lines ? p->lines[0] : "";
	struct gpio_watcher w = {.fd = -1, .dev_dir = (char *)dev_dir};
	_cleanup_free_ char *chips = NULL;
	bool found = false;
	int r;

	if (p->chip && strchr(gpio_chip_key(p->chip), '/'))
		return access(p->chip, F_OK) < 0
			   ? error_setf(ret_warning, -errno, "gpio.chip = %s: %s", p->chip,
					strerror(errno))
			   : 0;
	r = gpio_chips_load(&w);
	for (size_t i = 0; r >= 0 && i < w.n_chips && !found; i++)
		found = p->chip ? chip_entry_is(&w.chips[i], p->chip)
				: gpio_chip_entry_line(&w.chips[i], line) >= 0;
	if (r >= 0 && !found)
		r = gpio_chips_describe(&w, &chips);
	gpio_chips_clear(&w);
	if (r < 0)
		return error_setf(ret_warning, r, "cannot list the GPIO chips in %s: %s", dev_dir,
				  strerror(-r));
	if (found)
		return 0;
	if (p->chip)
		return error_setf(ret_warning, -ENOENT,
				  "gpio.chip = %s matches no GPIO chip; chips now: %s. Use a "
				  "chip name, path or label as gpiodetect shows it (uledsd waits "
				  "for the chip: it may be plugged in later)",
				  p->chip, chips);
	return error_setf(ret_warning, -ENOENT,
			  "no GPIO chip has a line named '%s' (gpioinfo lists the lines); chips "
			  "now: %s. uledsd waits for such a chip: it may be plugged in later",
			  line, chips);
}

/* Chips created or changed in one batch of events; a removal later in the batch cancels its
 * entry (devtmpfs reports IN_ATTRIB right before IN_DELETE of a node). */
struct chip_events {
	char pending[8][NAME_MAX + 1];
	size_t n_pending;
	bool rescan;
};

/* Any event about a chip node makes the scan stale; a removal is acted on at once (the
 * request is dead), a creation only after the batch, when the node is known to stay. */
static void watcher_event(struct gpio_watcher *w, const struct inotify_event *ev,
			  struct chip_events *ce)
{
	bool removed = ev->mask & (IN_DELETE | IN_MOVED_FROM);

	if (ev->mask & IN_Q_OVERFLOW) {
		gpio_chips_clear(w);
		ce->rescan = true;
		return;
	}
	if (!ev->len || !gpio_is_chip_name(ev->name))
		return;
	gpio_chips_clear(w);
	log_debug("GPIO chip node %s/%s: %s.", w->dev_dir, ev->name,
		  removed		 ? "removed"
		  : ev->mask & IN_ATTRIB ? "attributes changed"
					 : "created");
	if (removed) {
		for (struct gpio_backend *p = w->backends; p; p = p->next)
			if ((p->request || p->group || p->busy_chip) && p->chip_name &&
			    streq(p->chip_name, ev->name))
				w->chip_gone(p);
		for (size_t i = 0; i < ce->n_pending; i++)
			if (streq(ce->pending[i], ev->name))
				ce->pending[i][0] = 0;
	} else if (ce->n_pending < ELEMENTSOF(ce->pending))
		snprintf(ce->pending[ce->n_pending++], sizeof(ce->pending[0]), "%s", ev->name);
	else
		ce->rescan = true;
}

static int on_inotify(sd_event_source *s _unused_, int fd, uint32_t revents _unused_,
		      void *userdata)
{
	struct gpio_watcher *w = userdata;
	union {
		struct inotify_event ev;
		char raw[4096];
	} buf;
	struct chip_events ce = {.n_pending = 0};

	for (;;) {
		ssize_t n = read(fd, &buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *ptr = buf.raw; ptr < buf.raw + n;) {
			struct inotify_event *ev = (struct inotify_event *)ptr;

			ptr += sizeof(*ev) + ev->len;
			watcher_event(w, ev, &ce);
		}
	}
	/* Retry only for nodes still there: IN_ATTRIB also announces a removal. */
	for (size_t i = 0; i < ce.n_pending && !ce.rescan; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", w->dev_dir, ce.pending[i]);
		ce.rescan = ce.pending[i][0] && access(path, F_OK) == 0;
	}
	if (ce.rescan)
		for (struct gpio_backend *p = w->backends; p; p = p->next)
			if (!p->request && !p->group && !p->joining && !p->busy_chip)
				w->chip_back(p);
	return 0;
}

void gpio_watcher_free(void *userdata)
{
	struct gpio_watcher *w = userdata;

	if (!w)
		return;
	sd_event_source_disable_unref(w->io);
	safe_close(w->fd);
	gpio_chips_clear(w);
	free(w->dev_dir);
	free(w);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gpio_watcher *, gpio_watcher_free)

int gpio_watcher_new(sd_event *event, const char *dev_dir, void (*chip_gone)(struct gpio_backend *),
		     void (*chip_back)(struct gpio_backend *), void **ret)
{
	_cleanup_(gpio_watcher_freep) struct gpio_watcher *w = NULL;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->event = event;
	w->chip_gone = chip_gone;
	w->chip_back = chip_back;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->dev_dir = strdup(dev_dir);
	if (w->fd < 0 || !w->dev_dir)
		return w->fd < 0 ? -errno : -ENOMEM;
	/* Chip nodes appear with the chip (devtmpfs) and may get their final permissions a
	 * moment later (udev): IN_ATTRIB retries then. */
	if (inotify_add_watch(w->fd, dev_dir,
			      IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM |
				  IN_ONLYDIR) < 0)
		return log_debug_errno(errno, "Failed to watch %s for GPIO chips: %m", dev_dir);
	r = sd_event_add_io(event, &w->io, w->fd, EPOLLIN, on_inotify, w);
	if (r < 0)
		return r;
	(void)sd_event_source_set_description(w->io, "gpio-chip-watch");
	*ret = TAKE_PTR(w);
	return 0;
}

/* A list: backends come and go with every reload, and a chip event visits them all anyway. */
void gpio_watcher_add(struct gpio_watcher *w, struct gpio_backend *p)
{
	p->watcher = w;
	p->next = w->backends;
	w->backends = p;
}

void gpio_watcher_remove(struct gpio_backend *p)
{
	struct gpio_watcher *w = p->watcher;

	if (!w)
		return;
	for (struct gpio_backend **bp = &w->backends; *bp; bp = &(*bp)->next)
		if (*bp == p) {
			*bp = p->next;
			break;
		}
	p->watcher = NULL;
	p->next = NULL;
}
