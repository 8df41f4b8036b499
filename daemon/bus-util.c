// SPDX-License-Identifier: MIT
/* What the D-Bus files share: an LED's object path and the reader of an a(ss) argument. */
#include <string.h>

#include "bus-util.h"
#include "led-types.h"
#include "macro.h"
#include "manager.h"
#include "string-util.h"
#include "uledsd-bus.h"

int bus_led_path(const struct led *l, char **ret)
{
	return sd_bus_path_encode(ULEDSD_LED_PATH_PREFIX, l->name, ret);
}

/* The settings, bounded before anything is looked at: a call that waits for polkit keeps its
 * message, and the configuration parser is no place for megabytes. -E2BIG: too many. */
int bus_read_pairs(sd_bus_message *msg, size_t max, size_t max_bytes, char ***ret)
{
	_cleanup_strv_free_ char **pairs = NULL;
	const char *k, *v;
	size_t n = 0, bytes = 0;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "(ss)");
	while (r >= 0 && (r = sd_bus_message_read(msg, "(ss)", &k, &v)) > 0) {
		bytes += strlen(k) + strlen(v);
		if (n / 2 >= max || bytes > max_bytes)
			return -E2BIG;
		if (strv_push(&pairs, &n, strdup(k)) < 0 || strv_push(&pairs, &n, strdup(v)) < 0)
			return -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(pairs);
	return 0;
}

int bus_read_led(sd_bus_message *msg, struct manager *m, struct led **ret, sd_bus_error *error)
{
	const char *name;
	int r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	*ret = manager_find_led(m, name);
	return *ret ? 0 : bus_error_unknown_led(error, name);
}

int bus_error_unknown_led(sd_bus_error *error, const char *name)
{
	return sd_bus_error_setf(
	    error, ULEDSD_ERROR_UNKNOWN_LED,
	    "No LED named '%s' is managed by uledsd; ListLEDs() lists those that are.", name);
}
