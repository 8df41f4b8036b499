// SPDX-License-Identifier: MIT
/* uledsd-generator: a systemd generator (systemd.generator(7)) that opens uledsd.service's
 * sandbox just as far as the configuration needs. The shipped unit keeps /sys read-only and
 * has no network namespace of the host; a backend that writes sysfs and follows its device
 * through uevents (pwm) needs its device's directory writable, AF_NETLINK and the host's
 * network namespace (the kernel sends uevents only there). Run at boot and on every
 * "systemctl daemon-reload"; with no such backend configured it writes nothing.
 *
 * It fails closed: only a device's own directory is opened. A chip that is nowhere in sysfs
 * when the generator runs (its bus or module not there yet) opens nothing, where it once opened
 * all of /sys/devices; the drop-in and the kernel log name it and say how to open it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "conf-files.h"
#include "conf-load.h"
#include "conf.h"
#include "string-util.h"

#define UNIT "uledsd.service"
#define DROP_IN "50-uledsd-sysfs.conf"

struct need {
	char **paths; /* distinct directories to open, NULL-terminated */
	size_t n_paths;
	char **why; /* "[LED] pwm backend (FILE:LINE): PATH" comment lines */
	size_t n_why;
	char **missing; /* "[LED] pwm backend (FILE:LINE): PWM CHIP channel N" opened nothing */
	size_t n_missing;
};

/* Generators have no syslog and, under systemd 252, stderr is /dev/null: the kernel log is
 * where their messages go (systemd.generator(7)); journalctl -k -b shows them. Run by hand or
 * by a test (no $SYSTEMD_SCOPE): stderr. */
/* The kernel takes records up to 1024 bytes less its own header (LOG_LINE_MAX, 992). */
#define LOG_LINE 960

_printf_(1, 2) static void log_warning(const char *format, ...)
{
	char buf[LOG_LINE];
	va_list ap;
	int fd = -1, n, m;

	n = snprintf(buf, sizeof(buf), "<4>uledsd-generator: ");
	va_start(ap, format);
	m = vsnprintf(buf + n, sizeof(buf) - n - 1, format, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += (size_t)m < sizeof(buf) - n - 1 ? m : (int)(sizeof(buf) - n - 2);
	buf[n++] = '\n';
	/* One write() is one record of the kernel log; not dprintf(), whose lseek(SEEK_CUR)
	 * /dev/kmsg refuses (EINVAL). */
	if (getenv("SYSTEMD_SCOPE"))
		fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, n) != n)
		fprintf(stderr, "%.*s", n - 3, buf + 3);
	if (fd >= 0)
		close(fd);
}

/* A device's own directory below SYSFS/devices: nothing wider is ever opened. */
static bool is_device_dir(const char *path, const char *sysfs)
{
	size_t n = strlen(sysfs);

	return strncmp(path, sysfs, n) == 0 && strncmp(path + n, "/devices/", 9) == 0 &&
	       path[n + 9] && !strstr(path + n, "/..");
}

static int collect(const struct conf *c, const char *sysfs, struct need *need)
{
	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++) {
			const struct led_backend *b = c->leds[i]->backends[j];
			_cleanup_free_ char *path = NULL, *what = NULL;
			char *line;

			if (!b->ops->sysfs_writes)
				continue;
			path = b->ops->sysfs_writes(b, sysfs);
			if (!path)
				return -ENOMEM;
			if (!is_device_dir(path, sysfs)) {
				what = b->ops->claim ? b->ops->claim(b) : NULL;
				if (asprintf(&line, "[%s] %s backend (%s:%u): %s", c->leds[i]->name,
					     b->ops->name, b->file, b->line,
					     what ? what : "its device") < 0 ||
				    strv_push(&need->missing, &need->n_missing, line) < 0)
					return -ENOMEM;
				log_warning(
				    "%s is not in %s now: nothing is opened for it in " UNIT
				    "'s sandbox, so this LED's backend finds sysfs read-only. "
				    "Name the chip by its device (ls %s/bus/*/devices), found "
				    "before its driver binds; or once it exists run: systemctl "
				    "daemon-reload && systemctl restart uledsd",
				    line, sysfs, sysfs);
				continue;
			}
			if (asprintf(&line, "[%s] %s backend (%s:%u): %s", c->leds[i]->name,
				     b->ops->name, b->file, b->line, path) < 0 ||
			    strv_push(&need->why, &need->n_why, line) < 0)
				return -ENOMEM;
			if (!strv_contains(need->paths, path) &&
			    strv_push(&need->paths, &need->n_paths, TAKE_PTR(path)) < 0)
				return -ENOMEM;
		}
	return 0;
}

static int write_drop_in(const char *dir, const struct need *need, const char *sysfs)
{
	_cleanup_free_ char *unit_dir = NULL, *path = NULL;
	FILE *f;

	if (asprintf(&unit_dir, "%s/" UNIT ".d", dir) < 0 ||
	    asprintf(&path, "%s/" DROP_IN, unit_dir) < 0)
		return -ENOMEM;
	if (mkdir(unit_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "# Written by uledsd-generator at boot or \"systemctl daemon-reload\": these LEDs\n"
		   "# of the configuration write below %s and follow their device through\n"
		   "# uevents (uledsd.conf(5), \"Under the shipped systemd unit\").\n",
		sysfs);
	for (size_t i = 0; i < need->n_why; i++)
		fprintf(f, "#   %s\n", need->why[i]);
	if (need->n_missing > 0) {
		fprintf(
		    f,
		    "# Not in %s when this was written, so nothing is opened for them (their\n"
		    "# backends find sysfs read-only). Name a chip by its device, found before\n"
		    "# its driver binds, or once it exists: systemctl daemon-reload && systemctl\n"
		    "# restart uledsd.\n",
		    sysfs);
		for (size_t i = 0; i < need->n_missing; i++)
			fprintf(f, "#   %s\n", need->missing[i]);
	}
	/* Nothing found: the sandbox stays as shipped, and this file says why. */
	if (need->n_paths > 0) {
		fprintf(f, "[Service]\n");
		/* "-": a device that goes away before the start must not fail the unit. */
		for (size_t i = 0; i < need->n_paths; i++)
			fprintf(f, "ReadWritePaths=-%s\n", need->paths[i]);
		fprintf(f, "RestrictAddressFamilies=AF_UNIX AF_NETLINK\n"
			   "PrivateNetwork=no\n");
	}
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	struct need need = {0};
	const char *sysfs = getenv("ULEDSD_SYSFS"); /* tests */
	const char *conf_dir = getenv("ULEDSD_CONFIG_DIR"); /* tests */
	const char *test_dirs[] = {conf_dir, NULL};
	int r;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "Usage: %s NORMAL_DIR [EARLY_DIR LATE_DIR]\n"
				"A systemd generator: systemd runs it at boot and on daemon-reload.\n",
			argv[0]);
		return 2;
	}
	if (!sysfs || !*sysfs)
		sysfs = "/sys";
	/* Errors of the configuration are uledsd's to report; the valid LEDs count here. */
	r = conf_load(conf_dir && *conf_dir ? test_dirs : conf_default_dirs, &c);
	if (r >= 0)
		r = collect(c, sysfs, &need);
	if (r >= 0 && need.n_why + need.n_missing > 0)
		r = write_drop_in(argv[1], &need, sysfs);
	strv_free(need.paths);
	strv_free(need.why);
	strv_free(need.missing);
	if (r < 0) {
		log_warning("Failed to write the drop-in for " UNIT
			    " (the pwm backend will find sysfs read-only): %s",
			    strerror(-r));
		return 1;
	}
	return 0;
}
