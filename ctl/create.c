// SPDX-License-Identifier: MIT
/* uledsctl create / remove: transient LEDs (Manager.CreateLED, Manager.RemoveLED). */
#include <errno.h>
#include <signal.h>

#include "ctl.h"
#include "uledsd-conf.h"

/* A keyword of an LED section without a dot; any other word without a dot is an attribute
 * of the trigger (delay_on=100 is trigger.delay_on = 100). */
static bool is_section_key(const char *key, size_t len)
{
	static const char *const keys[] = {
#define KEY(k) #k,
	    ULEDSD_LED_KEYS(KEY)
#undef KEY
	};

	if (memchr(key, '.', len))
		return true;
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strlen(keys[i]) == len && strncmp(key, keys[i], len) == 0)
			return true;
	return false;
}

static int append_pair(sd_bus_message *m, const char *prefix, const char *key, size_t len,
		       const char *value)
{
	_cleanup_free_ char *k = NULL;

	if (asprintf(&k, "%s%.*s", prefix, (int)len, key) < 0)
		return -ENOMEM;
	return sd_bus_message_append(m, "(ss)", k, value);
}

/* --max, --trigger, --backend first, then the KEY=VALUE words in their order. */
static int append_settings(struct ctl *c, sd_bus_message *m, char **args, size_t n)
{
	bool has_backends = c->create_backends != NULL;
	int r;

	r = sd_bus_message_open_container(m, 'a', "(ss)");
	if (r >= 0 && c->create_max)
		r = sd_bus_message_append(m, "(ss)", "max_brightness", c->create_max);
	if (r >= 0 && c->create_trigger)
		r = sd_bus_message_append(m, "(ss)", "trigger", c->create_trigger);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		size_t len = strcspn(args[i], "=");
		bool key = is_section_key(args[i], len);

		has_backends = has_backends || (len == 8 && strncmp(args[i], "backends", 8) == 0);
		r = append_pair(m, key ? "" : "trigger.", args[i], len, args[i] + len + 1);
	}
	/* Without backends the LED would be seen in sysfs alone: show it on the bus. */
	if (r >= 0 && (c->create_backends || !has_backends))
		r = sd_bus_message_append(m, "(ss)", "backends",
					  c->create_backends ? c->create_backends : "dbus");
	return r >= 0 ? sd_bus_message_close_container(m) : r;
}

static int check_words(struct ctl *c, char **args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(args[i], '=') || args[i][0] == '=')
			return ctl_fail(
			    c, CTL_EXIT_USAGE,
			    "'%s' is not KEY=VALUE (a setting such as gpio.line=3, or a "
			    "trigger attribute such as delay_on=100); see 'uledsctl "
			    "create --help'.",
			    args[i]);
	return 0;
}

int cmd_create(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	char *names[] = {args[0]};
	int r;

	r = check_words(c, args + 1, n - 1);
	if (r > 0)
		return r;
	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
					   ULEDSD_MANAGER_IFACE, "CreateLED");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", args[0]);
	if (r >= 0)
		r = append_settings(c, m, args + 1, n - 1);
	if (r >= 0)
		r = sd_bus_message_append(m, "b", c->create_keep);
	if (!c->create_keep) {
		/* Ctrl-C from the moment the LED can exist until the monitor's signal sources are
		 * up is held, not lost: a script's background job ignores SIGINT, and an ignored
		 * signal that is not blocked is dropped (the LED would stay until a kill -9). */
		sigset_t mask;

		sigemptyset(&mask);
		sigaddset(&mask, SIGINT);
		sigaddset(&mask, SIGTERM);
		sigprocmask(SIG_BLOCK, &mask, NULL);
	}
	if (r >= 0)
		r = ctl_call_interactive(c, m, 0, &e, &reply);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to create LED '%s'", args[0]);
	if (c->create_keep) {
		printf("Created LED '%s'; it stays until 'uledsctl remove %s' or uledsd stops.\n",
		       args[0], args[0]);
		return CTL_EXIT_OK;
	}
	fprintf(stderr, "Created LED '%s'; it goes when this command ends (Ctrl-C).\n", args[0]);
	/* The same connection: the LED lives as long as it does. */
	return cmd_monitor(c, names, 1);
}

int cmd_remove(struct ctl *c, char **args, size_t n)
{
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
					   ULEDSD_MANAGER_IFACE, "RemoveLED");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", args[0]);
	if (r >= 0)
		r = ctl_call_interactive(c, m, 0, &e, NULL);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to remove LED '%s'", args[0]);
	return CTL_EXIT_OK;
}
