// SPDX-License-Identifier: MIT
/* Looking LEDs and definitions up by name in sorted copies, for a reload. */
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "led-index.h"
#include "led-types.h"
#include "string-util.h"

/* A reload looks each LED up in the other list: sorted copies and bsearch, not n² strcmp
 * (10 000 LEDs: a reload that changed one LED took 49 s under emulation, bench/README.md). */
static int cmp_conf(const void *a, const void *b)
{
	return strcmp((*(struct led_conf *const *)a)->name, (*(struct led_conf *const *)b)->name);
}

static int cmp_name_conf(const void *key, const void *elem)
{
	return strcmp(key, (*(struct led_conf *const *)elem)->name);
}

static int cmp_led(const void *a, const void *b)
{
	return strcmp((*(struct led *const *)a)->name, (*(struct led *const *)b)->name);
}

static int cmp_name_led(const void *key, const void *elem)
{
	return strcmp(key, (*(struct led *const *)elem)->name);
}

/* Sorted copies (NULL when out of memory: the lookups below fall back to the lists). */
struct led_conf **conf_sorted(const struct conf *c)
{
	struct led_conf **v = c->n_leds ? malloc(c->n_leds * sizeof(*v)) : NULL;

	if (v) {
		memcpy(v, c->leds, c->n_leds * sizeof(*v));
		qsort(v, c->n_leds, sizeof(*v), cmp_conf);
	}
	return v;
}

struct led **leds_sorted(struct led *const *leds, size_t n)
{
	struct led **v = n ? malloc(n * sizeof(*v)) : NULL;

	if (v) {
		memcpy(v, leds, n * sizeof(*v));
		qsort(v, n, sizeof(*v), cmp_led);
	}
	return v;
}

struct led_conf *find_conf(const struct conf *c, struct led_conf **sorted, const char *name)
{
	struct led_conf **f;

	if (!sorted)
		return conf_find(c, name);
	f = bsearch(name, sorted, c->n_leds, sizeof(*sorted), cmp_name_conf);
	return f ? *f : NULL;
}

struct led *find_led(struct led *const *leds, size_t n_leds, struct led **sorted, size_t n,
		     const char *name)
{
	struct led **f;

	if (!sorted) {
		for (size_t i = 0; i < n_leds; i++)
			if (streq(leds[i]->name, name))
				return leds[i];
		return NULL;
	}
	f = bsearch(name, sorted, n, sizeof(*sorted), cmp_name_led);
	return f ? *f : NULL;
}
