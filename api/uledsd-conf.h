/* SPDX-License-Identifier: MIT */
/* The keys of an LED section ([NAME], uledsd.conf(5)) besides trigger.ATTRIBUTE and
 * BACKEND.KEY, written once: the daemon's parser is made from this list (conf-section.c, one
 * parse_KEY() each) and uledsctl create passes exactly these through as they are (any other
 * word becomes trigger.WORD). ULEDSD_LED_KEYS(X) calls X(key) for each. */
#pragma once

#define ULEDSD_LED_KEYS(X)                                                                         \
	X(max_brightness)                                                                          \
	X(default_brightness)                                                                      \
	X(trigger)                                                                                 \
	X(blink)                                                                                   \
	X(events)                                                                                  \
	X(color)                                                                                   \
	X(multi_intensity)                                                                         \
	X(backends)
