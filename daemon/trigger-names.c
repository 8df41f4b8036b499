// SPDX-License-Identifier: MIT
/* Trigger names: the running kernel's list, its ledtrig modules, the nearest of a typo. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "led-sysfs.h"
#include "string-util.h"
#include "trigger-names.h"

bool trigger_module_exists(const char *trigger)
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

const char *trigger_device_source(const char *trigger)
{
	if (strncmp(trigger, "phy", 3) == 0)
		return "it comes from a wireless driver (mac80211); is the interface present?";
	if (strncmp(trigger, "hci", 3) == 0)
		return "it comes from the bluetooth stack; is the adapter present?";
	if (strncmp(trigger, "mmc", 3) == 0 || strncmp(trigger, "kbd-", 4) == 0 ||
	    strncmp(trigger, "rfkill", 6) == 0)
		return "it comes from the driver of that device; is it present?";
	return NULL;
}

const char *trigger_nearest(char *list, const char *trigger)
{
	const char *nearest = NULL;
	unsigned best = UINT_MAX;
	char *save = NULL;

	for (char *w = strtok_r(list, " []\n", &save); w; w = strtok_r(NULL, " []\n", &save)) {
		unsigned dist = edit_distance(w, trigger);

		if (dist < best && !streq(w, "none")) {
			best = dist;
			nearest = w;
		}
	}
	return best <= 3 ? nearest : NULL;
}

void trigger_hint(const char *trigger, char *list, char *buf, size_t size)
{
	const char *source = trigger_device_source(trigger), *nearest;

	if (source)
		snprintf(buf, size, "%s", source);
	else if (trigger_module_exists(trigger))
		snprintf(buf, size, "load its module (modprobe ledtrig-%s)", trigger);
	else if (list && (nearest = trigger_nearest(list, trigger)))
		snprintf(buf, size, "no module ledtrig-%s exists; did you mean '%s'?", trigger,
			 nearest);
	else
		snprintf(buf, size, "no module ledtrig-%s exists; check the name", trigger);
}

int trigger_list_read(const char *sysfs_leds, char **ret)
{
	_cleanup_(closedirp) DIR *d = opendir(sysfs_leds);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", sysfs_leds, de->d_name);
		if (sysfs_attr_read(path, "trigger", ret) >= 0)
			return 0;
	}
	return -ENOENT;
}

static bool trigger_listed(const char *list, const char *trigger)
{
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	for (char *w = copy ? strtok_r(copy, " []\n", &save) : NULL; w;
	     w = strtok_r(NULL, " []\n", &save))
		if (streq(w, trigger))
			return true;
	return false;
}

static bool modules_known(void)
{
	char path[PATH_MAX];
	struct utsname u;

	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	return access(path, R_OK) == 0;
}

int trigger_check(const char *list, const char *trigger, char **ret_warning)
{
	_cleanup_free_ char *copy = NULL;
	const char *nearest;

	*ret_warning = NULL;
	if (streq(trigger, "none") || (list && trigger_listed(list, trigger)) ||
	    trigger_module_exists(trigger) || trigger_device_source(trigger))
		return 0;
	/* No LED to list the built-in triggers and no module list: nothing can be said. */
	if (!list && !modules_known())
		return 0;
	copy = list ? strdup(list) : NULL;
	nearest = copy ? trigger_nearest(copy, trigger) : NULL;
	if (!list)
		return error_setf(ret_warning, -ENOENT,
				  "no module ledtrig-%s exists in this kernel (and no LED is there "
				  "to ask which triggers are built in); check the name",
				  trigger);
	return error_setf(ret_warning, -ENOENT,
			  "trigger '%s' is not registered in this kernel and no module "
			  "ledtrig-%s exists%s%s%s",
			  trigger, trigger, nearest ? "; did you mean '" : "",
			  nearest ? nearest : "", nearest ? "'?" : " (check the name)");
}
