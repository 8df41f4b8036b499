// SPDX-License-Identifier: MIT
/* Loading the configuration: every drop-in read in order, then the checks across files
 * (claims: one resource, a GPIO line, serves one LED). */
#include <stdio.h>

#include "backend.h"
#include "conf-files.h"
#include "conf-load.h"
#include "conf-parse.h"
#include "string-util.h"

struct claim {
	char *what; /* b->ops->claim(b) */
	size_t led; /* index in conf->leds, in definition order */
	struct led_backend *b;
	size_t first; /* in the sorted order: the first claim of the same resource */
};

struct claims {
	struct claim *all; /* in definition order */
	struct claim **sorted;
	size_t n;
};

static void claims_done(struct claims *cl)
{
	for (size_t x = 0; x < cl->n; x++)
		free(cl->all[x].what);
	free(cl->all);
	free(cl->sorted);
}

static int claim_cmp(const void *x, const void *y)
{
	const struct claim *a = *(const struct claim *const *)x,
			   *b = *(const struct claim *const *)y;
	int r = strcmp(a->what, b->what);

	return r ? r : a->led < b->led ? -1 : a->led > b->led;
}

/* Each claim is built once and sorted: 1000 GPIO LEDs cost n log n, not n². */
static int claims_build(const struct conf *c, struct claims *cl)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++)
			n += !!c->leds[i]->backends[j]->ops->claim;
	if (n == 0)
		return 0;
	cl->all = calloc(n, sizeof(*cl->all));
	cl->sorted = calloc(n, sizeof(*cl->sorted));
	if (!cl->all || !cl->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++) {
			struct led_backend *b = c->leds[i]->backends[j];
			char *what = b->ops->claim ? b->ops->claim(b) : NULL;

			if (!what)
				continue;
			cl->all[cl->n] = (struct claim){.what = what, .led = i, .b = b};
			cl->sorted[cl->n] = &cl->all[cl->n];
			cl->n++;
		}
	qsort(cl->sorted, cl->n, sizeof(*cl->sorted), claim_cmp);
	for (size_t x = 0; x < cl->n; x++)
		cl->sorted[x]->first = x > 0 && streq(cl->sorted[x - 1]->what, cl->sorted[x]->what)
					   ? cl->sorted[x - 1]->first
					   : x;
	return 1;
}

/* The earliest LED before this claim's with the same claim that was kept, or NULL. */
static const struct claim *claim_owner(const struct claims *cl, const struct claim *c,
				       const bool *kept_led)
{
	for (size_t x = c->first;
	     x < cl->n && cl->sorted[x]->led < c->led && streq(cl->sorted[x]->what, c->what); x++)
		if (kept_led[cl->sorted[x]->led])
			return cl->sorted[x];
	return NULL;
}

/* Marks in kept_led the LEDs whose claims are all their own, reporting the others. */
static void claims_check(struct conf *c, const struct claims *cl, bool *kept_led)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n_leds; i++) {
		bool failed = false;

		for (; k < cl->n && cl->all[k].led == i; k++) {
			const struct claim *mine = &cl->all[k],
					   *owner = claim_owner(cl, mine, kept_led);

			if (!owner)
				continue;
			conf_add_error(c, mine->b->file, mine->b->line,
				       "[%s] uses %s, which [%s] at %s:%u already uses; give each "
				       "LED its own.",
				       c->leds[i]->name, mine->what, c->leds[owner->led]->name,
				       owner->b->file, owner->b->line);
			failed = true;
		}
		kept_led[i] = !failed;
	}
}

void conf_finish(struct conf *c)
{
	/* Two backends claiming one resource: the later LED fails, naming the earlier one that
	 * was kept. */
	struct claims cl = {NULL, NULL, 0};
	_cleanup_free_ bool *kept_led = NULL;
	size_t kept = 0;
	int r;

	r = claims_build(c, &cl);
	kept_led = r > 0 ? calloc(c->n_leds, sizeof(*kept_led)) : NULL;
	if (r < 0 || (r > 0 && !kept_led))
		conf_add_error(c, c->leds[0]->file, c->leds[0]->line,
			       "out of memory while checking GPIO lines for duplicates");
	if (r > 0 && kept_led) {
		claims_check(c, &cl, kept_led);
		/* Errors cite the LEDs that stay: free the failed ones only now. */
		for (size_t i = 0; i < c->n_leds; i++)
			if (kept_led[i])
				c->leds[kept++] = c->leds[i];
			else
				conf_add_failed(c, c->leds[i]);
		c->n_leds = kept;
	}
	claims_done(&cl);
}

int conf_load(const char *const *dirs, struct conf **ret)
{
	_cleanup_strv_free_ char **files = NULL;
	_cleanup_(conf_freep) struct conf *c = NULL;
	int r;

	r = conf_new(&c);
	if (r < 0)
		return r;
	r = conf_files_list(dirs, &files, &c->notes);
	if (r < 0)
		return r;
	c->n_notes = strv_length(c->notes);
	for (char **f = files; *f; f++)
		conf_parse_file(c, *f);
	conf_finish(c);
	*ret = TAKE_PTR(c);
	return 0;
}
