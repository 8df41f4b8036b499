// SPDX-License-Identifier: MIT
/* The list of built-in backends, and the generic part of a backend instance. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "backend.h"
#include "bus.h"
#include "macro.h"

/* Adding a backend: one file in backends/ and one line here. */
static const struct backend_ops *const backends[] = {
	&backend_log,
#if HAVE_GPIO
	&backend_gpio,
#endif
#if HAVE_DBUS
	&backend_dbus,
#endif
};

const struct backend_ops *backend_ops_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(backends); i++)
		if (streq(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const char *backend_list_names(void)
{
	static char buf[128];

	if (!buf[0])
		for (size_t i = 0; i < ELEMENTSOF(backends); i++) {
			if (i > 0)
				strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
			strncat(buf, backends[i]->name, sizeof(buf) - strlen(buf) - 1);
		}
	return buf;
}

int led_backend_new(const struct backend_ops *ops, const char *file, unsigned line,
		    struct led_backend **ret)
{
	struct led_backend *b;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ops = ops;
	b->line = line;
	b->file = strdup(file ? file : "");
	b->priv = ops->priv_size ? calloc(1, ops->priv_size) : NULL;
	if (!b->file || (ops->priv_size && !b->priv)) {
		led_backend_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

struct led_backend *led_backend_free(struct led_backend *b)
{
	if (!b)
		return NULL;
	if (b->ops->free_priv)
		b->ops->free_priv(b);
	free(b->priv);
	free(b->state);
	free(b->file);
	free(b);
	return NULL;
}

int led_backend_set_state(struct led_backend *b, bool ok, const char *format, ...)
{
	char *s;
	va_list ap;
	int r;

	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	if (b->state && b->ok == ok && streq(b->state, s)) {
		free(s);
		return 0;
	}
	free(b->state);
	b->state = s;
	b->ok = ok;
	if (b->led)
		bus_led_backends_changed(b->led);
	return 0;
}
