/* SPDX-License-Identifier: MIT */
/* The pwm backend's data, shared by its configuration (pwm-conf.c) and runtime (pwm.c). */
#pragma once

#include <stdbool.h>

#include "backend.h"

#define PWM_CHANNELS_MAX 8
#define PWM_DEFAULT_PERIOD_NS 1000000ULL /* 1 ms: 1 kHz, flicker-free for the eye */

enum pwm_curve {
	PWM_CURVE_LINEAR,  /* duty = period x brightness / max */
	PWM_CURVE_CIE1931, /* duty follows CIE 1931 lightness: even steps look even */
};

struct pwm_watcher;

struct pwm_backend {
	/* configuration */
	char *chip; /* "pwmchip0" or the chip's device name ("uledsd-test-pwm.0") */
	unsigned channel[PWM_CHANNELS_MAX];
	unsigned n_channels;
	bool channel_given;	      /* pwm.channel(s) seen, even a bad one (its error is said) */
	unsigned long long period_ns; /* 0: the default */
	bool inversed;
	enum pwm_curve curve;

	/* runtime */
	struct led_backend *self;
	struct pwm_watcher *watcher;
	struct pwm_backend *next; /* in watcher->backends */
	char *chip_dir;		  /* /sys/class/pwm/pwmchipN while attached to the chip */
	char *device;		  /* the chip's device name: the key of our export records */
	bool exported[PWM_CHANNELS_MAX];
	unsigned brightness; /* the LED's latest */
};

static inline unsigned long long pwm_period_of(const struct pwm_backend *p)
{
	return p->period_ns ? p->period_ns : PWM_DEFAULT_PERIOD_NS;
}
