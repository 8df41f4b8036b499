// SPDX-License-Identifier: MIT
/* uledsctl record's output: a line per transition (text, csv, json) and the summary per LED. */
#include <errno.h>
#include <stdlib.h>

#include "ctl.h"
#include "record-data.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* min, median, max of v (sorted here); the sum as return value. */
static uint64_t spread(uint64_t *v, size_t n, uint64_t *min, uint64_t *median, uint64_t *max)
{
	uint64_t sum = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	*min = v[0];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*max = v[n - 1];
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

/* Only an offloaded blink was seen: its delays are the times. */
static void stats_from_blink(struct rec_stats *s)
{
	s->on_min = s->on_median = s->on_max = (uint64_t)s->blink_on_ms * 1000;
	s->off_min = s->off_median = s->off_max = (uint64_t)s->blink_off_ms * 1000;
	s->period = s->on_median + s->off_median;
	s->duty = s->period ? (double)s->on_median / (double)s->period : -1;
	s->from_blink = true;
}

int rec_led_stats(const struct rec_led *l, struct rec_stats *ret)
{
	_cleanup_free_ uint64_t *on = calloc(l->n_changes + 1, sizeof(uint64_t));
	_cleanup_free_ uint64_t *off = calloc(l->n_changes + 1, sizeof(uint64_t));
	struct rec_stats s = {.transitions = l->n_changes, .lost = l->lost, .duty = -1};
	uint64_t sum_on, sum_off;

	if (!on || !off)
		return -ENOMEM;
	/* Complete intervals only: from one transition to the next (the start and the end of
	 * the recording cut an interval short). */
	for (size_t i = 0; i + 1 < l->n_changes; i++) {
		const struct rec_change *c = &l->changes[i];
		uint64_t d = (l->changes[i + 1].t_ns - c->t_ns) / 1000;

		if (c->on_ms || c->off_ms)
			continue;
		if (c->value)
			on[s.n_on++] = d;
		else
			off[s.n_off++] = d;
	}
	for (size_t i = l->n_changes; i > 0; i--)
		if (l->changes[i - 1].on_ms || l->changes[i - 1].off_ms) {
			s.blink_on_ms = l->changes[i - 1].on_ms;
			s.blink_off_ms = l->changes[i - 1].off_ms;
			break;
		}
	if (!l->n_changes && (l->initial.on_ms || l->initial.off_ms)) {
		/* A blink that ran all along: nothing toggled, its delays are what it does. */
		s.blink_on_ms = l->initial.on_ms;
		s.blink_off_ms = l->initial.off_ms;
	}
	sum_on = spread(on, s.n_on, &s.on_min, &s.on_median, &s.on_max);
	sum_off = spread(off, s.n_off, &s.off_min, &s.off_median, &s.off_max);
	if (s.n_on && s.n_off) {
		s.period = s.on_median + s.off_median;
		/* Mean on over mean cycle: a recording cut mid-cycle does not tilt it. */
		s.duty = ((double)sum_on / (double)s.n_on) /
			 ((double)sum_on / (double)s.n_on + (double)sum_off / (double)s.n_off);
	} else if (!s.n_on && !s.n_off && (s.blink_on_ms || s.blink_off_ms))
		stats_from_blink(&s);
	*ret = s;
	return 0;
}

void record_print_header(FILE *f, enum rec_format fmt)
{
	if (fmt == REC_FORMAT_CSV)
		fputs("time_us,led,value,blink_on_ms,blink_off_ms,delta_us\n", f);
}

static void csv_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void record_print_change(FILE *f, enum rec_format fmt, const struct recording *rec, size_t led)
{
	const struct rec_led *l = &rec->leds[led];
	const struct rec_change *c = &l->changes[l->n_changes - 1];
	uint64_t prev = l->n_changes > 1 ? l->changes[l->n_changes - 2].t_ns : rec->start_ns;
	unsigned long long t = (c->t_ns - rec->start_ns) / 1000, d = (c->t_ns - prev) / 1000;
	struct json j = {.f = f};

	if (fmt == REC_FORMAT_TEXT) {
		fprintf(f, "%4llu.%06llu  %-*s  ", t / 1000000, t % 1000000, (int)rec->name_width,
			l->name);
		if (c->on_ms || c->off_ms)
			fprintf(f, "blink %u/%u ms at %u", c->on_ms, c->off_ms, c->value);
		else
			fprintf(f, "%3u", c->value);
		fprintf(f, "  +%llu.%03llu ms\n", d / 1000, d % 1000);
	} else if (fmt == REC_FORMAT_CSV) {
		fprintf(f, "%llu,", t);
		csv_string(f, l->name);
		fprintf(f, ",%u,%u,%u,%llu\n", c->value, c->on_ms, c->off_ms, d);
	} else if (fmt == REC_FORMAT_JSON) {
		json_begin(&j, '{');
		json_field_uint(&j, "time_us", t);
		json_field_string(&j, "led", l->name);
		json_field_uint(&j, "value", c->value);
		json_field_uint(&j, "blink_on_ms", c->on_ms);
		json_field_uint(&j, "blink_off_ms", c->off_ms);
		json_field_uint(&j, "delta_us", d);
		json_end(&j, '}');
	}
}

static void text_ms(FILE *f, uint64_t us)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)us / 1000, (unsigned long long)us % 1000);
}

static void summary_text(FILE *f, const struct rec_led *l, const struct rec_stats *s)
{
	fprintf(f, "%s (%s): %zu transitions, %llu lost\n", l->name, l->mode ? l->mode : "?",
		s->transitions, s->lost);
	if (l->mode && streq(l->mode, "latest-value"))
		fputs("  latest-value: times are when uledsd read the value, and a pulse shorter "
		      "than its\n  reaction is lost (uledsd's uleds module records every change)\n",
		      f);
	if (s->blink_on_ms || s->blink_off_ms)
		fprintf(f, "  blink    %u ms on, %u ms off (offloaded)\n", s->blink_on_ms,
			s->blink_off_ms);
	/* An offloaded blink that never toggled: the blink line above is all there is. */
	for (int on = 1; on >= 0 && !s->from_blink; on--) {
		size_t n = on ? s->n_on : s->n_off;

		fprintf(f, "  %s  min ", on ? "on-time " : "off-time");
		text_ms(f, on ? s->on_min : s->off_min);
		fputs("  median ", f);
		text_ms(f, on ? s->on_median : s->off_median);
		fputs("  max ", f);
		text_ms(f, on ? s->on_max : s->off_max);
		fprintf(f, " ms (%zu interval%s)\n", n, n == 1 ? "" : "s");
	}
	fputs("  period   ", f);
	text_ms(f, s->period);
	if (s->duty >= 0)
		fprintf(f, " ms, duty cycle %.1f %%\n", 100 * s->duty);
	else
		fputs(" ms, duty cycle unknown\n", f);
}

static void json_spread(struct json *j, const char *key, uint64_t min, uint64_t median,
			uint64_t max, size_t n)
{
	json_key(j, key);
	json_begin(j, '{');
	json_field_uint(j, "count", n);
	json_field_uint(j, "min_us", min);
	json_field_uint(j, "median_us", median);
	json_field_uint(j, "max_us", max);
	json_end(j, '}');
}

static void summary_json(struct json *j, const struct rec_led *l, const struct rec_stats *s)
{
	json_begin(j, '{');
	json_field_string(j, "led", l->name);
	json_field_string(j, "mode", l->mode ? l->mode : "");
	json_field_uint(j, "transitions", s->transitions);
	json_field_uint(j, "records", l->records);
	json_spread(j, "on", s->on_min, s->on_median, s->on_max, s->n_on);
	json_spread(j, "off", s->off_min, s->off_median, s->off_max, s->n_off);
	json_field_uint(j, "period_us", s->period);
	json_field_uint(j, "duty_permille", s->duty >= 0 ? (uint64_t)(s->duty * 1000 + 0.5) : 0);
	json_field_uint(j, "blink_on_ms", s->blink_on_ms);
	json_field_uint(j, "blink_off_ms", s->blink_off_ms);
	json_field_uint(j, "lost", s->lost);
	json_end(j, '}');
}

static void summary_csv(FILE *f, const struct rec_led *l, const struct rec_stats *s)
{
	csv_string(f, l->name);
	fprintf(f, ",%zu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.4f,%llu\n", s->transitions,
		(unsigned long long)s->on_min, (unsigned long long)s->on_median,
		(unsigned long long)s->on_max, (unsigned long long)s->off_min,
		(unsigned long long)s->off_median, (unsigned long long)s->off_max,
		(unsigned long long)s->period, s->duty, s->lost);
}

int record_print_summary(FILE *f, enum rec_format fmt, const struct recording *rec)
{
	struct json j = {.f = f};
	struct rec_stats s;
	int r;

	if (fmt == REC_FORMAT_CSV)
		fputs("\nled,transitions,on_min_us,on_median_us,on_max_us,off_min_us,"
		      "off_median_us,off_max_us,period_us,duty,lost\n",
		      f);
	else if (fmt == REC_FORMAT_JSON) {
		json_begin(&j, '{');
		json_key(&j, "summary");
		json_begin(&j, '[');
	} else
		fputs("\n", f);
	for (size_t i = 0; i < rec->n_leds; i++) {
		r = rec_led_stats(&rec->leds[i], &s);
		if (r < 0)
			return r;
		if (fmt == REC_FORMAT_CSV)
			summary_csv(f, &rec->leds[i], &s);
		else if (fmt == REC_FORMAT_JSON)
			summary_json(&j, &rec->leds[i], &s);
		else
			summary_text(f, &rec->leds[i], &s);
	}
	if (fmt == REC_FORMAT_JSON) {
		json_end(&j, ']');
		json_field_uint(&j, "duration_us", (rec->end_ns - rec->start_ns) / 1000);
		json_field_uint(&j, "dropped", rec->dropped);
		json_end(&j, '}');
	} else if (rec->dropped)
		fprintf(f, "%llu records dropped: the reader was late (uledsd's pipe was full)\n",
			rec->dropped);
	return 0;
}
