// SPDX-License-Identifier: MIT
/* Manager.CreateLED/RemoveLED, LED.Transient (transient LEDs) and Manager.CanManage. */
#include <stdio.h>
#include <string.h>

#include "access.h"
#include "backend.h"
#include "bus-transient.h"
#include "bus-util.h"
#include "uledsd-bus.h"
#include "led-conf.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "policy.h"
#include "string-util.h"
#include "transient.h"


/* A caller who is not root: the name and the trigger within the policy. */
static int check_managed(struct manager *m, const struct led_conf *lc, sd_bus_error *error)
{
	const char *word = policy_reserved_name(lc->name);
	_cleanup_free_ char *allowed = NULL;

	if (word)
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_ACCESS_DENIED,
		    "'%s' contains '%s', like the names system services find and drive as a real "
		    "LED (UPower: *kbd_backlight*, the audio stack: *mute*); only root may create "
		    "such an LED. Pick another name.",
		    lc->name, word);
	if (!lc->trigger || policy_trigger_allowed(&m->policy, lc->trigger))
		return 0;
	allowed = policy_triggers_string(&m->policy);
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
				 "trigger '%s' is not one the right to manage covers (%s); root may "
				 "select it, or the administrator may add it to manage_triggers in "
				 "[%s] of uledsd.conf(5).",
				 lc->trigger, allowed ? allowed : "?", POLICY_SECTION);
}

static bool uses_hardware(const struct led_conf *lc)
{
	for (size_t i = 0; i < lc->n_backends; i++)
		if (lc->backends[i]->ops->hardware)
			return true;
	return false;
}

static int create_error(int r, const char *err, sd_bus_error *error)
{
	if (r == -EUSERS)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED, "%s", err);
	if (r == -EEXIST)
		return sd_bus_error_setf(error, ULEDSD_ERROR_NAME_IN_USE, "%s", err);
	return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s",
				 err ? err : "Failed to create the LED.");
}

int bus_method_create_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_strv_free_ char **pairs = NULL;
	_cleanup_free_ char *err = NULL, *path = NULL;
	_cleanup_(led_conf_freep) struct led_conf *lc = NULL;
	struct manager *m = userdata;
	const char *name;
	struct led *l;
	int keep, r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r >= 0)
		r = bus_read_pairs(msg, POLICY_SETTINGS_MAX, POLICY_SETTINGS_BYTES_MAX, &pairs);
	if (r == -E2BIG)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "CreateLED() takes at most %d settings of %d bytes in all; "
					 "an LED's section needs far fewer.",
					 POLICY_SETTINGS_MAX, POLICY_SETTINGS_BYTES_MAX);
	if (r >= 0)
		r = sd_bus_message_read(msg, "b", &keep);
	if (r < 0)
		return r;
	/* The name and settings first, without touching the system: what the caller asks
	 * decides which right it needs, and a name is never looked up before it is valid. */
	r = transient_parse(name, pairs, &lc, &err);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s",
					 err ? err : "Invalid settings.");
	r = access_check_action(m, msg, uses_hardware(lc) ? ACCESS_CREATE_HARDWARE : ACCESS_MANAGE,
				error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	if (!access_caller_is_root(msg)) {
		r = check_managed(m, lc, error);
		if (r < 0)
			return r;
	}
	r = transient_add(m, TAKE_PTR(lc), pairs, keep ? NULL : msg, access_caller_uid(msg), &l,
			  &err);
	if (r < 0)
		return create_error(r, err, error);
	r = bus_led_path(l, &path);
	if (r >= 0)
		r = sd_bus_reply_method_return(msg, "o", path);
	/* > 0: handled. A new object was exported: sd-bus must not dispatch this again. */
	return r < 0 ? r : 1;
}

int bus_method_remove_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct led *l;
	int r;

	r = bus_read_led(msg, m, &l, error);
	if (r < 0)
		return r;
	if (!transient_is(m, l))
		return sd_bus_error_setf(
		    error, ULEDSD_ERROR_NOT_TRANSIENT,
		    "LED '%s' comes from the configuration, not from CreateLED; "
		    "remove its section and reload instead.",
		    l->name);
	r = access_check(m, msg, error);
	if (r <= 0)
		return r < 0 ? r : 1;
	log_info("%s: transient LED removed by RemoveLED.", l->name);
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

	return sd_bus_message_append(reply, "b", transient_is(led_manager(l), l));
}
