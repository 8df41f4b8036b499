// SPDX-License-Identifier: MIT
/* The list of built-in backends. */
#include <string.h>

#include "macro.h"
#include "registry.h"
#include "string-util.h"

/* Adding a backend: one file in backends/ and one line here. */
static const struct backend_ops *const backends[] = {
    &backend_log,
#if HAVE_GPIO
    &backend_gpio,
#endif
#if HAVE_DBUS
    &backend_dbus,
#endif
    &backend_pwm,
};

const struct backend_ops *backend_ops_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(backends); i++)
		if (streq(backends[i]->name, name))
			return backends[i];
	return NULL;
}

/* For messages ("known: log, gpio, dbus"); built once, the list is fixed when compiled. */
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
