// SPDX-License-Identifier: MIT
/* D-Bus API placeholder until the real one lands. */
#include "bus.h"

int bus_start(struct manager *m)
{
	(void)m;
	return 0;
}

void bus_stop(struct manager *m)
{
	(void)m;
}

void bus_led_added(struct led *l)
{
	(void)l;
}

void bus_led_removed(struct led *l)
{
	(void)l;
}

void bus_led_brightness_changed(struct led *l)
{
	(void)l;
}

void bus_led_backends_changed(struct led *l)
{
	(void)l;
}
