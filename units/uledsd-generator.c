// SPDX-License-Identifier: MIT
/* uledsd-generator: a systemd generator (systemd.generator(7)) that opens uledsd.service's
 * sandbox just as far as the configuration needs. The shipped unit keeps /sys read-only and
 * has no network namespace of the host; a backend that writes sysfs and follows its device
 * through uevents (pwm) needs its device's directory writable, AF_NETLINK and the host's
 * network namespace (the kernel sends uevents only there). Run at boot and on every
 * "systemctl daemon-reload"; with no such backend configured it writes nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "conf.h"
#include "string-util.h"

#define UNIT "uledsd.service"
#define DROP_IN "50-uledsd-sysfs.conf"

struct need {
	char **paths; /* distinct directories to open, NULL-terminated */
	size_t n_paths;
	char **why; /* "[LED] pwm.chip ... -> PATH" comment lines */
	size_t n_why;
};

static int collect(const struct conf *c, const char *sysfs, struct need *need)
{
	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++) {
			const struct led_backend *b = c->leds[i]->backends[j];
			char *path, *line;

			if (!b->ops->sysfs_writes)
				continue;
			path = b->ops->sysfs_writes(b, sysfs);
			if (!path || asprintf(&line, "[%s] %s backend (%s:%u): %s", c->leds[i]->name,
					      b->ops->name, b->file, b->line, path) < 0) {
				free(path);
				return -ENOMEM;
			}
			if (strv_push(&need->why, &need->n_why, line) < 0)
				return -ENOMEM;
			if (strv_contains(need->paths, path))
				free(path);
			else if (strv_push(&need->paths, &need->n_paths, path) < 0)
				return -ENOMEM;
		}
	return 0;
}

static int write_drop_in(const char *dir, const struct need *need, const char *sysfs)
{
	_cleanup_free_ char *unit_dir = NULL, *path = NULL, *all = NULL;
	FILE *f;

	if (asprintf(&unit_dir, "%s/" UNIT ".d", dir) < 0 ||
	    asprintf(&path, "%s/" DROP_IN, unit_dir) < 0 || asprintf(&all, "%s/devices", sysfs) < 0)
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
	fprintf(f, "[Service]\n");
	/* "-": a device that goes away before the start must not fail the unit. */
	if (strv_contains(need->paths, all))
		fprintf(f, "# A device not found now may appear anywhere below %s.\n"
			   "ReadWritePaths=-%s\n",
			all, all);
	else
		for (size_t i = 0; i < need->n_paths; i++)
			fprintf(f, "ReadWritePaths=-%s\n", need->paths[i]);
	fprintf(f, "RestrictAddressFamilies=AF_UNIX AF_NETLINK\n"
		   "PrivateNetwork=no\n");
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
	if (r >= 0 && need.n_paths > 0)
		r = write_drop_in(argv[1], &need, sysfs);
	strv_free(need.paths);
	strv_free(need.why);
	if (r < 0) {
		fprintf(stderr, "uledsd-generator: failed to write the drop-in for " UNIT
				" (the pwm backend will find sysfs read-only): %s\n",
			strerror(-r));
		return 1;
	}
	return 0;
}
