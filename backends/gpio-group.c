// SPDX-License-Identifier: MIT
/* gpio.share: the lines of one chip that attach together (start-up, a reload, the chip's
 * arrival) share one line request of up to GPIO_GROUP_MAX lines, and the changes of one wakeup
 * reach the chip in one GPIO_V2_LINE_SET_VALUES ioctl instead of one a line. The kernel
 * releases a request only whole: a member that leaves (a reload, a removed LED) makes the next
 * pass request the others again. A group request that fails (a busy line, settings the chip
 * refuses) sends its lines back to a request each, where the error is said line by line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpio-chips.h"
#include "gpio-group.h"
#include "gpio-line.h"
#include "log.h"
#include "string-util.h"

static enum gpiod_line_value line_value(int v)
{
	return v > 0 ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
}

static int on_join_pass(sd_event_source *s _unused_, void *userdata)
{
	gpio_groups_flush(userdata);
	return 0;
}

static void groups_write(struct gpio_watcher *w);

static int on_write_pass(sd_event_source *s _unused_, void *userdata)
{
	groups_write(userdata);
	return 0;
}

/* Run cb once in the next loop iteration: after the wakeup that asked, whatever else it did. */
static int pass_schedule(struct gpio_watcher *w, sd_event_source **s, sd_event_handler_t cb,
			 const char *description)
{
	int r;

	if (*s)
		return sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
	r = sd_event_add_defer(w->event, s, cb, w);
	if (r >= 0)
		(void)sd_event_source_set_description(*s, description);
	return r;
}

static void group_free(struct gpio_group *g)
{
	for (struct gpio_group **gp = &g->watcher->groups; *gp; gp = &(*gp)->next)
		if (*gp == g) {
			*gp = g->next;
			break;
		}
	if (g->request)
		gpiod_line_request_release(g->request);
	str_unshare(g->chip_name);
	free(g);
}

/* Request g's members with their values, from the chip handle of the scan. */
static int group_request(struct gpio_group *g)
{
	_cleanup_(gpiod_line_config_freep) struct gpiod_line_config *lc = gpiod_line_config_new();
	_cleanup_(gpiod_request_config_freep) struct gpiod_request_config *rc =
	    gpiod_request_config_new();
	const struct gpio_chip_entry *e = NULL;
	int r;

	if (!lc || !rc)
		return -ENOMEM;
	if (gpio_chips_load(g->watcher) >= 0)
		e = gpio_chips_get(g->watcher, g->chip_name);
	if (!e || !e->chip)
		return -ENODEV;
	for (unsigned i = 0; i < g->n_members; i++) {
		r = gpio_line_config_add(g->members[i], lc,
					 g->values[i] == GPIOD_LINE_VALUE_ACTIVE);
		if (r < 0)
			return r;
	}
	gpiod_request_config_set_consumer(rc, "uledsd");
	log_debug("gpio: requesting %u shared lines on %s.", g->n_members, g->chip_name);
	g->request = gpiod_chip_request_lines(e->chip, rc, lc);
	return g->request ? 0 : -errno;
}

/* The group's request failed: each line asks for one of its own, which says what is wrong
 * (who holds a busy line, which setting the chip refuses). A chip gone meanwhile is not the
 * group's fault: its lines may share again when it is back. */
static void group_disband(struct gpio_group *g, int error)
{
	struct gpio_backend *members[GPIO_GROUP_MAX];
	unsigned n = g->n_members;

	log_debug_errno(error, "gpio: a request shared by %u lines on %s failed (%m); "
			       "a request a line instead.",
			n, g->chip_name);
	memcpy(members, g->members, n * sizeof(*members));
	for (unsigned i = 0; i < n; i++) {
		members[i]->group = NULL;
		members[i]->value = -1;
		members[i]->solo = error != -ENODEV;
	}
	group_free(g);
	for (unsigned i = 0; i < n; i++)
		gpio_try_attach(members[i]);
}

/* The groups a member left: the request again without its line, which is free then. */
static void groups_settle(struct gpio_watcher *w)
{
	struct gpio_group *next;

	for (struct gpio_group *g = w->groups; g; g = next) {
		int r;

		next = g->next; /* a disband frees g only; no group is made here */
		if (!g->left)
			continue;
		g->left = false;
		gpiod_line_request_release(g->request);
		g->request = NULL;
		r = group_request(g);
		if (r < 0)
			group_disband(g, r);
	}
}

/* The first waiting line's chip: its waiting lines, up to GPIO_GROUP_MAX, taken from *list. */
static struct gpio_group *group_take(struct gpio_watcher *w, struct gpio_backend **list)
{
	struct gpio_group *g = calloc(1, sizeof(*g));

	if (g)
		g->chip_name = str_shared((*list)->chip_name);
	if (!g || !g->chip_name) {
		free(g);
		return NULL;
	}
	g->watcher = w;
	for (struct gpio_backend **pp = list; *pp && g->n_members < GPIO_GROUP_MAX;) {
		struct gpio_backend *p = *pp;

		if (!streq(p->chip_name, g->chip_name)) {
			pp = &p->join_next;
			continue;
		}
		*pp = p->join_next;
		p->join_next = NULL;
		p->joining = false;
		p->group = g;
		p->group_index = g->n_members;
		g->members[g->n_members] = p;
		g->offsets[g->n_members] = p->line_offset;
		g->values[g->n_members++] = line_value(gpio_wanted_value(p, p->brightness));
	}
	g->next = w->groups;
	w->groups = g;
	return g;
}

static void groups_join(struct gpio_watcher *w)
{
	struct gpio_backend *list = NULL;

	/* In the order they came (the configuration's), not the list's reverse. */
	while (w->joining) {
		struct gpio_backend *p = w->joining;

		w->joining = p->join_next;
		p->join_next = list;
		list = p;
	}
	while (list) {
		struct gpio_group *g = group_take(w, &list);
		int r;

		if (!g) { /* out of memory: the first one on its own, the rest as they can */
			struct gpio_backend *p = list;

			list = p->join_next;
			p->join_next = NULL;
			p->joining = false;
			p->solo = true;
			gpio_try_attach(p);
			continue;
		}
		r = group_request(g);
		if (r < 0) {
			group_disband(g, r);
			continue;
		}
		for (unsigned i = 0; i < g->n_members; i++)
			gpio_line_attached(g->members[i], g->values[i] == GPIOD_LINE_VALUE_ACTIVE);
	}
}

void gpio_groups_flush(struct gpio_watcher *w)
{
	groups_settle(w);
	groups_join(w);
}

void gpio_group_attach(struct gpio_backend *p)
{
	struct gpio_watcher *w = p->watcher;
	int r;

	if (p->request || p->group || p->joining)
		return;
	if (p->share && !p->solo) {
		gpio_busy_stop(p);
		r = gpio_line_resolve(p);
		if (r < 0)
			return; /* the status says what is missing; chip events retry */
		if (r > 0) {
			p->joining = true;
			p->join_next = w->joining;
			w->joining = p;
			if (pass_schedule(w, &w->join_pass, on_join_pass, "gpio-group-join") < 0)
				gpio_groups_flush(w);
			return;
		}
	}
	groups_settle(w);
	gpio_try_attach(p);
}

void gpio_group_leave(struct gpio_backend *p)
{
	struct gpio_group *g = p->group;
	unsigned i = p->group_index, last;
	int r;

	if (p->joining) {
		for (struct gpio_backend **pp = &p->watcher->joining; *pp; pp = &(*pp)->join_next)
			if (*pp == p) {
				*pp = p->join_next;
				break;
			}
		p->joining = false;
		p->join_next = NULL;
	}
	if (!g)
		return;
	last = --g->n_members;
	if (i != last) {
		g->members[i] = g->members[last];
		g->offsets[i] = g->offsets[last];
		g->values[i] = g->values[last];
		g->members[i]->group_index = i;
	}
	p->group = NULL;
	p->value = -1;
	if (!g->n_members) {
		group_free(g);
		return;
	}
	g->left = true;
	r = pass_schedule(g->watcher, &g->watcher->join_pass, on_join_pass, "gpio-group-join");
	/* -ESTALE: the event loop has finished, the daemon is exiting and every member leaves
	 * now; requesting the others again at each departure would be n² requests at a stop
	 * (1000 shared LEDs: 984 re-requests). The request goes with the last member. */
	if (r < 0 && r != -ESTALE)
		groups_settle(g->watcher);
}

void gpio_group_chip_gone(struct gpio_backend *p)
{
	gpio_chip_gone(p); /* says it was attached, while p is still in its group */
	gpio_group_leave(p);
}

static void groups_write(struct gpio_watcher *w)
{
	struct gpio_group *next;

	for (struct gpio_group *g = w->groups; g; g = next) {
		struct gpio_backend *members[GPIO_GROUP_MAX];
		unsigned n = g->n_members;

		next = g->next; /* a chip gone frees g only */
		if (!g->dirty || !g->request)
			continue;
		g->dirty = false;
		if (gpiod_line_request_set_values_subset(g->request, n, g->offsets, g->values) >= 0)
			continue;
		if (errno != ENODEV) {
			log_warning_errno(errno, "gpio: failed to set %u lines on %s: %m", n,
					  g->chip_name);
			continue;
		}
		memcpy(members, g->members, n * sizeof(*members));
		for (unsigned i = 0; i < n; i++)
			gpio_group_chip_gone(members[i]);
	}
}

void gpio_group_set(struct gpio_backend *p, int value)
{
	struct gpio_group *g = p->group;

	g->values[p->group_index] = line_value(value);
	p->value = value;
	if (g->dirty)
		return;
	g->dirty = true;
	if (pass_schedule(g->watcher, &g->watcher->write_pass, on_write_pass, "gpio-group-write") <
	    0)
		groups_write(g->watcher);
}

void gpio_groups_free(struct gpio_watcher *w)
{
	if (!w)
		return;
	while (w->groups) {
		struct gpio_group *g = w->groups;

		for (unsigned i = 0; i < g->n_members; i++)
			g->members[i]->group = NULL;
		group_free(g);
	}
	for (struct gpio_backend *p = w->joining; p; p = p->join_next)
		p->joining = false;
	w->joining = NULL;
	w->join_pass = sd_event_source_disable_unref(w->join_pass);
	w->write_pass = sd_event_source_disable_unref(w->write_pass);
}
