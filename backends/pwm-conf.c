// SPDX-License-Identifier: MIT
/* The pwm backend's configuration: pwm.* keys, checks without hardware, reload identity, and
 * the sysfs paths the unit's sandbox must open for it (uledsd-generator). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pwm-conf.h"
#include "string-util.h"

#define errorf(ret_error, ...) error_setf(ret_error, -EINVAL, __VA_ARGS__)

/* "1ms", "500us", "20000ns", "1000000" (ns), "0.5ms"; 1 ns to 4 s. */
static int parse_period(const char *s, unsigned long long *ret)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
	char *end;
	double v;

	if (!*s || (*s < '0' || *s > '9'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (streq(end, units[i].unit)) {
			double ns = v * units[i].ns;

			if (ns < 1 || ns > 4e9 || ns != (double)(unsigned long long)ns)
				return -ERANGE;
			*ret = (unsigned long long)ns;
			return 0;
		}
	return -EINVAL;
}

static int parse_channels(struct pwm_backend *p, const char *key, const char *value,
			  char **ret_error)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;
	unsigned n = 0;

	if (!copy)
		return -ENOMEM;
	p->channel_given = true;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		unsigned v;

		if (safe_atou(w, &v) < 0 || v > 1023)
			return errorf(ret_error,
				      "pwm.%s: '%s' is not a channel number: give the PWM's number "
				      "on its chip (0 to npwm - 1, see /sys/class/pwm/pwmchipN/npwm).",
				      key, w);
		if (n == PWM_CHANNELS_MAX)
			return errorf(ret_error, "pwm.%s lists more than %d channels.", key,
				      PWM_CHANNELS_MAX);
		for (unsigned i = 0; i < n; i++)
			if (p->channel[i] == v)
				return errorf(ret_error, "pwm.%s lists channel %u twice.", key, v);
		p->channel[n++] = v;
	}
	if (!n)
		return errorf(ret_error, "pwm.%s is empty: give a channel number.", key);
	if (streq(key, "channel") && n != 1)
		return errorf(ret_error, "pwm.channel takes one number; a multicolour LED lists "
					 "one per colour in pwm.channels.");
	p->n_channels = n;
	return 0;
}

int pwm_parse(struct led_backend *b, const char *key, const char *value, char **ret_error)
{
	struct pwm_backend *p = b->priv;
	int r;

	if (streq(key, "chip")) {
		if (!*value || strchr(value, '/') || streq(value, ".") || streq(value, ".."))
			return errorf(ret_error,
				      "pwm.chip = '%s' is not a chip: give pwmchipN as in "
				      "/sys/class/pwm, or the chip's device name (the target of "
				      "/sys/class/pwm/pwmchipN/device).",
				      value);
		free(p->chip);
		p->chip = strdup(value);
		return p->chip ? 0 : -ENOMEM;
	}
	if (streq(key, "channel") || streq(key, "channels"))
		return parse_channels(p, key, value, ret_error);
	if (streq(key, "period")) {
		r = parse_period(value, &p->period_ns);
		if (r < 0)
			return errorf(ret_error,
				      "pwm.period = '%s' is not valid: give a whole number of "
				      "nanoseconds from 1 ns to 4 s with a unit, e.g. 1ms, 50us, "
				      "20000ns (a number alone is in ns).",
				      value);
		return 0;
	}
	if (streq(key, "polarity")) {
		if (!streq(value, "normal") && !streq(value, "inversed"))
			return errorf(ret_error,
				      "pwm.polarity = '%s' is not valid: use normal (the default) or "
				      "inversed (the output is low for the duty cycle).",
				      value);
		p->inversed = streq(value, "inversed");
		return 0;
	}
	if (streq(key, "curve")) {
		if (!streq(value, "linear") && !streq(value, "cie1931"))
			return errorf(ret_error,
				      "pwm.curve = '%s' is not valid: use linear (duty proportional "
				      "to brightness, the default) or cie1931 (perceived brightness).",
				      value);
		p->curve = streq(value, "cie1931") ? PWM_CURVE_CIE1931 : PWM_CURVE_LINEAR;
		return 0;
	}
	return errorf(ret_error,
		      "unknown key 'pwm.%s'; the pwm backend knows pwm.chip, pwm.channel, "
		      "pwm.channels, pwm.period, pwm.polarity and pwm.curve.",
		      key);
}

int pwm_verify(struct led_backend *b, char **ret_error)
{
	struct pwm_backend *p = b->priv;

	if (!p->chip)
		return errorf(ret_error, "the pwm backend needs pwm.chip: pwmchipN as in "
					 "/sys/class/pwm, or the chip's device name.");
	if (!p->n_channels && p->channel_given)
		return 0; /* a bad pwm.channel, reported where it is */
	if (!p->n_channels)
		return errorf(ret_error, "the pwm backend needs pwm.channel (a multicolour LED: "
					 "pwm.channels, one per colour).");
	if (b->n_channels && p->n_channels != b->n_channels)
		return errorf(ret_error,
			      "pwm.channels has %u channels but the LED has %u colours; give one "
			      "PWM channel per colour, in the order of 'color'.",
			      p->n_channels, b->n_channels);
	if (!b->n_channels && p->n_channels > 1)
		return errorf(ret_error,
			      "pwm.channels lists %u channels but the LED has no colours; give "
			      "one channel, or make the LED multicolour with 'color = ...'.",
			      p->n_channels);
	return 0;
}

char *pwm_claim(const struct led_backend *b)
{
	const struct pwm_backend *p = b->priv;
	char *s = NULL, list[PWM_CHANNELS_MAX * 12] = "";
	size_t len = 0;

	if (!p->chip || !p->n_channels)
		return NULL;
	for (unsigned i = 0; i < p->n_channels; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u", i ? " " : "",
					p->channel[i]);
	return asprintf(&s, "PWM %s channel %s", p->chip, list) < 0 ? NULL : s;
}

bool pwm_same(const struct led_backend *a, const struct led_backend *b)
{
	const struct pwm_backend *x = a->priv, *y = b->priv;

	return streq_ptr(x->chip, y->chip) && x->n_channels == y->n_channels &&
	       !memcmp(x->channel, y->channel, sizeof(x->channel)) &&
	       pwm_period_of(x) == pwm_period_of(y) && x->inversed == y->inversed && x->curve == y->curve;
}

void pwm_free_priv(struct led_backend *b)
{
	struct pwm_backend *p = b->priv;

	free(p->chip);
	p->chip = NULL;
}

/* The chip's device directory, where its pwmchipN appears again after a rebind: by
 * /sys/class/pwm/pwmchipN/device, or a device of that name on any bus (there without its
 * driver too). A chip that cannot be found now may come from anywhere: all of /sys/devices. */
char *pwm_sysfs_writes(const struct led_backend *b, const char *sysfs)
{
	const struct pwm_backend *p = b->priv;
	_cleanup_(closedirp) DIR *d = NULL;
	char *path = NULL, *real = NULL;
	struct dirent *de;

	if (!p->chip)
		return NULL;
	if (strncmp(p->chip, "pwmchip", 7) == 0) {
		if (asprintf(&path, "%s/class/pwm/%s/device", sysfs, p->chip) < 0)
			return NULL;
		real = realpath(path, NULL);
		free(path);
		path = NULL;
	}
	if (!real && asprintf(&path, "%s/bus", sysfs) >= 0)
		d = opendir(path);
	free(path);
	while (!real && d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    asprintf(&path, "%s/bus/%s/devices/%s", sysfs, de->d_name, p->chip) < 0)
			continue;
		real = realpath(path, NULL);
		free(path);
	}
	if (real)
		return real;
	return asprintf(&path, "%s/devices", sysfs) < 0 ? NULL : path;
}
