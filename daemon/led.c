// SPDX-License-Identifier: MIT
/* One virtual LED: registers it with uleds, applies its settings, forwards brightness. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/uleds.h>

#include "backend.h"
#include "bus.h"
#include "conf.h"
#include "fdstore.h"
#include "led.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "state.h"
#include "uleds-ext.h"

static int errorf(char **ret_error, int r, const char *format, ...) _printf_(3, 4);
static int errorf(char **ret_error, int r, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	if (vasprintf(ret_error, format, ap) < 0)
		*ret_error = NULL;
	va_end(ap);
	return r < 0 ? r : -EINVAL;
}

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

int led_read_attr(struct led *l, const char *attr, char **ret)
{
	_cleanup_free_ char *path = NULL;
	char buf[4096];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (asprintf(&path, "%s/%s", l->sysfs, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

int led_current_trigger(struct led *l, char **ret)
{
	_cleanup_free_ char *list = NULL;
	char *open_br, *close_br;
	int r;

	/* The kernel lists all triggers and brackets the active one: "none [timer] oneshot". */
	r = led_read_attr(l, "trigger", &list);
	if (r < 0)
		return r;
	open_br = strchr(list, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br)
		return -EBADMSG;
	*ret = strndup(open_br + 1, (size_t)(close_br - open_br - 1));
	return *ret ? 0 : -ENOMEM;
}

void led_dispatch(struct led *l)
{
	for (size_t i = 0; i < l->n_backends; i++) {
		struct led_backend *b = l->backends[i];
		int r = b->ops->set(b, l->brightness);

		if (r < 0)
			log_debug_errno(r, "%s: backend %s failed to take brightness %u: %m", l->name,
					b->ops->name, l->brightness);
	}
	if (l->conf->default_mode == DEFAULT_BRIGHTNESS_RESTORE)
		led_state_changed(l);
}

static int led_on_io(sd_event_source *s _unused_, int fd, uint32_t revents _unused_, void *userdata)
{
	struct led *l = userdata;
	bool changed = false;
	int v[16];

	/* Edge-triggered: read until drained. uleds keeps only the latest value and returns
	 * one int a read, so a short read means drained: one read() per change, no EAGAIN. */
	for (;;) {
		ssize_t n = read(fd, v, sizeof(v));

		if (n >= (ssize_t)sizeof(int)) {
			l->brightness = (unsigned)(v[n / sizeof(int) - 1] < 0 ? 0 : v[n / sizeof(int) - 1]);
			changed = true;
			if (n == (ssize_t)sizeof(v))
				continue;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		/* A short read or an error: nothing sensible will come from this fd again. */
		log_error_errno(n < 0 ? errno : EIO,
				"%s: reading the uleds device failed (%m); the LED no longer forwards.",
				l->name);
		sd_event_source_set_enabled(l->io, SD_EVENT_OFF);
		break;
	}
	if (changed)
		led_dispatch(l);
	return 0;
}

/* Name of the module that usually provides a trigger, for the error message. */
static void trigger_module_hint(const char *trigger, char *buf, size_t size)
{
	if (strncmp(trigger, "phy", 3) == 0)
		snprintf(buf, size, "it comes from a wireless driver (mac80211); is the interface present?");
	else if (strncmp(trigger, "hci", 3) == 0)
		snprintf(buf, size, "it comes from the bluetooth stack; is the adapter present?");
	else if (strncmp(trigger, "mmc", 3) == 0 || strncmp(trigger, "kbd-", 4) == 0 ||
		 strncmp(trigger, "rfkill", 6) == 0)
		snprintf(buf, size, "it comes from the driver of that device; is it present?");
	else
		snprintf(buf, size, "load its module: modprobe ledtrig-%s", trigger);
}

static int led_apply_trigger(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	_cleanup_free_ char *cur = NULL;
	const char *want = c->trigger ? c->trigger : "none";
	char hint[128];
	int r;

	/* Already in effect (set at registration, or an adopted LED): don't restart it. */
	if (led_current_trigger(l, &cur) >= 0 && streq(cur, want))
		goto attrs;
	free(cur);
	cur = NULL;
	if (c->trigger) {
		struct uleds_trigger t = { 0 };

		snprintf(t.name, sizeof(t.name), "%s", c->trigger);
		r = ioctl(l->fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 ? -errno : 0;
		if (r == -ENOTTY || r == -EINVAL || l->adopted)
			r = led_write_attr(l, "trigger", want);
	} else
		r = led_write_attr(l, "trigger", "none");
	if (r >= 0)
		r = led_current_trigger(l, &cur);
	if (r >= 0 && !streq(cur, want))
		r = -ENOENT;
	if (r < 0) {
		trigger_module_hint(want, hint, sizeof(hint));
		return errorf(ret_error, r, "%s:%u: trigger '%s' is not available for [%s]: %s.",
			      c->file, c->trigger_line ? c->trigger_line : c->line, want, l->name,
			      hint);
	}
attrs:
	for (size_t i = 0; i < c->n_attrs; i++) {
		_cleanup_free_ char *now = NULL;

		/* Rewriting an equal value would restart a running timer: a visible glitch. */
		if (led_read_attr(l, c->attrs[i].key, &now) >= 0 && streq(now, c->attrs[i].value))
			continue;
		r = led_write_attr(l, c->attrs[i].key, c->attrs[i].value);
		if (r == -ENOENT)
			return errorf(ret_error, r,
				      "%s:%u: trigger '%s' has no attribute '%s'; see ls /sys/class/leds/%s/.",
				      c->file, c->attrs[i].line, want, c->attrs[i].key, l->name);
		if (r < 0)
			return errorf(ret_error, r,
				      "%s:%u: the kernel refused trigger.%s = %s (%s); check the value.",
				      c->file, c->attrs[i].line, c->attrs[i].key, c->attrs[i].value,
				      strerror(-r));
	}
	return 0;
}

static int led_apply_default(struct led *l, char **ret_error)
{
	struct led_conf *c = l->conf;
	char buf[16];
	unsigned v;
	int r;

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
		return errorf(ret_error, r, "%s:%u: failed to set the default brightness of [%s]: %s.",
			      c->file, c->line, l->name, strerror(-r));
	return 0;
}

static void led_attach_backend(struct led *l, struct led_backend *b)
{
	int r;

	b->led = l;
	r = b->ops->attach(b, l->manager);
	if (r < 0) {
		led_backend_set_state(b, false, "failed: %s", strerror(-r));
		log_error_errno(r, "%s:%u: [%s] backend %s failed to start: %m; the LED works without it.",
				b->file, b->line, l->name, b->ops->name);
	} else if (!b->state)
		led_backend_set_state(b, true, "attached");
}

/* Registration for the in-tree uleds, which lets the LED core rename a name clash to NAME_1
 * silently: refuse a name that exists first, and check the node is there afterwards. */
static int led_register_write(struct led *l, struct uleds_user_dev *dev, char **ret_error)
{
	struct led_conf *c = l->conf;
	struct stat st;

	if (stat(l->sysfs, &st) == 0)
		return errorf(ret_error, -EEXIST,
			      "%s:%u: an LED named '%s' already exists (another driver or program made it); choose another name.",
			      c->file, c->line, l->name);
	if (write(l->fd, dev, sizeof(*dev)) != (ssize_t)sizeof(*dev))
		return -errno;
	if (stat(l->sysfs, &st) < 0)
		return errorf(ret_error, -ENOENT,
			      "%s:%u: LED '%s' was registered but %s is missing (renamed by the LED core after a name clash?); choose another name.",
			      c->file, c->line, l->name, l->sysfs);
	return 0;
}

static int led_register(struct led *l, char **ret_error)
{
	struct manager *m = l->manager;
	struct led_conf *c = l->conf;
	struct uleds_user_dev dev = { .max_brightness = c->max_brightness };
	int v, r;

	l->fd = open(m->uleds_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (l->fd < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			return errorf(ret_error, -errno,
				      "%s does not exist: load the uleds module (modprobe uleds; it ships in uledsd's kmod/, installable with DKMS).",
				      m->uleds_path);
		return errorf(ret_error, -errno, "Failed to open %s: %s%s.", m->uleds_path,
			      strerror(errno), errno == EACCES ? " (uledsd must run as root)" : "");
	}
	/* A trigger set before the device exists is attached at registration: no window in
	 * which the LED runs without it. A default brightness must come before the trigger,
	 * so then the trigger follows later. */
	if (c->trigger && c->default_mode == DEFAULT_BRIGHTNESS_UNSET && m->uleds_ext != 0) {
		struct uleds_trigger t = { 0 };

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
		return errorf(ret_error, r, "%s:%u: an LED named '%s' already exists; choose another name.",
			      c->file, c->line, l->name);
	if (r < 0)
		return errorf(ret_error, r, "%s:%u: the kernel refused to create LED '%s': %s.",
			      c->file, c->line, l->name, strerror(-r));
	/* The first read after registration returns the initial value at once. */
	if (read(l->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
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

int led_new(struct manager *m, struct led_conf *conf, int adopt_fd, struct led **ret,
	    char **ret_error)
{
	struct led *l;
	int r;

	*ret_error = NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		led_conf_free(conf);
		safe_close(adopt_fd);
		return -ENOMEM;
	}
	l->manager = m;
	l->conf = conf;
	l->name = conf->name;
	l->fd = -1;
	l->max_brightness = (unsigned)conf->max_brightness;
	if (asprintf(&l->sysfs, "%s/%s", m->sysfs_leds, conf->name) < 0) {
		l->sysfs = NULL;
		r = -ENOMEM;
		goto fail;
	}
	if (adopt_fd >= 0) {
		/* The fd store kept the LED alive: it exists with its trigger still running. */
		l->fd = adopt_fd;
		l->adopted = true;
		r = led_read_brightness(l);
		if (r < 0) {
			r = errorf(ret_error, r, "%s:%u: adopted LED '%s' has no readable %s/brightness.",
				   conf->file, conf->line, l->name, l->sysfs);
			goto fail;
		}
		/* The configured trigger may have changed while uledsd was down (one set at run
		 * time through sysfs or D-Bus, with none configured, stays). */
		r = conf->trigger ? led_apply_trigger(l, ret_error) : 0;
		if (r < 0)
			goto fail;
	} else {
		r = led_register(l, ret_error);
		if (r < 0)
			goto fail;
		/* A new LED has no trigger and the brightness just read: touch sysfs only when
		 * the configuration asks for something else (1000 LEDs start in a blink). */
		if (conf->default_mode != DEFAULT_BRIGHTNESS_UNSET || conf->trigger) {
			r = led_apply_default(l, ret_error);
			if (r >= 0 && conf->trigger)
				r = led_apply_trigger(l, ret_error);
			if (r < 0)
				goto fail;
			(void)led_read_brightness(l);
		}
	}
	/* Edge-triggered: sd-event dispatches one source per iteration, and level-triggered fds
	 * not read yet would all be reported again each time (quadratic in a burst over many
	 * LEDs; measured 837 vs 14113 changes/s over 1000 LEDs). */
	r = sd_event_add_io(m->event, &l->io, l->fd, EPOLLIN | EPOLLET, led_on_io, l);
	if (r < 0) {
		r = errorf(ret_error, r, "Failed to watch LED '%s': %s.", l->name, strerror(-r));
		goto fail;
	}
	(void)sd_event_source_set_description(l->io, "led");
	l->backends = conf->backends;
	l->n_backends = conf->n_backends;
	conf->backends = NULL;
	conf->n_backends = 0;
	for (size_t i = 0; i < l->n_backends; i++)
		led_attach_backend(l, l->backends[i]);
	led_dispatch(l);
	if (!l->adopted)
		fdstore_add(l);
	bus_led_added(l);
	*ret = l;
	return 0;
fail:
	led_free(l);
	return r;
}

struct led *led_free(struct led *l)
{
	if (!l)
		return NULL;
	if (l->io)
		bus_led_removed(l);
	for (size_t i = 0; i < l->n_backends; i++) {
		l->backends[i]->ops->detach(l->backends[i]);
		led_backend_free(l->backends[i]);
	}
	free(l->backends);
	led_state_free(l);
	sd_event_source_disable_unref(l->io);
	safe_close(l->fd);
	led_conf_free(l->conf);
	free(l->sysfs);
	free(l);
	return NULL;
}

enum led_change led_compare(const struct led *l, const struct led_conf *conf)
{
	/* l->conf gave its backends to l: compare with those. */
	struct led_conf view = *l->conf;

	enum led_change c;

	view.backends = l->backends;
	view.n_backends = l->n_backends;
	c = led_conf_compare(&view, conf);
	/* What failed to apply last time (a trigger module not loaded yet) is tried again. */
	if (c == LED_CHANGE_NONE && l->apply_failed)
		c = LED_CHANGE_UPDATE;
	return c;
}

static bool attrs_same(const struct led_conf *a, const struct led_conf *b)
{
	if ((a->trigger == NULL) != (b->trigger == NULL) ||
	    (a->trigger && !streq(a->trigger, b->trigger)) || a->n_attrs != b->n_attrs)
		return false;
	for (size_t i = 0; i < a->n_attrs; i++)
		if (!streq(a->attrs[i].key, b->attrs[i].key) ||
		    !streq(a->attrs[i].value, b->attrs[i].value))
			return false;
	return true;
}

int led_update(struct led *l, struct led_conf *conf, char **ret_error)
{
	struct led_conf *old = l->conf;
	struct led_backend **keep;
	size_t n_keep = 0;
	bool default_changed, trigger_changed;
	int r = 0;

	*ret_error = NULL;
	default_changed = l->apply_failed || old->default_mode != conf->default_mode ||
			  old->default_brightness != conf->default_brightness;
	trigger_changed = l->apply_failed || !attrs_same(old, conf);

	keep = calloc(conf->n_backends + 1, sizeof(*keep));
	if (!keep) {
		led_conf_free(conf);
		return -ENOMEM;
	}
	/* Backends whose settings are unchanged stay attached (no glitch on a GPIO line);
	 * the others go first, so a resource they held is free for their successor. */
	for (size_t i = 0; i < conf->n_backends; i++) {
		struct led_backend *nb = conf->backends[i];

		for (size_t j = 0; j < l->n_backends; j++) {
			struct led_backend *ob = l->backends[j];

			if (ob && ob->ops == nb->ops && (!ob->ops->same || ob->ops->same(ob, nb))) {
				keep[i] = ob;
				l->backends[j] = NULL;
				break;
			}
		}
	}
	for (size_t j = 0; j < l->n_backends; j++)
		if (l->backends[j]) {
			l->backends[j]->ops->detach(l->backends[j]);
			led_backend_free(l->backends[j]);
		}
	free(l->backends);
	for (size_t i = 0; i < conf->n_backends; i++) {
		if (keep[i]) {
			led_backend_free(conf->backends[i]);
			conf->backends[i] = keep[i];
			n_keep++;
		} else
			led_attach_backend(l, conf->backends[i]);
	}
	l->backends = conf->backends;
	l->n_backends = conf->n_backends;
	conf->backends = NULL;
	conf->n_backends = 0;
	free(keep);

	l->conf = conf;
	l->name = conf->name;
	led_conf_free(old);
	if (default_changed)
		r = led_apply_default(l, ret_error);
	if (r >= 0 && (trigger_changed || default_changed))
		r = led_apply_trigger(l, ret_error);
	l->apply_failed = r < 0;
	(void)led_read_brightness(l);
	if (n_keep < l->n_backends)
		led_dispatch(l);
	bus_led_backends_changed(l);
	return r;
}
