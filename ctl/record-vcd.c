// SPDX-License-Identifier: MIT
/* uledsctl record --format vcd: a value change dump (IEEE 1364) for PulseView and GTKWave. */
#include <errno.h>
#include <stdlib.h>

#include "ctl.h"
#include "record-data.h"

#define VCD_MAX_TOGGLES 200000 /* an offloaded blink drawn as toggles: bounded output */

struct vcd_change {
	uint64_t t_us;
	size_t led;
	unsigned value;
};

static int cmp_change(const void *a, const void *b)
{
	const struct vcd_change *x = a, *y = b;

	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return x->led < y->led ? -1 : x->led > y->led;
}

static unsigned vcd_width(const struct rec_led *l)
{
	unsigned w = 1;

	while (w < 32 && (l->max_brightness >> w))
		w++;
	return w;
}

/* Identifiers: printable ASCII from '!', two characters after the first 94 signals. */
static void vcd_id(size_t i, char buf[static 3])
{
	buf[0] = (char)('!' + i % 94);
	buf[1] = i >= 94 ? (char)('!' + i / 94) : 0;
	buf[2] = 0;
}

static void vcd_value(FILE *f, const struct rec_led *l, size_t i, unsigned v)
{
	unsigned w = vcd_width(l);
	char id[3];

	vcd_id(i, id);
	if (w == 1) {
		fprintf(f, "%u%s\n", v ? 1 : 0, id);
		return;
	}
	fputc('b', f);
	for (unsigned b = w; b > 0; b--)
		fputc(v >> (b - 1) & 1 ? '1' : '0', f);
	fprintf(f, " %s\n", id);
}

static int vcd_push(struct vcd_change **v, size_t *n, size_t *alloc, struct vcd_change c)
{
	if (*n == *alloc) {
		struct vcd_change *p = realloc(*v, (*alloc * 2 + 64) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*alloc = *alloc * 2 + 64;
	}
	(*v)[(*n)++] = c;
	return 0;
}

/* Change c of LED i from t on, until end: itself, or an offloaded blink as its toggles. lit:
 * the phase at t (the initial state's value is in $dumpvars already: it starts dark). */
static int vcd_expand(const struct recording *rec, size_t i, const struct rec_change *c, uint64_t t,
		      uint64_t end, bool lit, struct vcd_change **v, size_t *n, size_t *alloc)
{
	bool blink = c->on_ms || c->off_ms;
	int r;

	do {
		r = vcd_push(
		    v, n, alloc,
		    (struct vcd_change){(t - rec->start_ns) / 1000, i, lit ? c->value : 0});
		if (r < 0)
			return r;
		t += (uint64_t)(lit ? c->on_ms : c->off_ms) * 1000000;
		lit = !lit;
	} while (blink && t < end && *n < VCD_MAX_TOGGLES);
	return 0;
}

/* Changes of LED i: transitions as they are, an offloaded blink as its toggles until the
 * next transition (or the end), one that ran when the recording started included (its
 * phase unknown: lit at the start). */
static int vcd_collect(const struct recording *rec, size_t i, struct vcd_change **v, size_t *n,
		       size_t *alloc)
{
	const struct rec_led *l = &rec->leds[i];
	const struct rec_change *c0 = &l->initial;
	int r = 0;

	uint64_t t0 = rec->start_ns + (uint64_t)c0->on_ms * 1000000,
		 end0 = l->n_changes ? l->changes[0].t_ns : rec->end_ns;

	if ((c0->on_ms || c0->off_ms) && t0 < end0)
		r = vcd_expand(rec, i, c0, t0, end0, false, v, n, alloc);
	for (size_t k = 0; r >= 0 && k < l->n_changes; k++)
		r = vcd_expand(rec, i, &l->changes[k], l->changes[k].t_ns,
			       k + 1 < l->n_changes ? l->changes[k + 1].t_ns : rec->end_ns, true, v,
			       n, alloc);
	return r;
}

static void vcd_header(FILE *f, const struct recording *rec)
{
	fputs("$version uledsctl record $end\n$timescale 1us $end\n$scope module uledsd $end\n", f);
	for (size_t i = 0; i < rec->n_leds; i++) {
		char id[3];

		vcd_id(i, id);
		fprintf(f, "$var wire %u %s ", vcd_width(&rec->leds[i]), id);
		/* VCD names end at white space. */
		for (const char *s = rec->leds[i].name; *s; s++)
			fputc(*s == ' ' ? '_' : *s, f);
		fputs(" $end\n", f);
	}
	fputs("$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n", f);
	for (size_t i = 0; i < rec->n_leds; i++)
		vcd_value(f, &rec->leds[i], i, rec->leds[i].initial.value);
	fputs("$end\n", f);
}

int record_write_vcd(FILE *f, const struct recording *rec)
{
	_cleanup_free_ struct vcd_change *v = NULL;
	size_t n = 0, alloc = 0;
	uint64_t last = 0;
	int r;

	for (size_t i = 0; i < rec->n_leds; i++) {
		r = vcd_collect(rec, i, &v, &n, &alloc);
		if (r < 0)
			return r;
	}
	qsort(v, n, sizeof(*v), cmp_change);
	vcd_header(f, rec);
	for (size_t k = 0; k < n; k++) {
		if (v[k].t_us != last)
			fprintf(f, "#%llu\n", (unsigned long long)v[k].t_us);
		last = v[k].t_us;
		vcd_value(f, &rec->leds[v[k].led], v[k].led, v[k].value);
	}
	if ((rec->end_ns - rec->start_ns) / 1000 > last)
		fprintf(f, "#%llu\n", (unsigned long long)(rec->end_ns - rec->start_ns) / 1000);
	return ferror(f) ? -EIO : 0;
}
