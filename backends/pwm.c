// SPDX-License-Identifier: MIT
/* The pwm backend: dims a PWM channel (one per colour channel) through /sys/class/pwm. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pwm-conf.h"
#include "string-util.h"

/* Per manager: kernel uevents for chips that come and go (PWM chips have no /dev node and
 * kernfs sends no inotify events; see uledsd.conf(5) "PWM BACKEND"). */
struct pwm_watcher {
	int fd;
	sd_event_source *io;
	struct pwm_backend *backends;
};

static const char *sysfs_pwm(void)
{
	const char *s = getenv("ULEDSD_SYSFS_PWM"); /* tests */

	return s && *s ? s : "/sys/class/pwm";
}

/* ---- sysfs ---- */

static int write_attr(const char *dir, const char *attr, const char *value)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(value);

	if (asprintf(&path, "%s/%s", dir, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		return -errno;
	return 0;
}

static int write_attr_u(const char *dir, const char *attr, unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	return write_attr(dir, attr, buf);
}

static int read_attr_ull(const char *dir, const char *attr, unsigned long long *ret)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_(fclosep) FILE *f = NULL;

	if (asprintf(&path, "%s/%s", dir, attr) < 0)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	return fscanf(f, "%llu", ret) == 1 ? 0 : -EIO;
}

/* The chip named p->chip now: pwmchipN itself, or the one whose device is called so. */
static int find_chip(struct pwm_backend *p, char **ret_dir, char **ret_device)
{
	_cleanup_(closedirp) DIR *d = opendir(sysfs_pwm());
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		_cleanup_free_ char *dir = NULL, *link = NULL;
		char target[PATH_MAX];
		const char *device;
		ssize_t n;

		if (strncmp(de->d_name, "pwmchip", 7) != 0)
			continue;
		if (asprintf(&dir, "%s/%s", sysfs_pwm(), de->d_name) < 0 ||
		    asprintf(&link, "%s/device", dir) < 0)
			return -ENOMEM;
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		device = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
		if (!streq(p->chip, de->d_name) && !streq(p->chip, device))
			continue;
		*ret_device = strdup(device);
		*ret_dir = TAKE_PTR(dir);
		return *ret_device ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

/* ---- export claims: /run/uledsd/pwm/DEVICE:CHANNEL ---- */

static char *claim_path(const struct pwm_backend *p, unsigned ch)
{
	const char *rt = getenv("RUNTIME_DIRECTORY");
	char *s = NULL;

	if (rt && *rt)
		return asprintf(&s, "%.*s/pwm/%s:%u", (int)strcspn(rt, ":"), rt, p->device, ch) < 0
			   ? NULL
			   : s;
	return asprintf(&s, "/run/uledsd/pwm/%s:%u", p->device, ch) < 0 ? NULL : s;
}

static bool claim_exists(const struct pwm_backend *p, unsigned ch)
{
	_cleanup_free_ char *path = claim_path(p, ch);

	return path && access(path, F_OK) == 0;
}

/* Written before the export, so a crash right after it still leaves the claim. */
static int claim_add(const struct pwm_backend *p, unsigned ch)
{
	_cleanup_free_ char *path = claim_path(p, ch);
	_cleanup_close_ int fd = -1;
	char *slash;

	if (!path)
		return -ENOMEM;
	slash = strrchr(path, '/');
	*slash = 0;
	*strrchr(path, '/') = 0;
	(void)mkdir(path, 0755); /* the runtime directory, without systemd */
	path[strlen(path)] = '/';
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : 0;
}

static void claim_remove(const struct pwm_backend *p, unsigned ch)
{
	_cleanup_free_ char *path = claim_path(p, ch);

	if (path)
		(void)unlink(path);
}

/* ---- runtime ---- */

static const char *led_name(const struct pwm_backend *p)
{
	return p->self && p->self->ctx.led_name ? p->self->ctx.led_name : "?";
}

/* The share of one channel as a duty cycle in ns. */
static unsigned long long duty_of(const struct pwm_backend *p, unsigned brightness, unsigned i)
{
	unsigned max = p->self->ctx.max_brightness;
	unsigned v = led_backend_channel(p->self, brightness, i);
	unsigned long long period = pwm_period_of(p);
	double l, t, y;

	if (!max || !v)
		return 0;
	if (v >= max)
		return period;
	if (p->curve == PWM_CURVE_LINEAR)
		return period * v / max;
	/* CIE 1931: lightness L* in 0..100 to relative luminance Y. */
	l = 100.0 * v / max;
	t = (l + 16) / 116;
	y = l <= 8 ? l / 903.3 : t * t * t;
	return (unsigned long long)(y * (double)period + 0.5);
}

static void pwm_report(struct pwm_backend *p, bool ok, int level, const char *format, ...)
    _printf_(4, 5);
static void pwm_report(struct pwm_backend *p, bool ok, int level, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg)
		led_backend_report(p->self, ok, level, NULL, msg);
}

/* Period, polarity, duty, enable: in an order 6.1 accepts too (it refuses a duty above the
 * period and a period of 0 even while disabled; 6.12 does not). */
static int channel_configure(struct pwm_backend *p, const char *dir, unsigned i)
{
	unsigned long long period = pwm_period_of(p), old = 0;
	int r;

	(void)write_attr(dir, "enable", "0");
	if (read_attr_ull(dir, "period", &old) >= 0 && old > 0)
		(void)write_attr(dir, "duty_cycle", "0");
	r = write_attr_u(dir, "period", period);
	if (r >= 0)
		r = write_attr(dir, "polarity", p->inversed ? "inversed" : "normal");
	if (r >= 0)
		r = write_attr_u(dir, "duty_cycle", duty_of(p, p->brightness, i));
	if (r >= 0)
		r = write_attr(dir, "enable", "1");
	return r;
}

static void channels_release(struct pwm_backend *p, bool chip_gone)
{
	for (unsigned i = 0; i < p->n_channels; i++) {
		_cleanup_free_ char *dir = NULL;

		if (!p->exported[i])
			continue;
		p->exported[i] = false;
		if (!chip_gone && asprintf(&dir, "%s/pwm%u", p->chip_dir, p->channel[i]) >= 0) {
			(void)write_attr(dir, "duty_cycle", "0");
			(void)write_attr(dir, "enable", "0");
			(void)write_attr_u(p->chip_dir, "unexport", p->channel[i]);
		}
		claim_remove(p, p->channel[i]);
	}
}

/* Export channel i (or take it back when our claim says it is ours) and configure it.
 * Returns < 0 when it cannot be had; the status says why. */
static int channel_take(struct pwm_backend *p, unsigned i, unsigned long long npwm)
{
	_cleanup_free_ char *dir = NULL;
	unsigned ch = p->channel[i];
	int r;

	if (ch >= npwm) {
		pwm_report(p, false, LOG_ERR,
			   "channel %u is past the %llu channels of %s (%s); fix pwm.channel", ch,
			   npwm, p->device, p->chip_dir);
		return -ERANGE;
	}
	if (asprintf(&dir, "%s/pwm%u", p->chip_dir, ch) < 0)
		return -ENOMEM;
	/* Exported already: ours when our claim says so (a crash left it), else someone
	 * else's. */
	if (access(dir, F_OK) == 0 && !claim_exists(p, ch)) {
		pwm_report(p, false, LOG_ERR,
			   "PWM %u of %s is exported by someone else (/sys/kernel/debug/pwm shows "
			   "it requested by sysfs); unexport it (echo %u > %s/unexport) or pick "
			   "another channel, then reload",
			   ch, p->device, ch, p->chip_dir);
		return -EBUSY;
	}
	r = claim_add(p, ch);
	if (r >= 0 && access(dir, F_OK) < 0)
		r = write_attr_u(p->chip_dir, "export", ch);
	if (r == -EBUSY) {
		claim_remove(p, ch);
		pwm_report(p, false, LOG_ERR,
			   "PWM %u of %s is in use by a kernel driver (/sys/kernel/debug/pwm names "
			   "it); pick another channel or unbind that driver, then reload",
			   ch, p->device);
		return r;
	}
	if (r >= 0) {
		p->exported[i] = true;
		r = channel_configure(p, dir, i);
	}
	if (r < 0)
		pwm_report(p, false, LOG_ERR, "failed to set up PWM %u of %s: %s%s", ch, p->device,
			   strerror(-r),
			   r == -EROFS || r == -EACCES
			       ? " (the unit's sandbox keeps sysfs read-only until "
				 "uledsd-generator opens it for the chips configured: run "
				 "'systemctl daemon-reload && systemctl restart uledsd'; "
				 "uledsd.conf(5), \"Under the shipped systemd unit\")"
			       : "");
	return r;
}

/* Find the chip, then take every channel, or none. */
static void pwm_try_attach(struct pwm_backend *p)
{
	_cleanup_free_ char *chip_dir = NULL, *device = NULL;
	unsigned long long npwm = 0;
	int r;

	if (p->chip_dir)
		return;
	r = find_chip(p, &chip_dir, &device);
	if (r < 0) {
		pwm_report(p, false, LOG_INFO,
			   r == -ENOENT ? "waiting for PWM chip %s (not in %s yet)"
					: "waiting for PWM chip %s (%s: %s)",
			   p->chip, sysfs_pwm(), strerror(-r));
		return;
	}
	free(p->device);
	p->device = TAKE_PTR(device);
	p->chip_dir = TAKE_PTR(chip_dir);
	(void)read_attr_ull(p->chip_dir, "npwm", &npwm);
	for (unsigned i = 0; i < p->n_channels; i++)
		if (channel_take(p, i, npwm) < 0) {
			channels_release(p, false);
			free(p->chip_dir);
			p->chip_dir = NULL;
			return;
		}
	pwm_report(p, true, LOG_INFO, "attached to %s (%s), period %llu ns", p->device,
		   p->chip_dir, pwm_period_of(p));
}

static void pwm_chip_gone(struct pwm_backend *p)
{
	channels_release(p, true);
	free(p->chip_dir);
	p->chip_dir = NULL;
	pwm_report(p, false, LOG_WARNING,
		   "waiting for PWM chip %s (removed); dimmed again when it comes back", p->chip);
}

/* ---- uevents ---- */

/* "add@/devices/.../pwm/pwmchip3\0ACTION=add\0...SUBSYSTEM=pwm\0": chips only. */
static int on_uevent(sd_event_source *s _unused_, int fd, uint32_t revents _unused_,
		     void *userdata)
{
	struct pwm_watcher *w = userdata;
	char buf[8192];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		const char *chip, *at;
		bool add, remove, pwm = false;

		if (n <= 0)
			return 0;
		buf[n] = 0;
		at = strchr(buf, '@');
		chip = strrchr(buf, '/');
		if (!at || !chip || strncmp(chip + 1, "pwmchip", 7) != 0)
			continue;
		for (const char *k = buf + strlen(buf) + 1; k < buf + n; k += strlen(k) + 1)
			pwm = pwm || streq(k, "SUBSYSTEM=pwm");
		add = strncmp(buf, "add@", 4) == 0;
		remove = strncmp(buf, "remove@", 7) == 0;
		if (!pwm || (!add && !remove))
			continue;
		for (struct pwm_backend *p = w->backends; p; p = p->next) {
			if (remove && p->chip_dir && streq(strrchr(p->chip_dir, '/'), chip))
				pwm_chip_gone(p);
			else if (add && !p->chip_dir)
				pwm_try_attach(p);
		}
	}
}

static int pwm_watcher_new(sd_event *event, const char *dev_dir _unused_, void **ret)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	struct pwm_watcher *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (w->fd < 0 || bind(w->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* Without uevents the backend still works; chips plugged in later are not
		 * seen until a reload. */
		log_warning_errno(errno,
				  "pwm: cannot listen to kernel uevents (%m); PWM chips that appear "
				  "later are taken at the next reload.");
		w->fd = safe_close(w->fd);
		*ret = w;
		return 0;
	}
	r = sd_event_add_io(event, &w->io, w->fd, EPOLLIN, on_uevent, w);
	if (r < 0) {
		safe_close(w->fd);
		free(w);
		return r;
	}
	(void)sd_event_source_set_description(w->io, "pwm-uevents");
	*ret = w;
	return 0;
}

static void pwm_watcher_free(void *shared)
{
	struct pwm_watcher *w = shared;

	if (!w)
		return;
	sd_event_source_disable_unref(w->io);
	safe_close(w->fd);
	free(w);
}

/* ---- ops ---- */

static int pwm_attach(struct led_backend *b)
{
	struct pwm_backend *p = b->priv;

	p->self = b;
	p->brightness = b->ctx.brightness;
	p->watcher = b->ctx.shared;
	if (!p->watcher)
		return -EINVAL;
	p->next = p->watcher->backends;
	p->watcher->backends = p;
	pwm_try_attach(p);
	return 0;
}

static int pwm_set(struct led_backend *b, unsigned brightness)
{
	struct pwm_backend *p = b->priv;
	int r = 0;

	p->brightness = brightness;
	for (unsigned i = 0; p->chip_dir && i < p->n_channels; i++) {
		_cleanup_free_ char *dir = NULL;
		int k;

		if (asprintf(&dir, "%s/pwm%u", p->chip_dir, p->channel[i]) < 0)
			return -ENOMEM;
		k = write_attr_u(dir, "duty_cycle", duty_of(p, brightness, i));
		if (k == -ENOENT || k == -ENODEV) {
			pwm_chip_gone(p);
			return k;
		}
		r = r < 0 ? r : k;
	}
	return r;
}

static void pwm_detach(struct led_backend *b)
{
	struct pwm_backend *p = b->priv;

	if (p->watcher)
		for (struct pwm_backend **q = &p->watcher->backends; *q; q = &(*q)->next)
			if (*q == p) {
				*q = p->next;
				break;
			}
	p->watcher = NULL;
	if (p->chip_dir)
		log_debug("%s: pwm: disabling and unexporting on %s.", led_name(p), p->device);
	channels_release(p, false);
	free(p->chip_dir);
	free(p->device);
	p->chip_dir = p->device = NULL;
}

const struct backend_ops backend_pwm = {
    .name = "pwm",
    .hardware = true,
    .priv_size = sizeof(struct pwm_backend),
    .shared_new = pwm_watcher_new,
    .shared_free = pwm_watcher_free,
    .parse = pwm_parse,
    .verify = pwm_verify,
    .claim = pwm_claim,
    .sysfs_writes = pwm_sysfs_writes,
    .attach = pwm_attach,
    .set = pwm_set,
    .detach = pwm_detach,
    .same = pwm_same,
    .free_priv = pwm_free_priv,
};
