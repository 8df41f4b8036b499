/* SPDX-License-Identifier: MIT */
/* What uledsctl's files share: the connection, LEDs as read from the bus, output helpers. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "macro.h"
#include "string-util.h"
#include "uledsd-bus.h" /* the io.uledsd1 names, written once (api/) */

/* Exit codes, documented in uledsctl(1). */
enum {
	CTL_EXIT_OK = 0,
	CTL_EXIT_FAILURE = 1,	  /* the user can fix it: unknown LED, bad value, denied... */
	CTL_EXIT_USAGE = 2,	  /* wrong command line */
	CTL_EXIT_NOT_RUNNING = 3, /* io.uledsd1 is not on the bus (or there is no bus) */
	CTL_EXIT_NO_SUCH_LED = 4, /* no LED of that name (or none matches the glob) */
};

/* sd-bus errors freed at scope exit, as basic/macro.h frees everything else. */
static inline void bus_error_freep(sd_bus_error *e)
{
	sd_bus_error_free(e);
}
#define _cleanup_bus_error_ _cleanup_(bus_error_freep)

struct ctl {
	sd_bus *bus;
	const char *bus_kind; /* "system" or "session": for messages */
	const char *address;  /* --address, NULL for the default of bus_kind */
	char *bus_desc;	      /* "system bus", "bus at ADDRESS": for messages */
	const char *command;  /* for messages: "uledsctl set: ..." */
	bool json;
	bool no_pager;
	bool no_legend; /* no header line, even on a terminal */
	bool quiet;	/* set: no line with the new value of a relative change */
	/* show's options: -p PROP[,PROP...] (may repeat; NULL: every property), --value */
	char **show_props;
	size_t n_show_props;
	bool show_value;
	bool tty;	/* stdout is a terminal: header, lamp row */
	bool color;	/* and colours are wanted (not NO_COLOR, not TERM=dumb) */
	/* create's options */
	const char *create_max, *create_trigger;
	char *create_backends; /* --backend B..., space-separated */
	bool create_keep;
	bool create_options; /* one of them was given */
	/* record's options, in the order of enum record_opt (record.c) */
	const char *record_opts[4];
};

struct ctl_backend {
	char *name;
	bool ok;
	char *status; /* "attached", "waiting for gpiochip3", ... (JSON key "state") */
};

/* One channel of a multicolour LED (the Color property). */
struct ctl_channel {
	char *name; /* the kernel's colour name: "red" */
	uint32_t intensity;
};

struct ctl_led {
	char *path;
	char *name;
	uint32_t brightness;
	uint32_t max_brightness;
	char *trigger;
	char *mode;			    /* "event-offload", "event", "latest-value" */
	uint32_t blink_on_ms, blink_off_ms; /* an offloaded blink, 0/0: none */
	struct ctl_backend *backends;
	size_t n_backends;
	struct ctl_channel *channels; /* none for a plain LED */
	size_t n_channels;
	bool transient;
};

/* bus.c. Functions that talk to the user (connect, look up, list) print one message and
 * return a CTL_EXIT_* code > 0 on failure; the readers of messages return -errno. */
int ctl_connect(struct ctl *c);
int ctl_error(struct ctl *c, int r, const sd_bus_error *e, const char *fmt, ...) _printf_(4, 5);
int ctl_fail(struct ctl *c, int code, const char *fmt, ...) _printf_(3, 4);
int ctl_led_path(struct ctl *c, const char *name, char **ret);
/* Calls METHOD of io.uledsd1.LED on PATH (interactive: polkit may ask); -errno and *e. */
int ctl_call_led_method(struct ctl *c, const char *path, const char *method, sd_bus_error *e,
			const char *types, ...);
int ctl_get_leds(struct ctl *c, struct ctl_led **ret, size_t *ret_n);
int ctl_read_leds(sd_bus *bus, struct ctl_led **ret, size_t *ret_n, sd_bus_error *e);
int ctl_led_read_props(struct ctl_led *l, sd_bus_message *m);
int ctl_led_read_object(struct ctl_led *l, sd_bus_message *m);
void ctl_led_clear(struct ctl_led *l);
void ctl_leds_free(struct ctl_led *leds, size_t n);
void ctl_leds_sort(struct ctl_led *leds, size_t n);
bool ctl_led_has_backend(const struct ctl_led *l, const char *name);

/* output.c */
#define ANSI_RESET "\033[0m"
#define ANSI_BOLD "\033[1m"
#define ANSI_DIM "\033[2m"
#define ANSI_RED "\033[31m"
#define ANSI_GREEN "\033[32m"
#define ANSI_YELLOW "\033[33m"
const char *ctl_ansi(const struct ctl *c, const char *seq);
void ctl_led_rgb(const char *name, uint8_t rgb[3]);
const char *ctl_lamp_glyph(const struct ctl_led *l);
void ctl_lamp_color(const struct ctl *c, const struct ctl_led *l, char buf[static 32]);
void ctl_lamp(const struct ctl *c, FILE *f, const struct ctl_led *l);
char *ctl_color_text(const struct ctl_led *l, const char *between, const char *sep);
void ctl_pager_open(struct ctl *c);
void ctl_pager_close(void);
size_t ctl_text_width(const char *s);

struct table;
struct table *table_new(size_t n_columns, const char *const *headers);
void table_set_right(struct table *t, size_t column);
int table_add(struct table *t, const char *const *cells, const char *const *colors);
void table_print(const struct ctl *c, struct table *t, FILE *f);
struct table *table_free(struct table *t);

/* json.c: one small emitter for every --json */
struct json {
	FILE *f;
	unsigned depth;
	bool pretty;
	bool need_comma;
	bool after_key;
};
void json_begin(struct json *j, char open);
void json_end(struct json *j, char close);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
/* A key and its value, in one call. */
void json_field_uint(struct json *j, const char *key, uint64_t v);
void json_field_string(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, bool b);
void json_null(struct json *j);
void json_strv(struct json *j, char **strv);
void json_led(struct json *j, const struct ctl_led *l);

/* commands.c */
int cmd_list(struct ctl *c, char **args, size_t n);
int cmd_status(struct ctl *c, char **args, size_t n);
int cmd_get(struct ctl *c, char **args, size_t n);
int cmd_set(struct ctl *c, char **args, size_t n);
int cmd_color(struct ctl *c, char **args, size_t n);
int cmd_trigger(struct ctl *c, char **args, size_t n);
/* effects.c: blink, heartbeat, pattern (trigger underneath); check_* before the bus opens */
int check_blink(struct ctl *c, char **args, size_t n);
int check_pattern(struct ctl *c, char **args, size_t n);
int cmd_blink(struct ctl *c, char **args, size_t n);
int cmd_heartbeat(struct ctl *c, char **args, size_t n);
int cmd_pattern(struct ctl *c, char **args, size_t n);
int cmd_reload(struct ctl *c, char **args, size_t n);

/* create.c */
int cmd_create(struct ctl *c, char **args, size_t n);
int cmd_remove(struct ctl *c, char **args, size_t n);

/* agent.c: every call that changes state (polkit may ask for a password on a terminal).
 * timeout_usec: the call's own timeout, 0 for sd-bus's default; longer on a terminal. */
int ctl_call_interactive(struct ctl *c, sd_bus_message *m, uint64_t timeout_usec, sd_bus_error *e,
			 sd_bus_message **reply);

/* show.c */
int cmd_show(struct ctl *c, char **args, size_t n);

/* monitor.c */
int cmd_monitor(struct ctl *c, char **args, size_t n);

/* record.c */
/* record's options checked before the bus is opened: CTL_EXIT_OK or an exit status. */
int record_check_args(struct ctl *c);
int cmd_record(struct ctl *c, char **args, size_t n);
