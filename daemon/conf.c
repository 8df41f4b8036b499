// SPDX-License-Identifier: MIT
/* The configuration: its LEDs, the names defined, the errors found (filled by conf-parse.c). */
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	conf_defined_clear(c);
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

static int defined_cmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int packed_cmp(const void *key, const void *entry)
{
	return strcmp(key, *(char *const *)entry);
}

const char *conf_defined_at(const struct conf *c, const char *name)
{
	char *const *found = tfind(name, &c->defined, defined_cmp);

	if (!found && c->packed)
		found = bsearch(name, c->packed, c->n_packed, sizeof(char *), packed_cmp);
	return found ? *found + strlen(*found) + 1 : NULL;
}

struct pack {
	char **v; /* NULL: counting */
	char *next;
	size_t n, bytes;
};

static size_t entry_size(const char *e)
{
	size_t n = strlen(e) + 1;

	return n + strlen(e + n) + 1;
}

/* Count e, or copy it to the block (p->v set). */
static void pack_put(struct pack *p, const char *e)
{
	size_t sz = entry_size(e);

	if (p->v) {
		memcpy(p->next, e, sz);
		p->v[p->n] = p->next;
		p->next += sz;
	} else
		p->bytes += sz;
	p->n++;
}

/* In order: the tree is sorted by name, so is the array. */
static void pack_visit(const void *node, VISIT which, void *userdata)
{
	if (which == postorder || which == leaf)
		pack_put(userdata, *(char *const *)node);
}

void conf_defined_pack(struct conf *c)
{
	struct pack p = {NULL, NULL, 0, 0};
	char **v;

	for (size_t i = 0; i < c->n_packed; i++)
		pack_put(&p, c->packed[i]);
	twalk_r(c->defined, pack_visit, &p);
	if (!p.n)
		return;
	v = malloc(p.n * sizeof(char *) + p.bytes);
	if (!v)
		return;
	/* Both at once: the old packed names (none after a reload's move) and the tree's. */
	p.v = v;
	p.next = (char *)(v + p.n);
	p.n = 0;
	twalk_r(c->defined, pack_visit, &p);
	for (size_t i = 0; i < c->n_packed; i++)
		pack_put(&p, c->packed[i]);
	if (c->n_packed)
		qsort(v, p.n, sizeof(char *), defined_cmp_ptr);
	tdestroy(c->defined, free);
	c->defined = NULL;
	free(c->packed);
	c->packed = v;
	c->n_packed = p.n;
}

void conf_defined_clear(struct conf *c)
{
	tdestroy(c->defined, free);
	c->defined = NULL;
	free(c->packed);
	c->packed = NULL;
	c->n_packed = 0;
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
