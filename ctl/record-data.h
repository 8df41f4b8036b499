/* SPDX-License-Identifier: MIT */
/* A recording as uledsctl record reads it (uledsd-dbus(7), "Recording"), its statistics and its
 * renderings: no bus here, so tests/unit/test-record-*.c drive it with lines of text. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A state of one LED from t_ns on: steady at value, or blinking on_ms at value / off_ms dark. */
struct rec_change {
	uint64_t t_ns;
	unsigned value;
	unsigned on_ms, off_ms;
};

struct rec_led {
	char *name;
	char *mode; /* "event", "event-offload", "latest-value" */
	unsigned max_brightness;
	struct rec_change initial;  /* at the start of the recording */
	struct rec_change *changes; /* the transitions, in order */
	size_t n_changes, n_alloc;
	unsigned long long lost;    /* records the kernel's ring dropped */
	unsigned long long records; /* every record, equal values included */
};

struct recording {
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC: the header's time, the last seen */
	struct rec_led *leds;
	size_t n_leds;
	size_t name_width;	    /* the longest LED name: the text format's name column */
	unsigned long long dropped; /* lines the daemon could not write: the reader was late */
	bool header_seen;
};

enum rec_format {
	REC_FORMAT_TEXT,
	REC_FORMAT_CSV,
	REC_FORMAT_JSON,
	REC_FORMAT_VCD,
};

/* One line without its newline. Returns 1 and the LED's index in *ret_led when it was a
 * transition (the new one is leds[*ret_led].changes[n_changes - 1]), 0 for any other line,
 * -EBADMSG for a line that is not the format, -ENOMEM. */
int recording_feed(struct recording *rec, const char *line, size_t *ret_led);
void recording_clear(struct recording *rec);

/* Times in microseconds. on/off: complete intervals between two transitions (a blink's
 * delays when only an offloaded blink was recorded). */
struct rec_stats {
	size_t transitions;
	size_t n_on, n_off;
	uint64_t on_min, on_median, on_max;
	uint64_t off_min, off_median, off_max;
	uint64_t period;		    /* on_median + off_median, 0 when unknown */
	double duty;			    /* on time / (on + off time), -1 when unknown */
	unsigned blink_on_ms, blink_off_ms; /* the last offloaded blink, 0/0: none */
	bool from_blink; /* no interval seen: on, off, period and duty are the blink's delays */
	unsigned long long lost;
};
int rec_led_stats(const struct rec_led *l, struct rec_stats *ret);

/* A transition as a line of text, csv or json (csv and text print a header first when
 * header is set); the summary after the last one. */
void record_print_header(FILE *f, enum rec_format fmt);
void record_print_change(FILE *f, enum rec_format fmt, const struct recording *rec, size_t led);
int record_print_summary(FILE *f, enum rec_format fmt, const struct recording *rec);

/* record-vcd.c: a value change dump, one signal per LED; offloaded blinks as their toggles. */
int record_write_vcd(FILE *f, const struct recording *rec);
/* record-svg.c: a waveform, one lane per LED, a time axis, blinks drawn blinking. */
int record_write_svg(FILE *f, const struct recording *rec);
