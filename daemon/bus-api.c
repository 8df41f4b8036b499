// SPDX-License-Identifier: MIT
/* The D-Bus API io.uledsd1 (see uledsd-dbus(7)): its properties and methods, one vtable each. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "access.h"
#include "backend.h"
#include "bus-api.h"
#include "bus-transient.h"
#include "bus-util.h"
#include "uledsd-bus.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "policy.h"
#include "recording.h"
#include "reexec.h"
#include "string-util.h"
#include "trigger-names.h"

/* ---- io.uledsd1.LED ------------------------------------------------------------------- */

static int property_get_trigger(sd_bus *bus _unused_, const char *path _unused_,
				const char *iface _unused_, const char *property _unused_,
				sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	_cleanup_free_ char *t = NULL;
	int r;

	r = led_current_trigger(l, &t);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to read %s/trigger: %m", l->sysfs);
	return sd_bus_message_append(reply, "s", t);
}

/* Every trigger the kernel offers this LED: the words of sysfs's trigger file, brackets off. */
static int property_get_available_triggers(sd_bus *bus _unused_, const char *path _unused_,
					   const char *iface _unused_,
					   const char *property _unused_, sd_bus_message *reply,
					   void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *list = NULL;
	int r;

	r = led_read_attr(l, "trigger", &list);
	if (r >= 0)
		r = trigger_list_parse(list, &names, NULL);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to read %s/trigger: %m", l->sysfs);
	return sd_bus_message_append_strv(reply, names);
}

/* (name, working, status) of each backend: what a client shows as the LED's health; it changes
 * when a GPIO chip comes or goes. */
static int property_get_backends(sd_bus *bus _unused_, const char *path _unused_,
				 const char *iface _unused_, const char *property _unused_,
				 sd_bus_message *reply, void *userdata,
				 sd_bus_error *error _unused_)
{
	struct led *l = userdata;
	char buf[256];
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(sbs)");
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->conf->n_backends; i++) {
		struct led_backend *be = l->conf->backends[i];

		r = sd_bus_message_append(reply, "(sbs)", be->ops->name, be->ok,
					  led_backend_status(be, buf, sizeof(buf)));
		if (r < 0)
			return r;
	}
	return sd_bus_message_close_container(reply);
}

static int method_set_brightness(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	char buf[16];
	uint32_t v;
	int r;

	r = sd_bus_message_read(msg, "u", &v);
	if (r < 0)
		return r;
	r = access_check(led_manager(l), msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	if (v > l->max_brightness)
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_INVALID_ARGS,
		    "Brightness %u is out of range for LED '%s': use 0 to %u (MaxBrightness).", v,
		    l->name, l->max_brightness);
	/* Through sysfs, as any other writer: the LED core (triggers) and uleds see it. */
	snprintf(buf, sizeof(buf), "%u", v);
	r = led_write_attr(l, "brightness", buf);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
					 "Failed to write %s/brightness: %s.", l->sysfs,
					 strerror(-r));
	return sd_bus_reply_method_return(msg, NULL);
}

/* (colour, intensity) per channel, in multi_index order; empty for a plain LED. */
static int property_get_color(sd_bus *bus _unused_, const char *path _unused_,
			      const char *iface _unused_, const char *property _unused_,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error _unused_)
{
	const struct led *l = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(su)");
	for (unsigned i = 0; r >= 0 && i < l->n_channels; i++)
		r = sd_bus_message_append(reply, "(su)", led_color_to_string(l->conf->color[i]),
					  l->intensity[i]);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_set_color(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	unsigned v[LED_CHANNELS_MAX];
	const void *data;
	size_t size;
	int r;

	r = sd_bus_message_read_array(msg, 'u', &data, &size);
	if (r < 0)
		return r;
	/* Checked before asking: a waiting call keeps its message. */
	if (size > LED_CHANNELS_MAX * sizeof(uint32_t))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "An LED has at most %d colour channels, not %zu.",
					 LED_CHANNELS_MAX, size / sizeof(uint32_t));
	r = access_check(led_manager(l), msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	if (!l->n_channels)
		return sd_bus_error_setf(error, ULEDSD_ERROR_NOT_MULTICOLOR,
					 "LED '%s' has no colour channels; give it 'color = ...' "
					 "in its configuration to make it multicolour.",
					 l->name);
	if (size != l->n_channels * sizeof(uint32_t))
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_INVALID_ARGS,
		    "LED '%s' has %u colour channels; give %u intensities, one "
		    "per channel (the Color property lists them), not %zu.",
		    l->name, l->n_channels, l->n_channels, size / sizeof(uint32_t));
	memcpy(v, data, size);
	for (unsigned i = 0; i < l->n_channels; i++)
		if (v[i] > l->max_brightness)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "Intensity %u of channel %u (%s) is out of range "
						 "for LED '%s': use 0 to "
						 "%u (MaxBrightness).",
						 v[i], i, led_color_to_string(l->conf->color[i]),
						 l->name, l->max_brightness);
	/* Through sysfs, as any other writer: the kernel's record brings the new colour. */
	r = led_write_intensity(l, v);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
					 "Failed to write %s/multi_intensity: %s.", l->sysfs,
					 strerror(-r));
	return sd_bus_reply_method_return(msg, NULL);
}

/* The right to manage covers the triggers of [uledsd] manage_triggers; root any. what: the
 * trigger to select, or NULL for the attributes of the one selected now. */
static int check_trigger_allowed(sd_bus_message *msg, struct led *l, const char *what,
				 sd_bus_error *error)
{
	_cleanup_free_ char *cur = NULL, *allowed = NULL;
	const struct policy *p = &led_manager(l)->policy;
	int r;

	if (access_caller_is_root(msg))
		return 0;
	if (!what) {
		r = led_current_trigger(l, &cur);
		if (r < 0)
			return sd_bus_error_set_errnof(error, r, "Failed to read %s/trigger: %m",
						       l->sysfs);
	}
	if (policy_trigger_allowed(p, what ? what : cur))
		return 0;
	allowed = policy_triggers_string(p);
	return sd_bus_error_setf(
	    error, SD_BUS_ERROR_ACCESS_DENIED,
	    "Trigger '%s' of LED '%s' is not one the right to manage covers (%s); root may %s, "
	    "or the administrator may add it to manage_triggers in [%s] of uledsd.conf(5).",
	    what ? what : cur, l->name, allowed ? allowed : "?",
	    what ? "select it" : "set its attributes", POLICY_SECTION);
}

static int method_set_trigger(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	const char *t;
	int r;

	r = sd_bus_message_read(msg, "s", &t);
	if (r < 0)
		return r;
	/* Not echoed back: a caller may send megabytes. Checked before asking: a waiting call
	 * keeps its message. */
	if (strlen(t) > LED_NAME_MAX)
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_INVALID_ARGS,
		    "A trigger name of %zu bytes is not a trigger name (at most "
		    "%d); see %s/trigger for the available ones.",
		    strlen(t), LED_NAME_MAX, l->sysfs);
	if (!trigger_name_is_valid(t))
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_INVALID_ARGS,
		    "'%s' is not a trigger name; see %s/trigger for the available ones.", t,
		    l->sysfs);
	r = access_check(led_manager(l), msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	r = check_trigger_allowed(msg, l, t, error);
	if (r < 0)
		return r;
	r = led_write_attr(l, "trigger", t);
	/* The LED core answers EINVAL for a trigger it does not know. */
	if (r == -EINVAL) {
		_cleanup_free_ char *list = NULL;
		char hint[256];

		(void)led_read_attr(l, "trigger", &list);
		trigger_hint(t, list, hint, sizeof(hint));
		return sd_bus_error_setf(
		    error, ULEDSD_ERROR_UNKNOWN_TRIGGER,
		    "Trigger '%s' is not available for LED '%s': %s (%s/trigger "
		    "lists those that are).",
		    t, l->name, hint, l->sysfs);
	}
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
					 "Failed to write %s/trigger: %s.", l->sysfs, strerror(-r));
	led_emit(l, LED_EVENT_TRIGGER_SET);
	return sd_bus_reply_method_return(msg, NULL);
}

static int read_attr_pairs(sd_bus_message *msg, struct led *l, char ***ret, sd_bus_error *error)
{
	_cleanup_strv_free_ char **pairs = NULL;
	int r;

	r = bus_read_pairs(msg, POLICY_ATTRIBUTES_MAX,
			   POLICY_ATTRIBUTES_MAX * (LED_NAME_MAX + POLICY_ATTRIBUTE_VALUE_MAX),
			   &pairs);
	if (r == -E2BIG)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "SetTriggerAttributes() takes at most %d attributes.",
					 POLICY_ATTRIBUTES_MAX);
	if (r < 0)
		return r;
	for (size_t i = 0; pairs && pairs[i]; i += 2) {
		if (!trigger_attr_name_is_valid(pairs[i]))
			return sd_bus_error_setf(
			    error, SD_BUS_ERROR_INVALID_ARGS,
			    "'%s' is not a trigger attribute of LED '%s': give a lower-case file "
			    "name "
			    "below %s/ that the trigger adds (not brightness, trigger or another "
			    "file of the LED core).",
			    pairs[i], l->name, l->sysfs);
		if (strlen(pairs[i + 1]) > POLICY_ATTRIBUTE_VALUE_MAX)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "The value of '%s' is longer than %d bytes, more "
						 "than a sysfs attribute takes.",
						 pairs[i], POLICY_ATTRIBUTE_VALUE_MAX);
	}
	*ret = TAKE_PTR(pairs);
	return 0;
}

/* In the order given: delay_on before delay_off matters to some triggers. */
static int method_set_trigger_attributes(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct led *l = userdata;
	_cleanup_strv_free_ char **pairs = NULL;
	_cleanup_free_ char *t = NULL;
	int r;

	r = read_attr_pairs(msg, l, &pairs, error);
	if (r < 0)
		return r;
	r = access_check(led_manager(l), msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	r = check_trigger_allowed(msg, l, NULL, error);
	if (r < 0)
		return r;
	for (size_t i = 0; pairs && pairs[i]; i += 2) {
		r = led_write_attr(l, pairs[i], pairs[i + 1]);
		if (r == -ENOENT) {
			(void)led_current_trigger(l, &t);
			return sd_bus_error_setf(
			    error, ULEDSD_ERROR_UNKNOWN_ATTRIBUTE,
			    "Trigger '%s' of LED '%s' has no attribute '%s'; ls %s/ shows those it "
			    "has (select the trigger first).",
			    t ? t : "?", l->name, pairs[i], l->sysfs);
		}
		if (r < 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
						 "Failed to write '%s' to %s/%s: %s.", pairs[i + 1],
						 l->sysfs, pairs[i], strerror(-r));
	}
	return sd_bus_reply_method_return(msg, NULL);
}

static int property_get_mode(sd_bus *bus _unused_, const char *path _unused_,
			     const char *iface _unused_, const char *property _unused_,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error _unused_)
{
	const struct led *l = userdata;

	return sd_bus_message_append(reply, "s", led_mode_to_string(l->mode));
}

/* (on_ms, off_ms) of an offloaded blink, (0, 0) when none runs: a GUI animates it locally. */
static int property_get_blink(sd_bus *bus _unused_, const char *path _unused_,
			      const char *iface _unused_, const char *property _unused_,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error _unused_)
{
	const struct led *l = userdata;

	return sd_bus_message_append(reply, "(uu)", l->blink_on_ms, l->blink_off_ms);
}

/* Two vtables for one interface: introspection tells which LEDs send Brightness, Blink and
 * Trigger changes (those with the dbus backend; bus_led_trigger_maybe_changed()). */
#define LED_VTABLE(brightness_flags)                                                               \
	{                                                                                          \
		SD_BUS_VTABLE_START(0),                                                            \
		    SD_BUS_PROPERTY("Name", "s", NULL, offsetof(struct led, name),                 \
				    SD_BUS_VTABLE_PROPERTY_CONST),                                 \
		    SD_BUS_PROPERTY("Brightness", "u", NULL, offsetof(struct led, brightness),     \
				    brightness_flags),                                             \
		    SD_BUS_PROPERTY("MaxBrightness", "u", NULL,                                    \
				    offsetof(struct led, max_brightness),                          \
				    SD_BUS_VTABLE_PROPERTY_CONST),                                 \
		    SD_BUS_PROPERTY("Blink", "(uu)", property_get_blink, 0, brightness_flags),     \
		    SD_BUS_PROPERTY("Color", "a(su)", property_get_color, 0, brightness_flags),    \
		    SD_BUS_PROPERTY("Mode", "s", property_get_mode, 0, 0),                         \
		    SD_BUS_PROPERTY("Trigger", "s", property_get_trigger, 0, brightness_flags),    \
		    SD_BUS_PROPERTY("AvailableTriggers", "as", property_get_available_triggers, 0, \
				    0),                                                            \
		    SD_BUS_PROPERTY("Backends", "a(sbs)", property_get_backends, 0,                \
				    SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),                          \
		    SD_BUS_PROPERTY("Transient", "b", bus_property_get_transient, 0,               \
				    SD_BUS_VTABLE_PROPERTY_CONST),                                 \
		    SD_BUS_METHOD_WITH_ARGS("SetBrightness", SD_BUS_ARGS("u", brightness),         \
					    SD_BUS_NO_RESULT, method_set_brightness,               \
					    SD_BUS_VTABLE_UNPRIVILEGED),                           \
		    SD_BUS_METHOD_WITH_ARGS("SetColor", SD_BUS_ARGS("au", intensities),            \
					    SD_BUS_NO_RESULT, method_set_color,                    \
					    SD_BUS_VTABLE_UNPRIVILEGED),                           \
		    SD_BUS_METHOD_WITH_ARGS("SetTrigger", SD_BUS_ARGS("s", trigger),               \
					    SD_BUS_NO_RESULT, method_set_trigger,                  \
					    SD_BUS_VTABLE_UNPRIVILEGED),                           \
		    SD_BUS_METHOD_WITH_ARGS("SetTriggerAttributes",                                \
					    SD_BUS_ARGS("a(ss)", attributes), SD_BUS_NO_RESULT,    \
					    method_set_trigger_attributes,                         \
					    SD_BUS_VTABLE_UNPRIVILEGED),                           \
		    SD_BUS_VTABLE_END                                                              \
	}

const sd_bus_vtable bus_led_vtable_emits[] = LED_VTABLE(SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE);
const sd_bus_vtable bus_led_vtable_quiet[] = LED_VTABLE(0);

/* ---- io.uledsd1.Manager --------------------------------------------------------------- */

static int property_get_version(sd_bus *bus _unused_, const char *path _unused_,
				const char *iface _unused_, const char *property _unused_,
				sd_bus_message *reply, void *userdata _unused_,
				sd_bus_error *error _unused_)
{
	return sd_bus_message_append(reply, "s", PROJECT_VERSION);
}

static int property_get_load_errors(sd_bus *bus _unused_, const char *path _unused_,
				    const char *iface _unused_, const char *property _unused_,
				    sd_bus_message *reply, void *userdata,
				    sd_bus_error *error _unused_)
{
	struct manager *m = userdata;

	return sd_bus_message_append_strv(reply, m->load_errors);
}

/* The reply is built by hand: an array of (name, path) has no one-call form. */
static int method_list_leds(sd_bus_message *msg, void *userdata, sd_bus_error *error _unused_)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct manager *m = userdata;
	int r;

	r = sd_bus_message_new_method_return(msg, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "(so)");
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_leds; i++) {
		_cleanup_free_ char *path = NULL;

		r = bus_led_path(m->leds[i], &path);
		if (r < 0)
			return r;
		r = sd_bus_message_append(reply, "(so)", m->leds[i]->name, path);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

static int method_get_led(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL;
	struct manager *m = userdata;
	struct led *l;
	int r;

	r = bus_read_led(msg, m, &l, error);
	if (r < 0)
		return r;
	r = bus_led_path(l, &path);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(msg, "o", path);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_strv_free_ char **errors = NULL;
	struct manager *m = userdata;
	int r;

	r = access_check(m, msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	/* Synchronous: the reply goes out once the new configuration is in effect (ExecReload=). */
	r = manager_reload(m, &errors);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Reload failed: %s.",
					 strerror(-r));
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_append_strv(reply, errors);
	if (r < 0)
		return r;
	r = sd_bus_send(NULL, reply, NULL);
	/* > 0: handled. The reload re-exported objects, so sd-bus must not dispatch this again. */
	return r < 0 ? r : 1;
}

/* The reply goes out first; the old process then leaves the bus and the new one takes the name
 * again once it has adopted every LED (uledsd(8), RE-EXECUTION). */
static int method_reexecute(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	int r;

	r = access_check(m, msg, error);
	if (r <= 0)
		return r < 0 ? r : 1; /* 0: asked; this runs again with the answer */
	r = manager_reexec(m);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "Cannot re-execute: %s.",
					 strerror(-r));
	return sd_bus_reply_method_return(msg, "");
}

/* The names of Record(): never more than there are LEDs (a name is an LED or an error),
 * counted before anything is copied. */
static int read_record_names(sd_bus_message *msg, struct manager *m, char ***ret,
			     sd_bus_error *error)
{
	_cleanup_strv_free_ char **names = NULL;
	const char *name, *dup = NULL;
	size_t n = 0;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "s");
	while (r >= 0 && (r = sd_bus_message_read_basic(msg, 's', &name)) > 0) {
		if (n >= m->n_leds)
			return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
						 "Record() names more LEDs than uledsd has (%zu); "
						 "name each LED once, or none to record them all.",
						 m->n_leds);
		r = strv_push(&names, &n, strdup(name));
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	if (r < 0)
		return r;
	if (recording_names_sort(names, &dup) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Record() names LED '%s' twice; name each LED once.", dup);
	*ret = TAKE_PTR(names);
	return 0;
}

/* Anyone may record, as anyone may read the properties; [uledsd]'s record quotas bound the
 * users who are not root. */
static int method_record(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_strv_free_ char **names = NULL;
	struct manager *m = userdata;
	const char *what = NULL;
	uid_t euid = access_caller_uid(msg);
	int fd, r;

	r = read_record_names(msg, m, &names, error);
	if (r < 0)
		return r;
	if (euid == (uid_t)-1)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Cannot tell the caller's user: no recording.");
	r = recording_start(m, euid, &names, &fd, &what);
	if (r == -ENOENT)
		return bus_error_unknown_led(error, what);
	if (r == -EUSERS && streq(what, "record_max"))
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_LIMITS_EXCEEDED,
		    "Users other than root run %u recordings already (record_max = "
		    "%u in [%s] of uledsd.conf(5)); end one first.",
		    m->policy.record_max, m->policy.record_max, POLICY_SECTION);
	if (r == -EUSERS)
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_LIMITS_EXCEEDED,
		    "User %u runs %u recordings already (record_max_per_user = %u in [%s] of "
		    "uledsd.conf(5)); end one first.",
		    (unsigned)euid, m->policy.record_max_per_user, m->policy.record_max_per_user,
		    POLICY_SECTION);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
					 "Failed to start recording: %s.", strerror(-r));
	/* sd-bus sends a duplicate: the daemon keeps only the write end. */
	r = sd_bus_reply_method_return(msg, "h", fd);
	safe_close(fd);
	return r;
}

const sd_bus_vtable bus_manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("LoadErrors", "as", property_get_load_errors, 0,
		    SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD_WITH_ARGS("ListLEDs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(so)", leds),
			    method_list_leds, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("GetLED", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", led),
			    method_get_led, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", errors), method_reload,
			    SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reexecute", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reexecute,
			    SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("CreateLED", SD_BUS_ARGS("s", name, "a(ss)", settings, "b", keep),
			    SD_BUS_RESULT("o", led), bus_method_create_led,
			    SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("CanManage", SD_BUS_NO_ARGS, SD_BUS_RESULT("b", can),
			    bus_method_can_manage, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("RemoveLED", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT,
			    bus_method_remove_led, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Record", SD_BUS_ARGS("as", names), SD_BUS_RESULT("h", pipe),
			    method_record, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END};
