// SPDX-License-Identifier: MIT
/* uledsctl record without a bus: the daemon's lines in, transitions, statistics, CSV, JSON,
 * VCD and SVG out. */
#include <errno.h>
#include <string.h>

#include "ctl.h"
#include "record-data.h"
#include "test.h"

#define MS 1000000ULL

static void feed(struct recording *rec, const char *line, int expect)
{
	size_t led = 99;
	int r = recording_feed(rec, line, &led);

	CHECK_INT(r, expect, line);
}

/* A software blink 24 ms on, 36 ms off: 10 cycles from t = 1 s. */
static void feed_blink(struct recording *rec)
{
	char line[128];
	uint64_t t = 1000 * MS;

	feed(rec, "uledsd-record 1", 0);
	feed(rec, "1000000000\tb:green:x\tmode\tevent\t1", 0);
	feed(rec, "1000000000\tb:green:x\tstate\t0\t0\t0", 0);
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "%llu\tb:green:x\tbrightness\t1",
			 (unsigned long long)(t + 5 * MS));
		feed(rec, line, 1);
		snprintf(line, sizeof(line), "%llu\tb:green:x\tbrightness\t1",
			 (unsigned long long)(t + 6 * MS));
		feed(rec, line, 0); /* an equal value: a record, not a transition */
		snprintf(line, sizeof(line), "%llu\tb:green:x\tbrightness\t0",
			 (unsigned long long)(t + 29 * MS));
		feed(rec, line, 1);
		t += 60 * MS;
	}
	rec->end_ns = t + 10 * MS;
}

static void test_stats(void)
{
	struct recording rec = {0};
	struct rec_stats s;

	feed_blink(&rec);
	CHECK_INT(rec.n_leds, 1, "one LED");
	CHECK_INT(rec_led_stats(&rec.leds[0], &s), 0, "stats");
	CHECK_INT(s.transitions, 20, "transitions");
	CHECK_INT(rec.leds[0].records, 30, "records");
	CHECK_INT(s.n_on, 10, "complete on intervals");
	CHECK_INT(s.n_off, 9, "complete off intervals (the last is cut by the end)");
	CHECK_INT(s.on_median, 24000, "on median, us");
	CHECK_INT(s.off_median, 36000, "off median, us");
	CHECK_INT(s.period, 60000, "period, us");
	CHECK((s.duty > 0.399 && s.duty < 0.401), "duty %f", s.duty);
	feed(&rec, "garbage", -EBADMSG);
	feed(&rec, "1\t\tdropped\t7", 0);
	CHECK_INT(rec.dropped, 7, "dropped lines counted");
	recording_clear(&rec);
}

static void test_offload(void)
{
	struct recording rec = {0};
	struct rec_stats s;

	feed(&rec, "uledsd-record 1", 0);
	feed(&rec, "100\tb:red:y\tmode\tevent-offload\t255", 0);
	feed(&rec, "100\tb:red:y\tstate\t0\t0\t0", 0);
	feed(&rec, "200\tb:red:y\tblink\t255\t20\t30", 1);
	feed(&rec, "300\tb:red:y\tbrightness\t128", 1); /* a new level: still blinking */
	CHECK_INT(rec.leds[0].changes[1].on_ms, 20, "a level during a blink keeps blinking");
	feed(&rec, "400\tb:red:y\tlost\t3", 0);
	CHECK_INT(rec_led_stats(&rec.leds[0], &s), 0, "stats");
	CHECK_INT(s.blink_on_ms, 20, "blink on");
	CHECK_INT(s.period, 50000, "period from the blink's delays");
	CHECK_INT(s.lost, 3, "lost");
	recording_clear(&rec);
}

static char *render(int (*fn)(FILE *, const struct recording *), const struct recording *rec)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	CHECK_INT(fn(f, rec), 0, "render");
	fclose(f);
	return buf;
}

static int summary_text(FILE *f, const struct recording *rec)
{
	return record_print_summary(f, REC_FORMAT_TEXT, rec);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static void test_renderings(void)
{
	struct recording rec = {0};
	_cleanup_free_ char *vcd = NULL, *svg = NULL;
	const char *changes;

	feed_blink(&rec);
	vcd = render(record_write_vcd, &rec);
	CHECK_INT(count(vcd, "$var wire 1 ! b:green:x $end"), 1, "one VCD signal");
	/* After $dumpvars' initial value: one value change a transition. */
	changes = strstr(vcd, "$dumpvars");
	changes = changes ? strstr(changes, "$end\n") : NULL;
	CHECK_INT(count(changes ? changes : "", "!\n"), 20, "VCD changes = transitions");
	svg = render(record_write_svg, &rec);
	CHECK_INT(count(svg, "class=\"lane\""), 1, "one SVG lane");
	CHECK(strstr(svg, "</svg>") != NULL, "SVG complete");
	recording_clear(&rec);
}

/* A blink that runs when the recording starts: the VCD draws its toggles from the start. */
static void test_vcd_initial_blink(void)
{
	struct recording rec = {0};
	_cleanup_free_ char *vcd = NULL, *text = NULL;
	const char *changes;

	feed(&rec, "uledsd-record 1", 0);
	feed(&rec, "1000000000\tb:red:y\tmode\tevent-offload\t1", 0);
	feed(&rec, "1000000000\tb:red:y\tstate\t1\t100\t100", 0);
	rec.start_ns = 1000000000;
	rec.end_ns = 2000000000; /* 1 s of a 100/100 ms blink: 10 phases */
	vcd = render(record_write_vcd, &rec);
	changes = strstr(vcd, "$dumpvars");
	changes = changes ? strstr(changes, "$end\n") : NULL;
	CHECK_INT(count(changes ? changes : "", "!\n"), 9, "a running blink: 9 toggles after #0");
	CHECK(strstr(vcd, "#100000\n0!\n#200000\n1!\n") != NULL, "toggles every 100 ms:\n%s", vcd);
	struct rec_stats st;
	CHECK_INT(rec_led_stats(&rec.leds[0], &st), 0, "stats of a blink that ran all along");
	CHECK(st.blink_on_ms == 100 && st.blink_off_ms == 100 && st.period == 200000 &&
		  st.duty > 0.49 && st.duty < 0.51,
	      "its delays are the summary: %u/%u ms, period %llu us", st.blink_on_ms,
	      st.blink_off_ms, (unsigned long long)st.period);

	/* In text, the delays without on/off-time lines made of no interval at all. */
	text = render(summary_text, &rec);
	CHECK(strstr(text, "  blink    100 ms on, 100 ms off (offloaded)\n"
			   "  period   200.000 ms, duty cycle 50.0 %\n") &&
		      !strstr(text, "on-time"),
	      "a blink's text summary is its delays:\n%s", text);
	recording_clear(&rec);
}

/* Text lines: the names in one column as wide as the longest, values right-aligned. */
static void test_text_columns(void)
{
	struct recording rec = {0};
	char *text = NULL;
	size_t size = 0, led = 0;
	FILE *f = open_memstream(&text, &size);

	feed(&rec, "uledsd-record 1", 0);
	feed(&rec, "1000\tb:red:y\tstate\t0\t0\t0", 0);
	feed(&rec, "1000\tboard:green:long\tstate\t0\t0\t0", 0);
	CHECK_INT(recording_feed(&rec, "2000\tb:red:y\tbrightness\t7", &led), 1, "a transition");
	record_print_change(f, REC_FORMAT_TEXT, &rec, led);
	CHECK_INT(recording_feed(&rec, "3000\tboard:green:long\tbrightness\t255", &led), 1,
		  "a transition");
	record_print_change(f, REC_FORMAT_TEXT, &rec, led);
	fclose(f);
	CHECK(strstr(text, "  b:red:y             7  +") &&
		      strstr(text, "  board:green:long  255  +"),
	      "names in a column, values right-aligned:\n%s", text);
	free(text);
	recording_clear(&rec);
}

int main(void)
{
	TEST_CASE(test_text_columns);
	TEST_CASE(test_vcd_initial_blink);
	TEST_CASE(test_stats);
	TEST_CASE(test_offload);
	TEST_CASE(test_renderings);
	return test_finish("test-record-data");
}
