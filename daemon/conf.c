// SPDX-License-Identifier: MIT
/* The configuration: its LEDs, the names defined, the errors found (filled by conf-parse.c). */
#include <search.h>
#include <stdarg.h>
#include <stdio.h>

#include "conf.h"
#include "string-util.h"

int conf_new(struct conf **ret)
{
	_cleanup_(conf_freep) struct conf *c = NULL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->errors = calloc(1, sizeof(char *));
	c->failed_names = calloc(1, sizeof(char *));
	if (!c->errors || !c->failed_names || policy_init(&c->policy) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(c);
	return 0;
}

struct conf *conf_free(struct conf *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_leds; i++)
		led_conf_free(c->leds[i]);
	free(c->leds);
	strv_free(c->failed_names);
	strv_free(c->errors);
	strv_free(c->notes);
	policy_done(&c->policy);
	tdestroy(c->defined, free);
	free(c);
	return NULL;
}

void conf_add_error(struct conf *c, const char *file, unsigned line, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL, *s = NULL;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	if ((line > 0 ? asprintf(&s, "%s:%u: %s", file, line, msg)
		      : asprintf(&s, "%s: %s", file, msg)) < 0)
		return;
	/* A D-Bus reply with these errors must be UTF-8, whatever the file holds. */
	(void)strv_push(&c->errors, &c->n_errors, utf8_escape_invalid(s));
}

void conf_add_failed(struct conf *c, struct led_conf *lc)
{
	(void)strv_push(&c->failed_names, &c->n_failed, strdup(lc->name));
	led_conf_free(lc);
}

void conf_add_led(struct conf *c, struct led_conf *lc)
{
	struct led_conf **nl = realloc(c->leds, (c->n_leds + 1) * sizeof(*nl));

	if (!nl) {
		led_conf_free(lc);
		return;
	}
	c->leds = nl;
	c->leds[c->n_leds++] = lc;
}

/* Every section seen, "NAME\0FILE:LINE" in one allocation, in a search tree: 10 000 LEDs
 * made the duplicate check of a linear list the bulk of a reload (bench/README.md). */
static int defined_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

const char *conf_defined_at(const struct conf *c, const char *name)
{
	char *const *found = tfind(name, &c->defined, defined_cmp);

	return found ? *found + strlen(*found) + 1 : NULL;
}

void conf_remember_name(struct conf *c, const char *name, const char *path, unsigned line)
{
	char *entry = NULL, *const *slot;
	int len;

	len = asprintf(&entry, "%s%c%s:%u", name, 0, path, line);
	if (len < 0)
		return;
	slot = tsearch(entry, &c->defined, defined_cmp);
	if (!slot || *slot != entry)
		free(entry); /* out of memory, or known already: the first place stays */
}

struct led_conf *conf_find(const struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_leds; i++)
		if (streq(c->leds[i]->name, name))
			return c->leds[i];
	return NULL;
}

bool conf_is_failed(const struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_failed; i++)
		if (streq(c->failed_names[i], name))
			return true;
	return false;
}
