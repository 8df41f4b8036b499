// SPDX-License-Identifier: MIT
/* One virtual LED: registers it with uleds, applies its settings, forwards brightness. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/uleds.h>

#include "backend.h"
#include "bus.h"
#include "fdstore.h"
#include "led.h"
#include "led-watch.h"
#include "log.h"
#include "manager.h"
#include "record.h"
#include "state.h"
#include "string-util.h"
#include "uleds-ext.h"

#define LED_RING_SIZE 512 /* records the kernel keeps: 40 KiB, half a second of a 1 ms timer */

int led_write_attr(struct led *l, const char *attr, const char *value)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(value);

	if (asprintf(&path, "%s/%s", l->sysfs, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		return negative_errno();
	return 0;
}

/* At most this much of an attribute: the trigger list of a kernel with many triggers has a few
 * KiB, anything near a megabyte is not an LED attribute. */
#define LED_ATTR_MAX (1024 * 1024)

/* The whole file: since Linux 5.6 "trigger" is a bin attribute without the page limit, read
 * a page per read() (more triggers than fit in 4 KiB made Trigger, and so GetManagedObjects,
 * fail for every LED). Trailing newlines and spaces removed. */
int led_read_attr(struct led *l, const char *attr, char **ret)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t size = 4096, len = 0;

	if (asprintf(&path, "%s/%s", l->sysfs, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		/* Full: grow, at most to LED_ATTR_MAX + 1 bytes and the NUL; a file that fills
		 * that much is longer than the limit. */
		if (len == size - 1) {
			char *p;

			if (len > LED_ATTR_MAX)
				return -EFBIG;
			size = size * 2 > LED_ATTR_MAX + 2 ? LED_ATTR_MAX + 2 : size * 2;
			p = realloc(buf, size);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = 0;
	*ret = TAKE_PTR(buf);
	return 0;
}

int led_current_trigger(struct led *l, char **ret)
{
	_cleanup_free_ char *list = NULL;
	int r;

	/* The kernel lists all triggers and brackets the active one: "none [timer] oneshot". */
	r = led_read_attr(l, "trigger", &list);
	if (r < 0)
		return r;
	return trigger_list_parse(list, NULL, ret);
}

const char *led_mode_to_string(enum led_mode mode)
{
	static const char *const names[] = {
	    [LED_MODE_LATEST] = "latest-value",
	    [LED_MODE_EVENT] = "event",
	    [LED_MODE_EVENT_OFFLOAD] = "event-offload",
	};

	return names[mode];
}

/* The LED's state to one backend: a running offloaded blink, else the brightness. */
static void led_backend_take(struct led *l, struct led_backend *b)
{
	bool blinking = l->blink_on_ms || l->blink_off_ms;
	int r;

	if (blinking && b->ops->blink)
		r = b->ops->blink(b, l->brightness, l->blink_on_ms, l->blink_off_ms);
	else
		r = b->ops->set(b, l->brightness);
	if (r < 0)
		log_debug_errno(r, "%s: backend %s failed to take brightness %u: %m", l->name,
				b->ops->name, l->brightness);
}

void led_dispatch(struct led *l)
{
	struct led_conf *c = l->conf;

	for (size_t i = 0; i < c->n_backends; i++)
		if (c->backends[i]->attached)
			led_backend_take(l, c->backends[i]);
	if (c->default_mode == DEFAULT_BRIGHTNESS_RESTORE)
		led_state_changed(l);
}

bool led_has_bus_signals(const struct led *l)
{
	for (size_t i = 0; i < l->conf->n_backends; i++)
		if (l->conf->backends[i]->ops->bus_signals)
			return true;
	return false;
}

/* A multicolour LED's record carries the channel intensities (the module clamps them to
 * max_brightness). true: they changed, which is a change even at the same brightness. */
static bool led_take_intensity(struct led *l, const struct uleds_event *ev)
{
	unsigned n = ev->n_channels < l->n_channels ? ev->n_channels : l->n_channels;

	if (!n || memcmp(l->intensity, ev->intensity, n * sizeof(unsigned)) == 0)
		return false;
	memcpy(l->intensity, ev->intensity, n * sizeof(unsigned));
	return true;
}

/* One record of the LED core, in order. Equal values go to recordings only: backends see
 * transitions. While an offloaded blink runs, a non-zero brightness is its new level, as
 * software blinking would go on at it; 0 ends it (kmod/README, "Event mode"). */
static void led_take_event(struct led *l, const struct uleds_event *ev)
{
	bool blinking = l->blink_on_ms || l->blink_off_ms;
	unsigned v = ev->brightness < 0 ? 0 : (unsigned)ev->brightness;

	l->lost += ev->lost;
	record_event(l->manager, l, ev);
	/* Any call of the LED core, an equal value included (a trigger that stops sets 0). */
	bus_led_trigger_maybe_changed(l);
	if (ev->type == ULEDS_EVENT_BLINK) {
		if (!led_take_intensity(l, ev) && blinking && v == l->brightness &&
		    ev->delay_on_ms == l->blink_on_ms && ev->delay_off_ms == l->blink_off_ms)
			return;
		l->mode = LED_MODE_EVENT_OFFLOAD; /* an adopted fd tells only now */
		l->blink_on_ms = ev->delay_on_ms;
		l->blink_off_ms = ev->delay_off_ms;
	} else if (ev->type == ULEDS_EVENT_BRIGHTNESS) {
		if (v == l->brightness && (!blinking || v != 0) && !led_take_intensity(l, ev))
			return;
		if (v == 0)
			l->blink_on_ms = l->blink_off_ms = 0;
	} else
		return;
	l->brightness = v;
	if (blinking != (l->blink_on_ms || l->blink_off_ms) || ev->type == ULEDS_EVENT_BLINK)
		bus_led_blink_changed(l);
	led_dispatch(l);
}

/* Event mode: whole records of l->event_size bytes (80 today; a larger future record starts
 * with the same fields). Edge-triggered: read until EAGAIN. */
static int led_read_events(struct led *l, int fd)
{
	uint8_t buf[64 * sizeof(struct uleds_event)];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - sizeof(buf) % l->event_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0 || (size_t)n % l->event_size)
			return n < 0 ? -errno : -EIO;
		for (size_t off = 0; off < (size_t)n; off += l->event_size) {
			struct uleds_event ev;

			memcpy(&ev, buf + off, sizeof(ev));
			led_take_event(l, &ev);
		}
	}
}

/* Latest-value mode: uleds keeps only the latest value and returns one int a read (a
 * multicolour LED: the brightness and then each channel's intensity, kmod/README), so a
 * short read means drained: one read() per change, no EAGAIN. 1: the value changed. */
static int led_read_latest(struct led *l, int fd)
{
	bool changed = false;
	int v[16];

	for (;;) {
		ssize_t n = read(fd, v, sizeof(v));

		if (n >= (ssize_t)sizeof(int)) {
			size_t got = (size_t)n / sizeof(int), stride = 1 + l->n_channels;
			/* the last whole value, should a stream hand over several */
			const int *last = v + (got >= stride ? (got / stride - 1) * stride : 0);

			l->brightness = (unsigned)(last[0] < 0 ? 0 : last[0]);
			for (size_t i = 0; i < l->n_channels && last + i + 1 < v + got; i++)
				l->intensity[i] = (unsigned)(last[i + 1] < 0 ? 0 : last[i + 1]);
			changed = true;
			if (n == (ssize_t)sizeof(v))
				continue;
			return changed;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return changed;
		return n < 0 ? -errno : -EIO;
	}
}

static void led_record_latest(struct led *l)
{
	struct uleds_event ev = {.type = ULEDS_EVENT_BRIGHTNESS, .brightness = (int)l->brightness};
	struct timespec ts;

	/* No kernel timestamp in this mode: when the daemon read it (the Mode line says so). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ev.timestamp_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	record_event(l->manager, l, &ev);
}

void led_on_ready(struct led *l)
{
	int r;

	if (l->mode != LED_MODE_LATEST)
		r = led_read_events(l, l->fd);
	else {
		r = led_read_latest(l, l->fd);
		if (r > 0) {
			led_record_latest(l);
			led_dispatch(l);
			bus_led_trigger_maybe_changed(l);
		}
	}
	if (r < 0) {
		/* A short read or an error: nothing sensible will come from this fd again. */
		log_error_errno(r,
				"%s: reading the uleds device failed (%m); the LED no longer "
				"forwards.",
				l->name);
		led_watch_remove(l->manager, l);
	}
}

/* Event mode whenever the module offers it (the in-tree uleds answers ENOTTY) and the
 * configuration does not say events = no, before the setup so a default trigger's first
 * calls are recorded; blink offload unless the configuration says blink = software (only
 * possible before the setup). An adopted fd may be in event mode already whatever the
 * configuration says now (the module has no way back): the ioctl tells, so it is made. */
static void led_set_event_mode(struct led *l)
{
	struct uleds_event_mode mode = {.ring_size = LED_RING_SIZE};
	int r;

	if (l->manager->uleds_ext == 0 || (l->conf->no_events && !l->adopted))
		return;
	if (l->conf->blink == LED_BLINK_OFFLOAD && !l->adopted)
		mode.flags = ULEDS_EVENT_F_BLINK;
	r = ioctl(l->fd, ULEDS_IOC_SET_EVENT_MODE, &mode);
	if (r < (int)sizeof(struct uleds_event)) {
		if (r >= 0 || errno != ENOTTY)
			log_warning_errno(r < 0 ? errno : EPROTO,
					  "%s: the uleds module refused event mode (%m); the LED "
					  "reports only its latest value.",
					  l->name);
		return;
	}
	l->event_size = (size_t)r;
	l->mode = mode.flags ? LED_MODE_EVENT_OFFLOAD : LED_MODE_EVENT;
}

/* ledtrig-NAME is a module of the running kernel (modules.dep names its file). */
static bool trigger_module_exists(const char *trigger)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], want[96], line[512];
	struct utsname u;

	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	snprintf(want, sizeof(want), "/ledtrig-%s.ko", trigger);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, want))
			return true;
	return false;
}

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* Levenshtein, one row: trigger names are short. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[LED_NAME_MAX + 2], n = (unsigned)strlen(b);

	if (n > LED_NAME_MAX)
		return UINT_MAX;
	for (unsigned j = 0; j <= n; j++)
		d[j] = j;
	for (const char *p = a; *p; p++) {
		unsigned diag = d[0];

		d[0]++;
		for (unsigned j = 1; j <= n; j++) {
			unsigned up = d[j], best = MIN(d[j], d[j - 1]) + 1;

			d[j] = MIN(best, diag + (*p != b[j - 1]));
			diag = up;
		}
	}
	return d[n];
}

/* A mistyped name: the triggers the kernel offers and the nearest one. */
static void trigger_nearest_hint(struct led *l, const char *trigger, char *buf, size_t size)
{
	_cleanup_free_ char *list = NULL;
	const char *nearest = NULL;
	unsigned best = UINT_MAX;
	char *save = NULL;
	int n = 0;

	if (led_read_attr(l, "trigger", &list) < 0) {
		snprintf(buf, size, "no module ledtrig-%s exists; check the name", trigger);
		return;
	}
	for (char *w = strtok_r(list, " []", &save); w; w = strtok_r(NULL, " []", &save)) {
		unsigned dist = edit_distance(w, trigger);

		if (dist < best && !streq(w, "none")) {
			best = dist;
			nearest = w;
		}
	}
	n = snprintf(buf, size, "no module ledtrig-%s exists", trigger);
	if (nearest && best <= 3 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "; did you mean '%s'?", nearest);
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " (see %s/trigger)", l->sysfs);
}

/* Name of the module that usually provides a trigger, for the error message. */
static void trigger_module_hint(struct led *l, const char *trigger, char *buf, size_t size)
{
	if (strncmp(trigger, "phy", 3) == 0)
		snprintf(buf, size,
			 "it comes from a wireless driver (mac80211); is the interface present?");
	else if (strncmp(trigger, "hci", 3) == 0)
		snprintf(buf, size, "it comes from the bluetooth stack; is the adapter present?");
	else if (strncmp(trigger, "mmc", 3) == 0 || strncmp(trigger, "kbd-", 4) == 0 ||
		 strncmp(trigger, "rfkill", 6) == 0)
		snprintf(buf, size, "it comes from the driver of that device; is it present?");
	else if (trigger_module_exists(trigger))
		snprintf(
		    buf, size,
		    "load its module (modprobe ledtrig-%s); uledsd attaches it when it appears",
		    trigger);
	else
		trigger_nearest_hint(l, trigger, buf, size);
}

/* Select the configured trigger (or none). Already in effect (set at registration, or an
 * adopted LED): not touched, a restart would be a visible glitch. */
static int led_set_trigger(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	_cleanup_free_ char *cur = NULL;
	const char *want = c->trigger ? c->trigger : "none";
	char hint[256];
	int r;

	if (led_current_trigger(l, &cur) >= 0 && streq(cur, want))
		return 0;
	free(cur);
	cur = NULL;
	if (c->trigger) {
		struct uleds_trigger t = {0};

		snprintf(t.name, sizeof(t.name), "%s", c->trigger);
		r = ioctl(l->fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 ? -errno : 0;
		/* The in-tree uleds has no such ioctl (ENOTTY); an adopted fd may be any uleds. */
		if (r == -ENOTTY || r == -EINVAL || l->adopted)
			r = led_write_attr(l, "trigger", want);
	} else
		r = led_write_attr(l, "trigger", "none");
	if (r >= 0)
		r = led_current_trigger(l, &cur);
	if (r >= 0 && !streq(cur, want))
		r = -ENOENT;
	if (r >= 0)
		return 0;
	trigger_module_hint(l, want, hint, sizeof(hint));
	return error_setf(ret_error, r, "%s:%u: trigger '%s' is not available for [%s]: %s.",
			  c->file, c->trigger_line ? c->trigger_line : c->line, want, l->name,
			  hint);
}

static int led_apply_trigger(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	r = led_set_trigger(l, ret_error);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_attrs; i++) {
		const struct trigger_attr *a = &c->attrs[i];
		_cleanup_free_ char *now = NULL;

		/* Rewriting an equal value would restart a running timer: a visible glitch. */
		if (led_read_attr(l, a->key, &now) >= 0 && streq(now, a->value))
			continue;
		r = led_write_attr(l, a->key, a->value);
		if (r == -ENOENT)
			return error_setf(ret_error, r,
					  "%s:%u: trigger '%s' has no attribute '%s'; see ls "
					  "/sys/class/leds/%s/.",
					  c->file, a->line, c->trigger ? c->trigger : "none",
					  a->key, l->name);
		if (r < 0)
			return error_setf(
			    ret_error, r,
			    "%s:%u: the kernel refused trigger.%s = %s (%s); check the value.",
			    c->file, a->line, a->key, a->value, strerror(-r));
	}
	return 0;
}

int led_write_intensity(struct led *l, const unsigned *intensity)
{
	char buf[LED_CHANNELS_MAX * 12] = "";
	size_t len = 0;

	for (unsigned i = 0; i < l->n_channels; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? " " : "",
					intensity[i]);
	return led_write_attr(l, "multi_intensity", buf);
}

static int led_apply_default(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	char buf[16];
	unsigned v;
	int r;

	/* Before the brightness: the first lit value shows the configured colour. */
	if (c->intensity_set) {
		r = led_write_intensity(l, c->intensity);
		if (r < 0)
			return error_setf(ret_error, r,
					  "%s:%u: failed to set multi_intensity of [%s]: %s.",
					  c->file, c->intensity_line, l->name, strerror(-r));
	}
	if (c->default_mode == DEFAULT_BRIGHTNESS_VALUE)
		v = (unsigned)c->default_brightness;
	else if (c->default_mode == DEFAULT_BRIGHTNESS_RESTORE) {
		r = led_state_load(l, &v);
		if (r < 0)
			return 0; /* nothing saved yet: start dark */
		if (v > l->max_brightness)
			v = l->max_brightness;
	} else
		return 0;
	snprintf(buf, sizeof(buf), "%u", v);
	r = led_write_attr(l, "brightness", buf);
	if (r < 0)
		return error_setf(ret_error, r,
				  "%s:%u: failed to set the default brightness of [%s]: %s.",
				  c->file, c->line, l->name, strerror(-r));
	return 0;
}

static void on_backend_state(struct led_backend *b, void *userdata)
{
	bus_led_backends_changed(userdata);
}

static void on_backend_signal(struct led_backend *b, void *userdata)
{
	bus_led_brightness_changed(userdata);
}

/* Give b what it needs of the daemon, and attach it. A backend that fails is reported; the
 * LED works without it. */
static void led_attach_backend(struct led *l, struct led_backend *b)
{
	struct manager *m = l->manager;
	struct backend_context ctx = {
	    .event = m->event,
	    .dev_dir = m->dev_dir,
	    .led_name = l->name,
	    .sysfs = l->sysfs,
	    .max_brightness = l->max_brightness,
	    .brightness = l->brightness,
	    .n_channels = l->n_channels,
	    .intensity = l->n_channels ? l->intensity : NULL,
	    .state_changed = on_backend_state,
	    .signal_brightness = on_backend_signal,
	    .userdata = l,
	};
	int r;

	r = backend_shared_get(&m->backend_shared, b->ops, m->event, m->dev_dir, &ctx.shared);
	if (r >= 0)
		r = led_backend_attach(b, &ctx);
	else
		(void)led_backend_set_state(b, false, "failed: %s", strerror(-r));
	if (r < 0)
		log_error_errno(
		    r, "%s:%u: [%s] backend %s failed to start: %m; the LED works without it.",
		    b->file, b->line, l->name, b->ops->name);
}

static void led_attach_backends(struct led *l)
{
	for (size_t i = 0; i < l->conf->n_backends; i++)
		if (!l->conf->backends[i]->attached)
			led_attach_backend(l, l->conf->backends[i]);
}

/* How many NAME_<n> LEDs the check around the write keeps apart; more is refused. */
#define LED_ALIASES_MAX 64

/* An LED named NAME_<n>: the LED core's new name for a NAME that was taken. */
struct led_alias {
	unsigned long n;
	ino_t ino; /* which LED holds the name: kernfs gives every new node a new number */
};

/* n when entry is NAME_<n> spelt as led_classdev_next_name() spells it ("%s_%u"), else 0. */
static unsigned long led_alias_number(const char *entry, const char *name)
{
	size_t len = strlen(name);
	const char *p = entry + len + 1;
	unsigned long n;
	char *end;

	if (strncmp(entry, name, len) != 0 || entry[len] != '_' || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	n = strtoul(p, &end, 10);
	return *end || errno ? 0 : n;
}

/* Every NAME_<n> in the LED class directory, not NAME_1 up to the first one missing: a racer's
 * NAME_1 may come and go while ours took NAME_2. */
static int led_scan_aliases(struct led *l, struct led_alias *a, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = opendir(l->manager->sysfs_leds);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return -errno;
	for (errno = 0; (de = readdir(d)); errno = 0) {
		unsigned long k = led_alias_number(de->d_name, l->name);

		if (!k)
			continue;
		if (n == LED_ALIASES_MAX)
			return -E2BIG;
		a[n++] = (struct led_alias){.n = k, .ino = de->d_ino};
	}
	if (errno)
		return -errno;
	*ret_n = n;
	return 0;
}

/* The n of the first NAME_<n> in after that no LED held in before, 0 when none. */
static unsigned long led_alias_new(const struct led_alias *before, size_t n_before,
				   const struct led_alias *after, size_t n_after)
{
	for (size_t i = 0; i < n_after; i++) {
		size_t j = 0;

		while (j < n_before && (before[j].n != after[i].n || before[j].ino != after[i].ino))
			j++;
		if (j == n_before)
			return after[i].n;
	}
	return 0;
}

/* l->sysfs is an LED of the uleds device l->fd is open on: both drivers register under that
 * misc device (/sys/devices/virtual/misc/uleds), which another driver's LED is not. */
static bool led_is_uleds_device(struct led *l)
{
	char link[64], dev[PATH_MAX], led[PATH_MAX];
	struct stat st;
	char *slash;

	if (fstat(l->fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, dev) || !realpath(l->sysfs, led))
		return false;
	slash = strrchr(led, '/');
	if (!slash)
		return false;
	*slash = 0;
	return streq(led, dev);
}

/* Registration for the in-tree uleds. The LED core registers a name that is taken as NAME_1
 * (the first free NAME_<n>) without a word, and the driver cannot say which name it gave. A
 * name that exists is refused first; someone registering it between that check and the write
 * (another driver, another uleds user) is told apart by the NAME_<n> entries before and after:
 *  - ours exists under exactly one of NAME, NAME_1, NAME_2, ... from the write on (we hold the
 *    fd) and did not before it: if it was renamed, it is a NAME_<n> that no LED held before;
 *  - no new NAME_<n> after the write: ours is NAME (and NAME must be a uleds device);
 *  - a new one: ours was renamed (the racer took NAME first) or the racer's was (ours came
 *    first). The two look the same from here, two new LEDs of the same device with the same
 *    max_brightness if the racer is a uleds user too, and writing to one to find out may be
 *    a write to the foreign LED. Refused: closing the fd removes ours, whichever name it got.
 * Never is l->sysfs left naming an LED that is not ours. */
static int led_register_write(struct led *l, struct uleds_user_dev *dev, char **ret_error)
{
	struct led_alias before[LED_ALIASES_MAX], after[LED_ALIASES_MAX];
	struct led_conf *c = l->conf;
	size_t n_before = 0, n_after = 0;
	unsigned long renamed = 0;
	char why[PATH_MAX + 64];
	struct stat st;
	int r;

	if (stat(l->sysfs, &st) == 0)
		return error_setf(
		    ret_error, -EEXIST,
		    "%s:%u: an LED named '%s' already exists (another driver or program "
		    "made it); choose another name.",
		    c->file, c->line, l->name);
	r = led_scan_aliases(l, before, &n_before);
	if (r == -E2BIG)
		return error_setf(
		    ret_error, -EEXIST,
		    "%s:%u: more than %d LEDs named '%s_N' exist, too many to tell "
		    "uledsd's own apart should the LED core rename it; choose another "
		    "name.",
		    c->file, c->line, LED_ALIASES_MAX, l->name);
	if (r < 0)
		return error_setf(ret_error, r,
				  "%s:%u: [%s] cannot be created: reading %s failed: %s.", c->file,
				  c->line, l->name, l->manager->sysfs_leds, strerror(-r));
	if (write(l->fd, dev, sizeof(*dev)) != (ssize_t)sizeof(*dev))
		return -errno;
	r = led_scan_aliases(l, after, &n_after);
	if (r >= 0)
		renamed = led_alias_new(before, n_before, after, n_after);
	if (r < 0)
		snprintf(why, sizeof(why), "reading %s failed: %s", l->manager->sysfs_leds,
			 strerror(-r));
	else if (renamed)
		snprintf(why, sizeof(why), "the LED core renamed one of the two to '%s_%lu'",
			 l->name, renamed);
	else if (stat(l->sysfs, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(why, sizeof(why), "%s is missing", l->sysfs);
	else if (!led_is_uleds_device(l))
		snprintf(why, sizeof(why), "%s is not an LED of %s", l->sysfs,
			 l->manager->uleds_path);
	else
		return 0;
	l->fd = safe_close(l->fd);
	return error_setf(ret_error, -EEXIST,
			  "%s:%u: another driver or program registered an LED named '%s' at the "
			  "same moment (%s); uledsd removed its own, whichever name it got. Choose "
			  "another name.",
			  c->file, c->line, l->name, why);
}

/* color = ...: before the setup, so the LED registers as a multicolour one. */
static int led_set_multicolor(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	struct uleds_multicolor mc = {.n_channels = c->n_channels};

	if (!c->n_channels)
		return 0;
	memcpy(mc.color, c->color, sizeof(mc.color));
	if (ioctl(l->fd, ULEDS_IOC_SET_MULTICOLOR, &mc) < 0) {
		int r = -errno;

		if (r == -ENOTTY || r == -EINVAL)
			return error_setf(ret_error, r,
					  "%s:%u: LED '%s' is multicolour (color = ...), which needs "
					  "uledsd's uleds module (kmod/, installable with DKMS); the "
					  "loaded uleds does not offer it. Install that module or "
					  "remove 'color'.",
					  c->file, c->color_line, l->name);
		if (r == -EOPNOTSUPP)
			return error_setf(ret_error, r,
					  "%s:%u: LED '%s' is multicolour (color = ...), but the "
					  "kernel has no multicolour LED class: load "
					  "led-class-multicolor (modprobe led-class-multicolor) or "
					  "remove 'color'.",
					  c->file, c->color_line, l->name);
		return error_setf(ret_error, r,
				  "%s:%u: the kernel refused the colour channels of LED '%s': %s.",
				  c->file, c->color_line, l->name, strerror(-r));
	}
	/* The module starts every channel at max_brightness (white). */
	l->n_channels = c->n_channels;
	for (unsigned i = 0; i < c->n_channels; i++)
		l->intensity[i] = l->max_brightness;
	return 0;
}

static int led_register(struct led *l, char **ret_error)
{
	struct manager *m = l->manager;
	struct led_conf *c = l->conf;
	struct uleds_user_dev dev = {.max_brightness = c->max_brightness};
	int v, r;

	l->fd = open(m->uleds_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (l->fd < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			return error_setf(
			    ret_error, -errno,
			    "%s does not exist: load the uleds module (modprobe uleds; "
			    "it ships in uledsd's kmod/, installable with DKMS).",
			    m->uleds_path);
		if (errno == EMFILE || errno == ENFILE) {
			struct rlimit rl = {0};
			int e = errno;

			/* One fd an LED: name the limit and where to raise it. */
			(void)getrlimit(RLIMIT_NOFILE, &rl);
			return error_setf(ret_error, -e,
					  "%s:%u: [%s] cannot be created: %s (uledsd holds one "
					  "file descriptor an LED; its limit is %llu). Raise "
					  "LimitNOFILE= of uledsd.service, or define fewer LEDs.",
					  c->file, c->line, c->name, strerror(e),
					  (unsigned long long)rl.rlim_cur);
		}
		return error_setf(ret_error, -errno, "%s:%u: [%s] cannot be created: failed to open "
				  "%s: %s%s.", c->file, c->line, c->name, m->uleds_path,
				  strerror(errno),
				  errno == EACCES   ? " (uledsd must run as root)"
				  : errno == EMFILE ? " (one fd per LED: raise LimitNOFILE=)"
						    : "");
	}
	led_set_event_mode(l);
	r = led_set_multicolor(l, ret_error);
	if (r < 0)
		return r;
	/* A trigger set before the device exists is attached at registration: no window in
	 * which the LED runs without it. A default brightness must come before the trigger,
	 * so then the trigger follows later. */
	if (c->trigger && c->default_mode == DEFAULT_BRIGHTNESS_UNSET && m->uleds_ext != 0) {
		struct uleds_trigger t = {0};

		snprintf(t.name, sizeof(t.name), "%s", c->trigger);
		if (ioctl(l->fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 && errno == ENOTTY)
			m->uleds_ext = 0;
	}
	snprintf(dev.name, sizeof(dev.name), "%s", l->name);
	/* uledsd's kmod registers through its ioctl and refuses clashes itself (EEXIST);
	 * the in-tree driver answers ENOTTY and needs the checks around a write. */
	r = -ENOTTY;
	if (m->uleds_ext != 0)
		r = ioctl(l->fd, ULEDS_IOC_DEV_SETUP, &dev) < 0 ? -errno : 0;
	if (r == -ENOTTY) {
		m->uleds_ext = 0;
		r = led_register_write(l, &dev, ret_error);
		if (r < 0 && *ret_error)
			return r;
	} else if (r >= 0)
		m->uleds_ext = 1;
	if (r == -EEXIST)
		return error_setf(ret_error, r,
				  "%s:%u: an LED named '%s' already exists; choose another name.",
				  c->file, c->line, l->name);
	if (r < 0)
		return error_setf(ret_error, r, "%s:%u: the kernel refused to create LED '%s': %s.",
				  c->file, c->line, l->name, strerror(-r));
	/* The first read after registration returns the initial value at once (latest-value
	 * mode; in event mode a new LED is 0 until a record says otherwise). */
	if (l->mode == LED_MODE_LATEST && read(l->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		l->brightness = (unsigned)(v < 0 ? 0 : v);
	return 0;
}

static int led_read_brightness(struct led *l)
{
	_cleanup_free_ char *s = NULL;
	int r;

	r = led_read_attr(l, "brightness", &s);
	if (r < 0)
		return r;
	l->brightness = (unsigned)strtoul(s, NULL, 10);
	return 0;
}

/* A multicolour LED taken over from the fd store: its channels as sysfs shows them. */
static void led_read_intensity(struct led *l)
{
	_cleanup_free_ char *s = NULL;
	char *p, *end;

	l->n_channels = l->conf->n_channels;
	if (!l->n_channels || led_read_attr(l, "multi_intensity", &s) < 0)
		return;
	p = s;
	for (unsigned i = 0; i < l->n_channels; i++, p = end) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		l->intensity[i] = v > l->max_brightness ? l->max_brightness : (unsigned)v;
	}
}

/* An offloaded blink that started before a crash is not announced again: rewriting delay_on
 * (timer and its kind) makes the LED core hand it over anew, as a BLINK record. */
static void led_adopt_blink(struct led *l)
{
	_cleanup_free_ char *on = NULL;

	if (led_read_attr(l, "delay_on", &on) >= 0)
		(void)led_write_attr(l, "delay_on", on);
}

/* The fd store kept the LED alive: it exists with its trigger still running. */
static int led_adopt(struct led *l, int fd, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	l->fd = fd;
	l->adopted = true;
	led_set_event_mode(l);
	r = led_read_brightness(l);
	if (r < 0)
		return error_setf(ret_error, r,
				  "%s:%u: adopted LED '%s' has no readable %s/brightness.", c->file,
				  c->line, l->name, l->sysfs);
	led_read_intensity(l);
	/* The configured trigger may have changed while uledsd was down (one set at run time
	 * through sysfs or D-Bus, with none configured, stays). */
	r = c->trigger ? led_apply_trigger(l, ret_error) : 0;
	if (r >= 0 && l->mode != LED_MODE_LATEST)
		led_adopt_blink(l);
	return r;
}

static int led_create(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	int r;

	r = led_register(l, ret_error);
	if (r < 0)
		return r;
	/* A new LED has no trigger and the brightness just read: touch sysfs only when the
	 * configuration asks for something else (1000 LEDs start in a blink). */
	if (c->default_mode == DEFAULT_BRIGHTNESS_UNSET && !c->trigger && !c->intensity_set)
		return 0;
	r = led_apply_default(l, ret_error);
	if (r >= 0 && c->trigger)
		r = led_apply_trigger(l, ret_error);
	/* A trigger whose module is not loaded yet: the LED works meanwhile, and
	 * led_retry_trigger() attaches it once the module appears. */
	if (r == -ENOENT && *ret_error) {
		l->apply_failed = true;
		manager_trigger_retry_arm(l->manager);
		r = 1;
	}
	if (r < 0)
		return r;
	(void)led_read_brightness(l);
	led_read_intensity(l);
	return r;
}

/* The kernel lists the trigger now. Only reading: selecting a missing trigger through our
 * module's ioctl makes the LED core start a modprobe (request_module_nowait()). */
static bool led_trigger_listed(struct led *l, const char *trigger)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *list = NULL;

	return led_read_attr(l, "trigger", &list) >= 0 &&
	       trigger_list_parse(list, &names, NULL) >= 0 && strv_contains(names, trigger);
}

int led_retry_trigger(struct led *l)
{
	_cleanup_free_ char *err = NULL;

	if (!l->apply_failed || !l->conf->trigger || !led_trigger_listed(l, l->conf->trigger) ||
	    led_apply_trigger(l, &err) < 0)
		return 0;
	l->apply_failed = false;
	log_info("%s: trigger '%s' is available now; attached.", l->name, l->conf->trigger);
	(void)led_read_brightness(l);
	led_dispatch(l);
	return 1;
}

int led_new(struct manager *m, struct led_conf *conf, int adopt_fd, struct led **ret,
	    char **ret_error)
{
	_cleanup_(led_freep) struct led *l = NULL;
	bool pending;
	int r;

	*ret_error = NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		led_conf_free(conf);
		safe_close(adopt_fd);
		return -ENOMEM;
	}
	*l = (struct led){.manager = m, .conf = conf, .fd = -1};
	l->max_brightness = (unsigned)conf->max_brightness;
	l->name = strdup(conf->name);
	if (!l->name || asprintf(&l->sysfs, "%s/%s", m->sysfs_leds, conf->name) < 0) {
		l->sysfs = NULL;
		safe_close(adopt_fd);
		return -ENOMEM;
	}
	r = adopt_fd >= 0 ? led_adopt(l, adopt_fd, ret_error) : led_create(l, ret_error);
	if (r < 0) {
		/* systemd's copy would keep an adopted LED alive: remove it (kmod) before the
		 * caller's FDSTOREREMOVE by name, which misses an fd stored in a batch. */
		if (l->adopted)
			fdstore_forget(m, l->name, l->fd);
		return r;
	}
	pending = r > 0;
	/* All LEDs share one sd-event source (led-watch.c): a wakeup reads every ready LED. */
	r = led_watch_add(m, l);
	if (r < 0)
		return error_setf(ret_error, r, "Failed to watch LED '%s': %s.", l->name,
				  strerror(-r));
	led_attach_backends(l);
	led_dispatch(l);
	if (!l->adopted)
		fdstore_add(l);
	bus_led_added(l);
	*ret = TAKE_PTR(l);
	return pending;
}

static void led_detach_backends(struct led_conf *c)
{
	for (size_t i = 0; i < c->n_backends; i++)
		if (c->backends[i])
			led_backend_detach(c->backends[i]);
}

struct led *led_free(struct led *l)
{
	if (!l)
		return NULL;
	bus_led_removed(l);
	/* Before anything they may use goes (a log backend writes its last record). */
	led_detach_backends(l->conf);
	led_state_free(l);
	/* Before close: the fd store's copy keeps the epoll item alive (led-watch.h). */
	led_watch_remove(l->manager, l);
	fdstore_unqueue(l);
	safe_close(l->fd);
	led_conf_free(l->conf);
	free(l->sysfs);
	free(l->name);
	free(l);
	return NULL;
}

enum led_change led_compare(const struct led *l, const struct led_conf *conf)
{
	enum led_change c = led_conf_compare(l->conf, conf);

	/* What failed to apply last time (a trigger module not loaded yet) is tried again. */
	if (c == LED_CHANGE_NONE && l->apply_failed)
		c = LED_CHANGE_UPDATE;
	return c;
}

/* conf's backends whose settings are unchanged take the place of the running instance (no
 * glitch on a GPIO line); the other running ones are detached before any new one attaches, so
 * a resource they held is free for their successor. conf becomes the LED's definition.
 * Returns how many backends were kept. */
static size_t led_reconcile(struct led *l, struct led_conf *conf)
{
	struct led_conf *old = l->conf;
	size_t n_keep = 0;

	for (size_t i = 0; i < conf->n_backends; i++) {
		struct led_backend *nb = conf->backends[i];

		for (size_t j = 0; j < old->n_backends; j++) {
			struct led_backend *ob = old->backends[j];

			if (!ob || ob->ops != nb->ops || (ob->ops->same && !ob->ops->same(ob, nb)))
				continue;
			led_backend_free(nb);
			conf->backends[i] = TAKE_PTR(old->backends[j]);
			n_keep++;
			break;
		}
	}
	led_detach_backends(old);
	l->conf = conf;
	led_conf_free(old);
	led_attach_backends(l);
	return n_keep;
}

int led_update(struct led *l, struct led_conf *conf, char **ret_error)
{
	struct led_conf_diff d;
	size_t n_keep;
	int r = 0;

	*ret_error = NULL;
	led_conf_diff(l->conf, conf, &d);
	n_keep = led_reconcile(l, conf);
	if (l->apply_failed || d.defaults)
		r = led_apply_default(l, ret_error);
	if (r >= 0 && (l->apply_failed || d.defaults || d.trigger))
		r = led_apply_trigger(l, ret_error);
	l->apply_failed = r < 0;
	if (l->apply_failed && l->conf->trigger)
		manager_trigger_retry_arm(l->manager);
	(void)led_read_brightness(l);
	if (n_keep < l->conf->n_backends)
		led_dispatch(l);
	bus_led_backends_changed(l);
	return r;
}
