// SPDX-License-Identifier: MIT
/* The [uledsd] section: which triggers the right to manage covers, and the quotas. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "led-conf.h"
#include "policy.h"
#include "string-util.h"

/* Triggers that show only what anyone may read anyway (a timer, the load, a pattern, network
 * statistics) and hand no device or file to the caller: ledtrig-tty (any tty's activity),
 * disk, input or wireless triggers are an admin's decision (manage_triggers). */
static const char *const default_triggers[] = {
    "none", "default-on", "timer", "oneshot", "heartbeat", "pattern", "transient", "netdev",
};

#define QUOTA_MAX 100000U

static const struct {
	const char *key;
	size_t offset;
	unsigned def;
} quotas[] = {
    {"transient_max_per_user", offsetof(struct policy, transient_max_per_user), 16},
    {"transient_max", offsetof(struct policy, transient_max), 64},
    {"record_max_per_user", offsetof(struct policy, record_max_per_user), 8},
    {"record_max", offsetof(struct policy, record_max), 32},
    {"pending_max_per_user", offsetof(struct policy, pending_max_per_user), 8},
    {"pending_max", offsetof(struct policy, pending_max), 64},
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, without duplicates. */
static void triggers_normalize(char **t)
{
	size_t n = strv_length(t), k = 0;

	qsort(t, n, sizeof(*t), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && streq(t[k - 1], t[i])) {
			free(t[i]);
			continue;
		}
		t[k++] = t[i];
	}
	if (t)
		t[k] = NULL;
}

static int add_defaults(char ***t, size_t *n)
{
	for (size_t i = 0; i < ELEMENTSOF(default_triggers); i++)
		if (strv_push(t, n, strdup(default_triggers[i])) < 0)
			return -ENOMEM;
	return 0;
}

int policy_init(struct policy *p)
{
	size_t n = 0;

	*p = (struct policy){.manage_triggers = NULL};
	for (size_t i = 0; i < ELEMENTSOF(quotas); i++)
		*(unsigned *)((char *)p + quotas[i].offset) = quotas[i].def;
	if (add_defaults(&p->manage_triggers, &n) < 0)
		return -ENOMEM;
	triggers_normalize(p->manage_triggers);
	return 0;
}

void policy_done(struct policy *p)
{
	p->manage_triggers = strv_free(p->manage_triggers);
}

int policy_copy(struct policy *dst, const struct policy *src)
{
	char **t = NULL;
	size_t n = 0;

	for (size_t i = 0; src->manage_triggers && src->manage_triggers[i]; i++)
		if (strv_push(&t, &n, strdup(src->manage_triggers[i])) < 0) {
			strv_free(t);
			return -ENOMEM;
		}
	policy_done(dst);
	*dst = *src;
	dst->manage_triggers = t;
	return 0;
}

const char *policy_keys(void)
{
	return "manage_triggers, transient_max_per_user, transient_max, record_max_per_user, "
	       "record_max, pending_max_per_user, pending_max";
}

/* "default timer tty": the words, "default" standing for the built-in list. */
static int parse_triggers(struct policy *p, const char *value, char **ret_error)
{
	_cleanup_strv_free_ char **t = NULL;
	size_t n = 0;
	int r = 0;

	for (const char *s = value; *s;) {
		size_t len = strcspn(s, " \t,");
		_cleanup_free_ char *w = strndup(s, len);

		if (!w)
			return -ENOMEM;
		if (len == 0) {
			s++;
			continue;
		}
		s += len;
		if (streq(w, "default"))
			r = add_defaults(&t, &n);
		else if (!trigger_name_is_valid(w))
			return error_setf(ret_error, -EINVAL,
					  "'%s' is not a trigger name; list trigger names (see "
					  "/sys/class/leds/*/trigger), 'default' for the built-in "
					  "ones.",
					  w);
		else
			r = strv_push(&t, &n, TAKE_PTR(w));
		if (r < 0)
			return r;
	}
	/* Empty: only "none", which turns a trigger off; it is always allowed. */
	if (strv_push(&t, &n, strdup("none")) < 0)
		return -ENOMEM;
	triggers_normalize(t);
	strv_free(p->manage_triggers);
	p->manage_triggers = TAKE_PTR(t);
	return 0;
}

int policy_parse_key(struct policy *p, const char *key, const char *value, char **ret_error)
{
	unsigned v;

	if (streq(key, "manage_triggers"))
		return parse_triggers(p, value, ret_error);
	for (size_t i = 0; i < ELEMENTSOF(quotas); i++) {
		if (!streq(key, quotas[i].key))
			continue;
		if (safe_atou(value, &v) < 0 || v > QUOTA_MAX)
			return error_setf(ret_error, -ERANGE,
					  "%s = %s: give a number from 0 to %u (built-in: %u).",
					  key, value, QUOTA_MAX, quotas[i].def);
		*(unsigned *)((char *)p + quotas[i].offset) = v;
		return 0;
	}
	return error_setf(ret_error, -ENOENT, "unknown key '%s' in [%s], the section of uledsd's own settings "
			  "(an LED needs another name); known keys: %s.",
			  key, POLICY_SECTION, policy_keys());
}

bool policy_trigger_allowed(const struct policy *p, const char *trigger)
{
	size_t n = strv_length(p->manage_triggers);

	return bsearch(&trigger, p->manage_triggers, n, sizeof(char *), cmp_str) != NULL;
}

char *policy_triggers_string(const struct policy *p)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; p->manage_triggers && p->manage_triggers[i]; i++)
		fprintf(f, "%s%s", i ? ", " : "", p->manage_triggers[i]);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Case-insensitive strstr: the LED core and UPower compare names as bytes, but a name that
 * differs only in case still reads as the keyboard backlight to a person. */
static bool contains_ci(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return true;
	return false;
}

const char *policy_reserved_name(const char *name)
{
	/* UPower and systemd-backlight match "*kbd_backlight*"; the audio stack drives LEDs
	 * whose function is (mic)mute, also with a suffix the LED core added ("mute_1"). */
	static const char *const words[] = {"kbd_backlight", "micmute", "mute"};

	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (contains_ci(name, words[i]))
			return words[i];
	return NULL;
}
