// SPDX-License-Identifier: MIT
/* An LED's uleds device: opening /dev/uleds, event mode, colour channels and registration,
 * through uledsd's kmod ioctls or the in-tree driver's write with its rename checks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/uleds.h>

#include "led-device.h"
#include "log.h"
#include "string-util.h"
#include "uleds-ext.h"

#define LED_RING_SIZE 512 /* records the kernel keeps: 40 KiB, half a second of a 1 ms timer */
/* In a uleds group the records go to the group's ring from the join on; this one holds only
 * what the registration's default trigger does before it. */
#define LED_RING_SIZE_GROUPED 16

/* Event mode whenever the module offers it (the in-tree uleds answers ENOTTY) and the
 * configuration does not say events = no, before the setup so a default trigger's first
 * calls are recorded; blink offload unless the configuration says blink = software (only
 * possible before the setup). An adopted fd may be in event mode already whatever the
 * configuration says now (the module has no way back): the ioctl tells, so it is made. */
void led_set_event_mode(struct led *l)
{
	struct uleds_event_mode mode = {.ring_size = LED_RING_SIZE};
	int r;

	if (led_watch_group_fd(l->ctx->watch) >= 0)
		mode.ring_size = LED_RING_SIZE_GROUPED;
	if (l->ctx->uleds_ext == 0 || (l->conf->no_events && !l->adopted))
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
	_cleanup_(closedirp) DIR *d = opendir(l->ctx->sysfs_leds);
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
				  c->line, l->name, l->ctx->sysfs_leds, strerror(-r));
	if (write(l->fd, dev, sizeof(*dev)) != (ssize_t)sizeof(*dev))
		return -errno;
	r = led_scan_aliases(l, after, &n_after);
	if (r >= 0)
		renamed = led_alias_new(before, n_before, after, n_after);
	if (r < 0)
		snprintf(why, sizeof(why), "reading %s failed: %s", l->ctx->sysfs_leds,
			 strerror(-r));
	else if (renamed)
		snprintf(why, sizeof(why), "the LED core renamed one of the two to '%s_%lu'",
			 l->name, renamed);
	else if (stat(l->sysfs, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(why, sizeof(why), "%s is missing", l->sysfs);
	else if (!led_is_uleds_device(l))
		snprintf(why, sizeof(why), "%s is not an LED of %s", l->sysfs, l->ctx->uleds_path);
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
	for (unsigned i = 0; i < c->n_channels && i < ELEMENTSOF(mc.color); i++)
		mc.color[i] = c->color[i];
	if (ioctl(l->fd, ULEDS_IOC_SET_MULTICOLOR, &mc) < 0) {
		int r = -errno;

		if (r == -ENOTTY || r == -EINVAL)
			return error_setf(
			    ret_error, r,
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

/* The LED's own fd on the uleds device; the error names the fix. */
static int led_open(struct led *l, char **ret_error)
{
	struct led_context *m = l->ctx;
	struct led_conf *c = l->conf;

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
		return error_setf(ret_error, -errno,
				  "%s:%u: [%s] cannot be created: failed to open "
				  "%s: %s%s.",
				  c->file, c->line, c->name, m->uleds_path, strerror(errno),
				  errno == EACCES   ? " (uledsd must run as root)"
				  : errno == EMFILE ? " (one fd per LED: raise LimitNOFILE=)"
						    : "");
	}
	return 0;
}

int led_register(struct led *l, char **ret_error)
{
	struct led_context *m = l->ctx;
	struct led_conf *c = l->conf;
	struct uleds_user_dev dev = {.max_brightness = c->max_brightness};
	int v, r;

	r = led_open(l, ret_error);
	if (r < 0)
		return r;
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
