// SPDX-License-Identifier: MIT
/* Manager.CreateLED/RemoveLED, LED.Transient (transient LEDs) and Manager.CanManage. */
#include <stdio.h>
#include <string.h>

#include "access.h"
#include "bus-api.h"
#include "led-conf.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "string-util.h"
#include "transient.h"

#define ERROR_NAME_IN_USE "io.uledsd1.Error.NameInUse"
#define ERROR_NOT_TRANSIENT "io.uledsd1.Error.NotTransient"

/* Functions of LEDs that system services find by name and drive (UPower the keyboard
 * backlight, the audio stack the mute LEDs): a user's LED must not pose as one. */
static const char *reserved_function(const char *name)
{
	static const char *const fns[] = {"kbd_backlight", "micmute", "mute"};
	const char *fn = strrchr(name, ':');

	fn = fn ? fn + 1 : name;
	for (size_t i = 0; i < ELEMENTSOF(fns); i++)
		if (streq(fn, fns[i]))
			return fns[i];
	return NULL;
}

int bus_read_pairs(sd_bus_message *msg, char ***ret)
{
	_cleanup_strv_free_ char **pairs = NULL;
	const char *k, *v;
	size_t n = 0;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "(ss)");
	while (r >= 0 && (r = sd_bus_message_read(msg, "(ss)", &k, &v)) > 0)
		if (strv_push(&pairs, &n, strdup(k)) < 0 || strv_push(&pairs, &n, strdup(v)) < 0)
			return -ENOMEM;
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(pairs);
	return 0;
}

/* Everything that refuses the name before any settings are looked at. */
static int check_name(struct manager *m, sd_bus_message *msg, const char *name, sd_bus_error *error)
{
	_cleanup_free_ char *why = NULL;
	const char *fn = reserved_function(name);

	if (transient_name_in_use(m, name, &why) < 0)
		return sd_bus_error_setf(error, ERROR_NAME_IN_USE, "%s",
					 why ? why : "The name is in use.");
	if (fn && !access_caller_is_root(msg))
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_ACCESS_DENIED,
		    "'%s' ends in ':%s', a name system services find and drive as a real LED; "
		    "only root may create such an LED. Pick another function name.",
		    name, fn);
	return 0;
}

int bus_method_create_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_strv_free_ char **pairs = NULL;
	_cleanup_free_ char *err = NULL, *path = NULL;
	struct manager *m = userdata;
	struct led_conf *lc = NULL;
	const char *name;
	struct led *l;
	int keep, r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r >= 0)
		r = bus_read_pairs(msg, &pairs);
	if (r >= 0)
		r = sd_bus_message_read(msg, "b", &keep);
	if (r < 0)
		return r;
	r = access_check(m, msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	r = check_name(m, msg, name, error);
	if (r < 0)
		return r;
	r = transient_parse(name, pairs, &lc, &err);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s",
					 err ? err : "Invalid settings.");
	r = transient_add(m, lc, pairs, keep ? NULL : msg, &l, &err);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s",
					 err ? err : "Failed to create the LED.");
	r = bus_led_path(l, &path);
	if (r >= 0)
		r = sd_bus_reply_method_return(msg, "o", path);
	/* > 0: handled. A new object was exported: sd-bus must not dispatch this again. */
	return r < 0 ? r : 1;
}

int bus_method_remove_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *name;
	struct led *l;
	int r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	l = manager_find_led(m, name);
	if (!l)
		return sd_bus_error_setf(
		    error, BUS_ERROR_UNKNOWN_LED,
		    "No LED named '%s' is managed by uledsd; ListLEDs() lists those that are.",
		    name);
	if (!transient_is(m, l))
		return sd_bus_error_setf(
		    error, ERROR_NOT_TRANSIENT,
		    "LED '%s' comes from the configuration, not from CreateLED; "
		    "remove its section and reload instead.",
		    name);
	r = access_check(m, msg, error);
	if (r <= 0)
		return r < 0 ? r : 1;
	log_info("%s: transient LED removed by RemoveLED.", name);
	(void)transient_remove(m, l);
	r = sd_bus_reply_method_return(msg, NULL);
	return r < 0 ? r : 1;
}

/* Whether the caller may change state: for a client that greys out its controls. */
int bus_method_can_manage(sd_bus_message *msg, void *userdata, sd_bus_error *error _unused_)
{
	int r = access_can_manage(userdata, msg);

	if (r == 0)
		return 1; /* asked; this runs again with the answer */
	return sd_bus_reply_method_return(msg, "b", r > 0);
}

int bus_property_get_transient(sd_bus *bus _unused_, const char *path _unused_,
			       const char *iface _unused_, const char *property _unused_,
			       sd_bus_message *reply, void *userdata, sd_bus_error *error _unused_)
{
	struct led *l = userdata;

	return sd_bus_message_append(reply, "b", transient_is(l->manager, l));
}
