// SPDX-License-Identifier: MIT
/* uledsctl record --svg: the recording as a waveform to open in a browser. */
#include <errno.h>
#include <math.h>

#include "ctl.h"
#include "record-data.h"

#define SVG_WIDTH 1000
#define SVG_LEFT 200 /* the names */
#define SVG_RIGHT 40 /* room for half the last tick label ("3000 ms") */
#define SVG_TOP 40
#define SVG_LANE 56
#define SVG_WAVE 36 /* height of a full-brightness pulse */
#define SVG_AXIS 40

struct svg {
	FILE *f;
	const struct recording *rec;
	double span_ns;
};

static double svg_x(const struct svg *s, uint64_t t_ns)
{
	double w = SVG_WIDTH - SVG_LEFT - SVG_RIGHT;

	return SVG_LEFT + w * (double)(t_ns - s->rec->start_ns) / s->span_ns;
}

static void xml_text(FILE *f, const char *t)
{
	for (; *t; t++)
		switch (*t) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*t, f);
		}
}

/* The level of a value in the lane whose baseline is y0. */
static double svg_level(const struct rec_led *l, double y0, unsigned v)
{
	unsigned max = l->max_brightness ? l->max_brightness : 1;

	return y0 - SVG_WAVE * (double)(v > max ? max : v) / max;
}

/* A blink from t to end: its toggles when they are at least 2 px apart, else a band. */
static void svg_blink(const struct svg *s, const struct rec_led *l, const struct rec_change *c,
		      uint64_t end, double y0)
{
	double hi = svg_level(l, y0, c->value), x0 = svg_x(s, c->t_ns), x1 = svg_x(s, end);
	uint64_t period = (uint64_t)(c->on_ms + c->off_ms) * 1000000;

	if (!period || (x1 - x0) * (double)period / (double)(end - c->t_ns + 1) < 4) {
		fprintf(s->f,
			"<rect class=\"blink-band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"url(#hatch)\"/>\n",
			x0, hi, x1 - x0, y0 - hi);
		return;
	}
	fputs("<path class=\"blink\" d=\"", s->f);
	for (uint64_t t = c->t_ns; t < end; t += period) {
		uint64_t off = t + (uint64_t)c->on_ms * 1000000;

		fprintf(s->f, "M%.1f %.1fV%.1fH%.1fV%.1f ", svg_x(s, t), y0, hi,
			svg_x(s, off < end ? off : end), y0);
	}
	fputs("\"/>\n", s->f);
}

static void svg_lane(const struct svg *s, size_t i)
{
	const struct rec_led *l = &s->rec->leds[i];
	double y0 = SVG_TOP + (double)(i + 1) * SVG_LANE - 10;
	const struct rec_change *now = &l->initial;

	fprintf(s->f, "<g class=\"lane\" data-led=\"");
	xml_text(s->f, l->name);
	fprintf(s->f, "\">\n<text x=\"8\" y=\"%.1f\">", y0 - SVG_WAVE / 2.0 + 4);
	xml_text(s->f, l->name);
	fprintf(s->f,
		"</text>\n<line class=\"base\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		SVG_LEFT, y0, SVG_WIDTH - SVG_RIGHT, y0);
	fprintf(s->f, "<path class=\"wave\" d=\"M%d %.1f", SVG_LEFT,
		svg_level(l, y0, now->on_ms || now->off_ms ? 0 : now->value));
	for (size_t k = 0; k < l->n_changes; k++) {
		const struct rec_change *c = &l->changes[k];
		bool blink = c->on_ms || c->off_ms;

		fprintf(s->f, "H%.1fV%.1f", svg_x(s, c->t_ns),
			svg_level(l, y0, blink ? 0 : c->value));
	}
	fprintf(s->f, "H%d\"/>\n", SVG_WIDTH - SVG_RIGHT);
	if (now->on_ms || now->off_ms) /* blinking when the recording started */
		svg_blink(s, l, now, l->n_changes ? l->changes[0].t_ns : s->rec->end_ns, y0);
	for (size_t k = 0; k < l->n_changes; k++)
		if (l->changes[k].on_ms || l->changes[k].off_ms)
			svg_blink(s, l, &l->changes[k],
				  k + 1 < l->n_changes ? l->changes[k + 1].t_ns : s->rec->end_ns,
				  y0);
	fputs("</g>\n", s->f);
}

/* Ticks at 1, 2 or 5 times a power of ten, 5 to 10 of them; seconds from 1 s steps on. */
static void svg_axis(const struct svg *s, double y)
{
	double span_ms = s->span_ns / 1e6, step = pow(10, floor(log10(span_ms / 10)));
	double n = span_ms / step; /* 10 to 100 */

	step *= n >= 50 ? 10 : n >= 20 ? 5 : 2;
	fprintf(s->f, "<g class=\"axis\">\n<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		SVG_LEFT, y, SVG_WIDTH - SVG_RIGHT, y);
	for (double t = 0; t <= span_ms + 1e-9; t += step) {
		double x = svg_x(s, s->rec->start_ns + (uint64_t)(t * 1e6));

		fprintf(s->f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g %s</text>\n",
			x, y, x, y + 5, x, y + 18, step >= 1000 ? t / 1000 : t,
			step >= 1000 ? "s" : "ms");
	}
	fputs("</g>\n", s->f);
}

int record_write_svg(FILE *f, const struct recording *rec)
{
	struct svg s = {.f = f, .rec = rec};
	double h = SVG_TOP + (double)rec->n_leds * SVG_LANE + SVG_AXIS;

	s.span_ns = rec->end_ns > rec->start_ns ? (double)(rec->end_ns - rec->start_ns) : 1e6;
	fprintf(
	    f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
	    "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n"
	    "<defs><pattern id=\"hatch\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\">"
	    "<path d=\"M0 4L4 0\" stroke=\"#d97706\"/></pattern></defs>\n"
	    "<style>.wave,.blink{fill:none;stroke:#16a34a;stroke-width:1.5}"
	    ".blink{stroke:#d97706}.base{stroke:#ddd}.axis line{stroke:#555}</style>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"8\" y=\"22\" font-weight=\"bold\">uledsctl record: %zu LED%s, %.3f s "
	    "(green: brightness, orange: blinking offloaded to uledsd)</text>\n",
	    SVG_WIDTH, h, SVG_WIDTH, h, rec->n_leds, rec->n_leds == 1 ? "" : "s", s.span_ns / 1e9);
	for (size_t i = 0; i < rec->n_leds; i++)
		svg_lane(&s, i);
	svg_axis(&s, SVG_TOP + (double)rec->n_leds * SVG_LANE + 4);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
