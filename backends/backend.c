// SPDX-License-Identifier: MIT
/* The generic part of a backend instance (status, attach, detach), and the per-manager state
 * of backend types. */
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "log.h"
#include "macro.h"
#include "string-util.h"

int led_backend_new(const struct backend_ops *ops, const char *file, unsigned line,
		    struct led_backend **ret)
{
	_cleanup_(led_backend_freep) struct led_backend *b = NULL;
	/* One allocation for both, priv aligned for any type: 10 000 GPIO LEDs, 10 000 blocks. */
	const size_t head = ALIGN_TO(sizeof(*b), alignof(max_align_t));

	b = calloc(1, head + ops->priv_size);
	if (!b)
		return -ENOMEM;
	b->ops = ops;
	b->line = line;
	if (ops->priv_size)
		b->priv = (char *)b + head;
	b->file = str_shared(file ? file : "");
	if (!b->file)
		return -ENOMEM;
	*ret = TAKE_PTR(b);
	return 0;
}

struct led_backend *led_backend_free(struct led_backend *b)
{
	if (!b)
		return NULL;
	led_backend_detach(b);
	if (b->ops->free_priv && b->priv)
		b->ops->free_priv(b);
	free(b->status);
	str_unshare(b->file);
	free(b);
	return NULL;
}

int led_backend_attach(struct led_backend *b, const struct backend_context *ctx)
{
	int r;

	b->ctx = *ctx;
	/* Before ops->attach: a backend that fails half-way is detached like any other. */
	b->attached = true;
	r = b->ops->attach(b);
	if (r < 0) {
		(void)led_backend_set_status(b, false, "failed: %s", strerror(-r));
		return r;
	}
	if (!b->status && !b->described)
		led_backend_set_status(b, true, "attached");
	return 0;
}

void led_backend_detach(struct led_backend *b)
{
	if (!b->attached)
		return;
	b->ops->detach(b);
	b->attached = false;
	/* The LED and its callbacks may be gone after this: nothing reaches them any more. */
	b->ctx.status_changed = NULL;
	b->ctx.signal_brightness = NULL;
}

static void log_status(const struct led_backend *b, int level, const char *hint, const char *msg)
{
	log_full(level, "%s: %s: %s%s%s.", b->ctx.led_name ? b->ctx.led_name : "?", b->ops->name,
		 msg, hint ? ". " : "", hint ? hint : "");
}

void led_backend_report(struct led_backend *b, bool ok, int level, const char *hint,
			const char *msg)
{
	if (b->status && b->ok == ok && streq(b->status, msg))
		return;
	log_status(b, level, hint, msg);
	(void)led_backend_set_status(b, ok, "%s", msg);
}

/* FNV-1a: tells one text from the next without keeping it (two texts of one hash, one in 2^32,
 * would cost one BackendsChanged signal, nothing else). */
static unsigned text_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void led_backend_describe(struct led_backend *b, int level)
{
	char text[256];
	unsigned h;

	b->ops->describe(b, text, sizeof(text));
	h = text_hash(text);
	if (b->described && b->ok && b->described_hash == h)
		return;
	log_status(b, level, NULL, text);
	free(b->status);
	b->status = NULL;
	b->ok = true;
	b->described = true;
	b->described_hash = h;
	if (b->ctx.status_changed)
		b->ctx.status_changed(b, b->ctx.userdata);
}

const char *led_backend_status(const struct led_backend *b, char *buf, size_t size)
{
	if (b->status)
		return b->status;
	if (!b->described || !size)
		return "";
	b->ops->describe(b, buf, size);
	return buf;
}

int led_backend_set_status(struct led_backend *b, bool ok, const char *format, ...)
{
	char *s;
	va_list ap;
	int r;

	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	/* The same status again is no news: a retry that fails alike at every chip event must
	 * not signal the bus each time. */
	if (b->status && b->ok == ok && streq(b->status, s)) {
		free(s);
		return 0;
	}
	free(b->status);
	b->status = s;
	b->ok = ok;
	b->described = false;
	if (b->ctx.status_changed)
		b->ctx.status_changed(b, b->ctx.userdata);
	return 0;
}

void led_backend_signal_brightness(struct led_backend *b)
{
	if (b->ctx.signal_brightness)
		b->ctx.signal_brightness(b, b->ctx.userdata);
}

unsigned led_backend_channel(const struct led_backend *b, unsigned brightness, unsigned i)
{
	if (!b->ctx.intensity || i >= b->ctx.n_channels || !b->ctx.max_brightness)
		return brightness;
	return (unsigned)((unsigned long long)brightness * b->ctx.intensity[i] /
			  b->ctx.max_brightness);
}

/* A short list keyed by ops: there are as many entries as backend types with shared state. */
struct backend_shared {
	struct backend_shared *next;
	const struct backend_ops *ops;
	void *data;
};

int backend_shared_get(struct backend_shared **list, const struct backend_ops *ops, sd_event *event,
		       const char *dev_dir, void **ret)
{
	struct backend_shared *s;
	int r;

	*ret = NULL;
	if (!ops->shared_new)
		return 0;
	/* Made on first use: a manager without gpio LEDs never watches /dev. */
	for (s = *list; s; s = s->next)
		if (s->ops == ops) {
			*ret = s->data;
			return 0;
		}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = ops->shared_new(event, dev_dir, &s->data);
	if (r < 0) {
		free(s);
		return r;
	}
	s->ops = ops;
	s->next = *list;
	*list = s;
	*ret = s->data;
	return 0;
}

void backend_shared_flush(struct backend_shared *list)
{
	for (; list; list = list->next)
		if (list->ops->shared_flush)
			list->ops->shared_flush(list->data);
}

struct backend_shared *backend_shared_free(struct backend_shared *list)
{
	while (list) {
		struct backend_shared *next = list->next;

		list->ops->shared_free(list->data);
		free(list);
		list = next;
	}
	return NULL;
}
