// SPDX-License-Identifier: MIT
/* Configuration: drop-in precedence and masking, every validation message, reload comparison. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-files.h"
#include "conf-load.h"
#include "conf-parse.h"
#include "config.h"
#include "backend.h"
#include "conf.h"
#include "led-conf.h"
#include "macro.h"
#include "registry.h"
#include "string-util.h"
#include "test.h"

static char tmpdir[64];

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void make_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	mkdir(path, 0755);
}

/* Parse one text as file "t.conf" and return the conf (errors in c->errors). */
static struct conf *parse(const char *text)
{
	struct conf *c;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!f || conf_new(&c) < 0)
		exit(2);
	conf_parse_stream(c, "t.conf", f);
	conf_finish(c);
	fclose(f);
	return c;
}

/* The text must give exactly this one error and no valid LED named "x". */
static void expect_error(const char *text, const char *error)
{
	struct conf *c = parse(text);

	CHECK_INT(c->n_errors, 1, text);
	if (c->n_errors >= 1)
		CHECK_STR(c->errors[0], error, "error message");
	CHECK(!conf_find(c, "x"), "LED [x] with an error was still accepted: %s", text);
	conf_free(c);
}

static void test_precedence(void)
{
	char a[128], b[128], c[128];
	const char *dirs[] = {a, b, c, NULL};
	char **files = NULL, **notes = NULL, want[512];

	snprintf(a, sizeof(a), "%s/etc", tmpdir);
	snprintf(b, sizeof(b), "%s/run", tmpdir);
	snprintf(c, sizeof(c), "%s/lib", tmpdir);
	make_dir("etc");
	make_dir("run");
	make_dir("lib");
	write_file("lib/10-base.conf", "[lib:base]\n");
	write_file("lib/20-over.conf", "[lib:over]\n");
	write_file("run/20-over.conf", "[run:over]\n"); /* hides lib's 20-over */
	write_file("lib/30-masked.conf", "[lib:masked]\n");
	write_file("etc/05-first.conf", "[etc:first]\n");
	write_file("etc/ignored.txt", "[not:conf]\n");
	write_file("etc/.hidden.conf", "[hidden]\n");
	{
		char p[256];

		snprintf(p, sizeof(p), "%s/etc/30-masked.conf", tmpdir);
		if (symlink("/dev/null", p) < 0)
			perror("symlink");
	}
	CHECK_INT(conf_files_list(dirs, &files, &notes), 0, "conf_files_list");
	if (!files)
		return;
	/* Issue 14: --check-config shows what a drop-in overrides or masks. */
	CHECK_INT(strv_length(notes), 3, "notes on overridden and masked files");
	snprintf(want, sizeof(want), "%s/20-over.conf: overridden by %s/20-over.conf", c, b);
	CHECK(strv_contains(notes, want), "note missing: %s", want);
	snprintf(want, sizeof(want), "%s/30-masked.conf: masked by %s/30-masked.conf", c, a);
	CHECK(strv_contains(notes, want), "note missing: %s", want);
	snprintf(want, sizeof(want),
		 "%s/30-masked.conf: a symlink to /dev/null, masks 30-masked.conf", a);
	CHECK(strv_contains(notes, want), "note missing: %s", want);
	strv_free(notes);
	/* Name order across directories; earlier directory wins; masked name gone. */
	size_t n = 0;
	while (files[n])
		n++;
	CHECK_INT(n, 3, "number of files applied");
	if (n == 3) {
		CHECK(strstr(files[0], "/etc/05-first.conf"), "first file: %s", files[0]);
		CHECK(strstr(files[1], "/lib/10-base.conf"), "second file: %s", files[1]);
		CHECK(strstr(files[2], "/run/20-over.conf"), "override from /run: %s", files[2]);
	}
	strv_free(files);

	struct conf *cf;
	CHECK_INT(conf_load(dirs, &cf), 0, "conf_load");
	CHECK_INT(cf->n_leds, 3, "LEDs from the drop-ins");
	CHECK(conf_find(cf, "run:over") && !conf_find(cf, "lib:over"), "override applied");
	CHECK(!conf_find(cf, "lib:masked"), "masked file not read");
	conf_free(cf);

	/* A missing directory is fine. */
	const char *missing[] = {"/nonexistent/uledsd.d", NULL};
	CHECK_INT(conf_load(missing, &cf), 0, "conf_load of a missing dir");
	CHECK_INT(cf->n_leds + cf->n_errors, 0, "nothing from a missing dir");
	conf_free(cf);
}

static void test_values(void)
{
	struct conf *c = parse("; comment\n"
			       "# another\n"
			       "[board:green:power]\n"
			       "max_brightness = 1000\n"
			       "default_brightness = 10\n"
			       "trigger = timer\n"
			       "trigger.delay_on = 100 ; inline comment\n"
			       "trigger.delay_off=900\n"
			       "backends = log\n"
			       "log.level = debug\n"
			       "\n"
			       "[empty:section]\n"
			       "[restore:me]\n"
			       "default_brightness = restore\n");
	struct led_conf *lc;

	CHECK_INT(c->n_errors, 0, "errors in a valid file");
	for (size_t i = 0; i < c->n_errors; i++)
		fprintf(stderr, "  %s\n", c->errors[i]);
	lc = conf_find(c, "board:green:power");
	CHECK(lc, "LED parsed");
	if (lc) {
		CHECK_INT(lc->max_brightness, 1000, "max_brightness");
		CHECK_INT(lc->default_mode, DEFAULT_BRIGHTNESS_VALUE, "default mode");
		CHECK_INT(lc->default_brightness, 10, "default_brightness");
		CHECK_STR(lc->trigger, "timer", "trigger");
		CHECK_INT(lc->n_attrs, 2, "trigger attributes");
		if (lc->n_attrs == 2) {
			CHECK_STR(lc->attrs[0].key, "delay_on", "attr key");
			CHECK_STR(lc->attrs[0].value, "100", "inline comment stripped");
			CHECK_INT(lc->attrs[1].line, 8, "attr line");
		}
		CHECK_INT(lc->n_backends, 1, "backends");
		CHECK_INT(lc->line, 3, "section line");
	}
	/* A section with no keys still defines an LED (inih never reports it). */
	lc = conf_find(c, "empty:section");
	CHECK(lc && lc->max_brightness == 255 && lc->n_backends == 0, "empty section: defaults");
	lc = conf_find(c, "restore:me");
	CHECK(lc && lc->default_mode == DEFAULT_BRIGHTNESS_RESTORE, "default_brightness = restore");
	conf_free(c);

	/* Names up to 63 bytes, longer than inih's 50-byte section buffer, are kept whole. */
	char text[256], name[64];
	memset(name, 'n', 63);
	name[63] = 0;
	snprintf(text, sizeof(text), "[%s]\nmax_brightness = 2\n", name);
	c = parse(text);
	CHECK(conf_find(c, name) && conf_find(c, name)->max_brightness == 2,
	      "63-byte name kept whole");
	conf_free(c);
}

static void test_errors(void)
{
	expect_error("[x]\nmax_brightness = 0\n", "t.conf:2: max_brightness = '0' is not valid: "
						  "give a whole number from 1 to 2147483647.");
	expect_error("[x]\nmax_brightness = 12abc\n",
		     "t.conf:2: max_brightness = '12abc' is not valid: give a whole number from 1 "
		     "to 2147483647.");
	expect_error("[x]\nmax_brightness = 99999999999\n",
		     "t.conf:2: max_brightness = '99999999999' is not valid: give a whole number "
		     "from 1 to 2147483647.");
	expect_error("[x]\nmax_brightness = 10\ndefault_brightness = 11\n",
		     "t.conf:3: default_brightness = 11 is above max_brightness = 10; lower it or "
		     "raise max_brightness.");
	expect_error("[x]\ndefault_brightness = bright\n",
		     "t.conf:2: default_brightness = 'bright' is not valid: give a number from 0 "
		     "to max_brightness, or 'restore'.");
	expect_error("[x]\ntrigger = no/such\n",
		     "t.conf:2: trigger = 'no/such' is not a trigger name: use letters, digits, "
		     "'_' and '-' (see /sys/class/leds/*/trigger).");
	expect_error("[x]\ntrigger.delay_on = 5\n",
		     "t.conf:2: 'trigger.delay_on' needs a trigger: add 'trigger = ...' to [x].");
	expect_error("[x]\ntrigger = timer\ntrigger.Bad-Name = 5\n",
		     "t.conf:3: 'trigger.Bad-Name' does not name a trigger attribute: use "
		     "trigger.ATTRIBUTE with a lower-case sysfs name such as trigger.delay_on.");
	expect_error("[x]\ntrigger = timer\ntrigger.brightness = 5\n",
		     "t.conf:3: 'trigger.brightness' does not name a trigger attribute: use "
		     "trigger.ATTRIBUTE with a lower-case sysfs name such as trigger.delay_on.");
	/* An attribute that tries to leave the LED's sysfs directory. */
	expect_error("[x]\ntrigger = timer\ntrigger.../../../power/state = mem\n",
		     "t.conf:3: 'trigger.../../../power/state' does not name a trigger attribute: "
		     "use trigger.ATTRIBUTE with a lower-case sysfs name such as trigger.delay_on.");
	expect_error("[x]\ntrigger = timer\ntrigger.device = 1\n",
		     "t.conf:3: 'trigger.device' does not name a trigger attribute: use "
		     "trigger.ATTRIBUTE with a lower-case sysfs name such as trigger.delay_on.");
	expect_error(
	    "[x]\ncolour = red\n",
	    "t.conf:2: unknown key 'colour'; known keys: max_brightness, "
	    "default_brightness, trigger, trigger.ATTRIBUTE, blink, events, color, "
	    "multi_intensity, backends, BACKEND.KEY.");
	expect_error("[x]\nblink = hardware\n",
		     "t.conf:2: blink = 'hardware' is not valid: use offload (uledsd blinks) or "
		     "software (the kernel toggles the brightness).");
	expect_error("[x]\nevents = off\n",
		     "t.conf:2: events = 'off' is not valid: use yes (every change as a "
		     "timestamped record, where the module offers it) or no (only the latest "
		     "value, as with the in-tree uleds module).");
	char known[300];
	snprintf(known, sizeof(known),
		 "t.conf:2: unknown backend 'nosuch' in 'backends'; known: %s.",
		 backend_list_names());
	expect_error("[x]\nbackends = log nosuch\n", known);
	expect_error("[x]\nbackends = log,log\n",
		     "t.conf:2: backend 'log' is listed twice in 'backends'.");
	snprintf(
	    known, sizeof(known),
	    "t.conf:2: unknown key 'foo.bar': 'foo' is not a backend (known: %s) nor 'trigger'.",
	    backend_list_names());
	expect_error("[x]\nfoo.bar = 1\n", known);
	expect_error("[x]\nlog.level = loud\nbackends = log\n",
		     "t.conf:2: log.level must be one of debug, info, notice, warning, err.");
	expect_error("[x]\nlog.level = info\n",
		     "t.conf:2: 'log.*' settings given but 'log' is not in 'backends' of [x]; add "
		     "it there or remove the settings.");
	expect_error("[x]\nbackends = log\nlog.colour = red\n",
		     "t.conf:3: unknown key 'log.colour'; the log backend knows log.level and "
		     "log.max_rate.");
	expect_error("[x]\nmax_brightness = 3\nmax_brightness = 4\n",
		     "t.conf:3: 'max_brightness' is set twice in [x] (first at line 2); keep one.");
	expect_error("[x]\njust words\n",
		     "t.conf:2: 'just words' is not 'key = value', a [section] or a comment (';' "
		     "or '#' at the start of the line).");
	expect_error("[x]\n= 5\n", "t.conf:2: a key is missing before '=' in '= 5'.");
	expect_error("[x]\nmax_brightness = 1   # one\n",
		     "t.conf:2: max_brightness = '1   # one' is not valid: give a whole number "
		     "from 1 to 2147483647. (Only ';' after a space starts an inline comment, not "
		     "'#'.)");
	expect_error("max_brightness = 3\n", "t.conf:1: 'max_brightness' is outside of any [LED] "
					     "section; put it below a section header.");
	expect_error("[x] trailing\n", "t.conf:1: '[x] trailing' is not a section header: write "
				       "[NAME], optionally followed by ' ; comment'.");
	expect_error("[a/b]\n", "t.conf:1: [a/b] is not a valid LED name: it contains '/'.");
	expect_error(
	    "[..]\n",
	    "t.conf:1: [..] is not a valid LED name: \".\" and \"..\" are not valid names.");
	expect_error("[]\n", "t.conf:1: [] is not a valid LED name: it is empty.");
	expect_error(
	    "[tab\there]\n",
	    "t.conf:1: [tab\there] is not a valid LED name: it contains a control character.");

	char text[300], name[65], msg[300];
	memset(name, 'n', 64);
	name[64] = 0;
	snprintf(text, sizeof(text), "[%s]\n", name);
	snprintf(msg, sizeof(msg),
		 "t.conf:1: [%s] is not a valid LED name: it is longer than the kernel's 63 bytes.",
		 name);
	expect_error(text, msg);

	/* A line longer than inih's buffer is an error with its number, not a silent cut. */
	char longline[400];
	snprintf(longline, sizeof(longline), "[x]\ntrigger = %0300d\n", 1);
	expect_error(longline, "t.conf:2: line is longer than 198 bytes; shorten it.");

	/* An error in one LED leaves the others alone; all errors are reported. */
	struct conf *c = parse("[good]\n[bad]\nmax_brightness = -1\ncolour = 2\n[also:good]\n");
	CHECK_INT(c->n_errors, 2, "both errors of [bad] reported");
	CHECK(conf_find(c, "good") && conf_find(c, "also:good") && !conf_find(c, "bad"),
	      "good LEDs kept, bad one dropped");
	CHECK(conf_is_failed(c, "bad"), "bad LED recorded as failed");
	conf_free(c);
}

/* Issue 14: "[NAME]  ; comment" is a header with a comment, as "key = value ; comment" is. */
static void test_header_comment(void)
{
	struct conf *c = parse("[x]     ; the LED's name\nmax_brightness = 1 ; one\n[y];no\n");

	CHECK(conf_find(c, "x") && conf_find(c, "x")->max_brightness == 1,
	      "[x] followed by an inline comment was not defined with its key");
	CHECK_INT(c->n_errors, 1, "only the header without a space before ';' is an error");
	if (c->n_errors >= 1)
		CHECK_STR(c->errors[0],
			  "t.conf:3: '[y];no' is not a section header: write [NAME], optionally "
			  "followed by ' ; comment'.",
			  "a ';' right after ']' is not a comment");
	conf_free(c);
}

static void test_duplicates(void)
{
	struct conf *c;
	FILE *f;
	const char *one = "[same]\nmax_brightness = 5\n", *two = "\n\n[same]\nmax_brightness = 9\n";

	CHECK_INT(conf_new(&c), 0, "conf_new");
	f = fmemopen((void *)one, strlen(one), "r");
	conf_parse_stream(c, "/etc/uledsd.d/a.conf", f);
	fclose(f);
	f = fmemopen((void *)two, strlen(two), "r");
	conf_parse_stream(c, "/etc/uledsd.d/b.conf", f);
	fclose(f);
	conf_finish(c);
	CHECK_INT(c->n_errors, 1, "duplicate reported once");
	if (c->n_errors)
		CHECK_STR(c->errors[0],
			  "/etc/uledsd.d/b.conf:3: LED 'same' is already defined at "
			  "/etc/uledsd.d/a.conf:1; remove or rename this one.",
			  "duplicate message cites both places");
	CHECK(conf_find(c, "same") && conf_find(c, "same")->max_brightness == 5,
	      "the first definition stays");
	conf_free(c);
}

/* color = ... and multi_intensity: shorthands, defaults, every error with its line. */
static void test_color(void)
{
	struct conf *c = parse("[x]\ncolor = rgb\n[w]\ncolor = rgbw\nmulti_intensity = 1 2 3 4\n"
			       "[y]\nmax_brightness = 100\ncolor = red amber, ir\n"
			       "multi_intensity = 100 0 50\n");
	const struct led_conf *x = conf_find(c, "x"), *w = conf_find(c, "w"), *y = conf_find(c, "y");
	struct conf *d;

	CHECK_INT(c->n_errors, 0, "valid colours");
	CHECK(x && x->n_channels == 3 && x->color[0] == 1 && x->color[1] == 2 && x->color[2] == 3 &&
		  !x->intensity_set,
	      "color = rgb is red green blue, without intensities");
	CHECK(w && w->n_channels == 4 && w->color[3] == 0 && w->intensity_set &&
		  w->intensity[3] == 4,
	      "color = rgbw adds white; multi_intensity per channel");
	CHECK(y && y->n_channels == 3 && y->color[1] == 4 && y->color[2] == 7 &&
		  y->intensity[0] == 100 && y->intensity[2] == 50,
	      "color lists names (amber = 4, ir = 7) with intensities");
	d = parse("[x]\ncolor = red green blue\n[w]\ncolor = rgbw\nmulti_intensity = 1 2 3 5\n"
		  "[y]\nmax_brightness = 100\ncolor = red amber ir\nmulti_intensity = 100 0 50\n");
	CHECK_INT(led_conf_compare(conf_find(c, "x"), conf_find(d, "x")), LED_CHANGE_NONE,
		  "rgb and 'red green blue' are the same LED");
	CHECK_INT(led_conf_compare(conf_find(c, "w"), conf_find(d, "w")), LED_CHANGE_UPDATE,
		  "a multi_intensity change updates in place");
	conf_free(d);
	d = parse("[x]\ncolor = green red blue\n");
	CHECK_INT(led_conf_compare(conf_find(c, "x"), conf_find(d, "x")), LED_CHANGE_RECREATE,
		  "other channels recreate the LED");
	conf_free(d);
	d = parse("[x]\n");
	CHECK_INT(led_conf_compare(conf_find(c, "x"), conf_find(d, "x")), LED_CHANGE_RECREATE,
		  "dropping color recreates the LED");
	conf_free(d);
	conf_free(c);

	expect_error("[x]\ncolor = red mauve\n",
		     "t.conf:2: color: 'mauve' is not a colour the kernel knows; use white, red, "
		     "green, blue, amber, violet, yellow, ir, multicolor, rgb, purple, orange, "
		     "pink, cyan or lime (or rgb / rgbw alone).");
	expect_error("[x]\ncolor = ,\n", "t.conf:2: color is empty: list one colour per channel "
					  "(color = red green blue) or write rgb or rgbw.");
	expect_error("[x]\ncolor = red red red red red red red red red\n",
		     "t.conf:2: color has more than 8 channels; the kernel's multicolour LEDs take "
		     "at most 8.");
	expect_error("[x]\nmulti_intensity = 1 2 3\n",
		     "t.conf:2: multi_intensity needs a multicolour LED: add 'color = ...' to [x] "
		     "(e.g. color = rgb) or remove multi_intensity.");
	expect_error("[x]\ncolor = rgb\nmulti_intensity = 1 2\n",
		     "t.conf:3: multi_intensity has 2 values but color has 3 channels; give one "
		     "value per channel, in the order of 'color'.");
	expect_error("[x]\ncolor = rgb\nmulti_intensity = 1 -2 3\n",
		     "t.conf:3: multi_intensity: '-2' is not a whole number from 0 to "
		     "max_brightness; give one per channel of 'color'.");
	expect_error("[x]\nmax_brightness = 9\ncolor = rgb\nmulti_intensity = 1 2 30\n",
		     "t.conf:4: multi_intensity: 30 (channel 2, blue) is above max_brightness = 9; "
		     "lower it or raise max_brightness.");
}

static void test_compare(void)
{
	struct conf *a = parse("[l]\nmax_brightness = 5\nbackends = log\n"
			       "[t]\ntrigger = timer\ntrigger.delay_on = 10\n");
	struct conf *same = parse("; moved around\n[t]\ntrigger.delay_on = 10\ntrigger = timer\n"
				  "[l]\nbackends = log\nmax_brightness = 5\n");
	struct conf *b = parse("[l]\nmax_brightness = 6\nbackends = log\n"
			       "[t]\ntrigger = timer\ntrigger.delay_on = 20\n");
	struct conf *d = parse("[l]\nmax_brightness = 5\nbackends = log\nlog.level = debug\n"
			       "[t]\ntrigger = heartbeat\n");
	struct conf *e = parse("[l]\nmax_brightness = 5\n[t]\n");
	struct conf *f = parse("[l]\nmax_brightness = 5\nbackends = log\nevents = no\n"
			       "[t]\ntrigger = timer\ntrigger.delay_on = 10\nevents = yes\n");

	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(same, "l")), LED_CHANGE_NONE,
		  "unchanged LED");
	CHECK_INT(led_conf_compare(conf_find(a, "t"), conf_find(same, "t")), LED_CHANGE_NONE,
		  "unchanged trigger LED");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(b, "l")), LED_CHANGE_RECREATE,
		  "max_brightness change recreates");
	CHECK_INT(led_conf_compare(conf_find(a, "t"), conf_find(b, "t")), LED_CHANGE_UPDATE,
		  "trigger attribute change updates");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(d, "l")), LED_CHANGE_UPDATE,
		  "backend setting change updates");
	CHECK_INT(led_conf_compare(conf_find(a, "t"), conf_find(d, "t")), LED_CHANGE_UPDATE,
		  "trigger change updates");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(e, "l")), LED_CHANGE_UPDATE,
		  "backend removal updates");
	CHECK_INT(led_conf_compare(conf_find(a, "t"), conf_find(e, "t")), LED_CHANGE_UPDATE,
		  "trigger removal updates");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(f, "l")), LED_CHANGE_RECREATE,
		  "events = no recreates (the mode is fixed at registration)");
	CHECK_INT(led_conf_compare(conf_find(a, "t"), conf_find(f, "t")), LED_CHANGE_NONE,
		  "events = yes is the default");
	conf_free(f);
	conf_free(a);
	conf_free(same);
	conf_free(b);
	conf_free(d);
	conf_free(e);
}

#if HAVE_GPIO
/* What the gpio backend can check without hardware. */
static void test_gpio(void)
{
	struct conf *ml = parse("[x]\ncolor = rgb\nbackends = gpio\ngpio.lines = R G B\n"
				"[y]\ncolor = rgb\nbackends = gpio\ngpio.chip = gpiochip1\n"
				"gpio.lines = 0 1 2\n");

	CHECK_INT(ml->n_errors, 0, "gpio.lines of a multicolour LED");
	conf_free(ml);
	expect_error("[x]\ncolor = rgb\nbackends = gpio\ngpio.lines = R G\n",
		     "t.conf:3: gpio.lines has 2 lines but the LED has 3 colour channels; give one "
		     "line per channel, in the order of 'color'.");
	expect_error("[x]\nbackends = gpio\ngpio.lines = R G B\n",
		     "t.conf:2: gpio.lines needs a multicolour LED: add 'color = ...' with one "
		     "colour per line, or use gpio.line for a single line.");
	expect_error("[x]\ncolor = rgb\nbackends = gpio\ngpio.line = R\n",
		     "t.conf:3: the LED is multicolour (color = ...): give the gpio backend one "
		     "line per channel with gpio.lines = R G B instead of gpio.line.");
	expect_error("[x]\ncolor = rgb\nbackends = gpio\ngpio.line = R\ngpio.lines = R G B\n",
		     "t.conf:3: gpio.line and gpio.lines are both set; a multicolour LED takes "
		     "gpio.lines (one per channel), a plain one gpio.line.");
	expect_error("[x]\ncolor = rgb\nbackends = gpio\ngpio.lines = 0 1 2\n",
		     "t.conf:3: gpio.lines: 0 is an offset, which needs gpio.chip to say on which "
		     "chip; add gpio.chip or give line names.");
	expect_error("[x]\ncolor = rgb\nbackends = gpio\ngpio.lines = ,\n",
		     "t.conf:4: gpio.lines is empty: give one line (name or offset) per colour "
		     "channel, e.g. gpio.lines = LED_R LED_G LED_B.");
	expect_error(
	    "[x]\nbackends = gpio\ngpio.chip = gpiochip0\ngpio.line = A\ngpio.active_low = maybe\n",
	    "t.conf:5: gpio.active_low = 'maybe' is not a boolean: use yes or no (true/false, "
	    "on/off, 1/0).");
	expect_error("[x]\nbackends = gpio\ngpio.line = A\ngpio.drive = strong\n",
		     "t.conf:4: gpio.drive = 'strong' is not valid: use push-pull (the default), "
		     "open-drain or open-source.");
	expect_error("[x]\nbackends = gpio\ngpio.line = A\ngpio.threshold = x\n",
		     "t.conf:4: gpio.threshold = 'x' is not valid: give a whole number from 1 to "
		     "2147483647; the line is on while brightness >= threshold.");
	expect_error(
	    "[x]\nbackends = gpio\ngpio.line = 3\n",
	    "t.conf:2: gpio.line = 3 is an offset, which needs gpio.chip to say on which chip; add "
	    "gpio.chip (gpiochipN or the chip's label) or give the line's name.");

	/* The same chip and line twice, however spelled: the second LED fails. */
	struct conf *c = parse("[a]\nbackends = gpio\ngpio.chip = /dev/gpiochip2\ngpio.line = 3\n"
			       "[x]\nbackends = gpio\ngpio.chip = gpiochip2\ngpio.line = 03\n");
	CHECK_INT(c->n_errors, 1, "duplicate GPIO line reported");
	if (c->n_errors)
		CHECK_STR(c->errors[0],
			  "t.conf:6: [x] uses GPIO line 3 on gpiochip2, which [a] at t.conf:2 "
			  "already uses; give each LED its own.",
			  "duplicate GPIO line message");
	CHECK(conf_find(c, "a") && !conf_find(c, "x"), "first user of the line kept");
	conf_free(c);

	/* Several users: each later one cites the first (sorted claims, definition order kept),
	 * and other lines of the same chip are not affected. */
	c = parse("[z]\nbackends = gpio\ngpio.chip = gpiochip2\ngpio.line = 4\n"
		  "[b]\nbackends = gpio\ngpio.chip = gpiochip2\ngpio.line = 3\n"
		  "[a]\nbackends = gpio\ngpio.chip = gpiochip2\ngpio.line = 3\n"
		  "[y]\nbackends = gpio\ngpio.chip = gpiochip2\ngpio.line = 5\n"
		  "[c]\nbackends = log gpio\ngpio.chip = gpiochip2\ngpio.line = 3\n");
	CHECK_INT(c->n_errors, 2, "two later users of one line reported");
	if (c->n_errors == 2) {
		CHECK_STR(c->errors[0],
			  "t.conf:10: [a] uses GPIO line 3 on gpiochip2, which [b] at t.conf:6 "
			  "already uses; give each LED its own.",
			  "second user cites the first");
		CHECK_STR(c->errors[1],
			  "t.conf:18: [c] uses GPIO line 3 on gpiochip2, which [b] at t.conf:6 "
			  "already uses; give each LED its own.",
			  "third user cites the first too");
	}
	CHECK(conf_find(c, "z") && conf_find(c, "b") && conf_find(c, "y") && !conf_find(c, "a") &&
		  !conf_find(c, "c") && c->n_leds == 3,
	      "first user and the other lines kept, in order");
	CHECK(c->n_leds == 3 && streq(c->leds[0]->name, "z") && streq(c->leds[1]->name, "b") &&
		  streq(c->leds[2]->name, "y"),
	      "kept LEDs stay in definition order");
	conf_free(c);

	/* Reload identity: the same settings keep the line, any change moves it. */
	struct conf *a = parse("[l]\nbackends = gpio\ngpio.chip = gpiochip1\ngpio.line = LED\n");
	struct conf *b =
	    parse("[l]\nbackends = gpio\ngpio.line = LED\ngpio.chip = /dev/gpiochip1\n");
	struct conf *d = parse("[l]\nbackends = gpio\ngpio.chip = gpiochip1\ngpio.line = "
			       "LED\ngpio.active_low = yes\n");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(b, "l")), LED_CHANGE_NONE,
		  "same GPIO settings, other spelling: unchanged");
	CHECK_INT(led_conf_compare(conf_find(a, "l"), conf_find(d, "l")), LED_CHANGE_UPDATE,
		  "active_low change: update");
	conf_free(a);
	conf_free(b);
	conf_free(d);
}
#endif

/* Drop-in directories and files that are not what they should be: a message each, never a
 * hang, the good files still read. */
static void test_bad_files(void)
{
	char dir[128], path[400];
	const char *dirs[] = {dir, NULL};
	struct conf *c = NULL;

	snprintf(dir, sizeof(dir), "%s/bad", tmpdir);
	mkdir(dir, 0755);
	write_file("bad/10-good.conf", "[good]\n");
	snprintf(path, sizeof(path), "%s/20-loop.conf", dir);
	CHECK_INT(symlink("20-loop.conf", path), 0, "make a symlink loop");
	snprintf(path, sizeof(path), "%s/30-fifo.conf", dir);
	CHECK_INT(mkfifo(path, 0644), 0, "make a FIFO");
	snprintf(path, sizeof(path), "%s/40-dir.conf", dir);
	CHECK_INT(mkdir(path, 0755), 0, "make a directory named .conf");
	/* Before the fix the FIFO blocked here forever (meson's timeout fails the test). */
	CHECK_INT(conf_load(dirs, &c), 0, "conf_load of a directory with bad entries");
	if (!c)
		return;
	CHECK(conf_find(c, "good"), "the good drop-in is read");
	CHECK_INT(c->n_errors, 3, "one error per bad entry");
	if (c->n_errors == 3) {
		snprintf(path, sizeof(path),
			 "%s/20-loop.conf: cannot read the file: Too many levels of symbolic links.",
			 dir);
		CHECK_STR(c->errors[0], path, "symlink loop");
		snprintf(path, sizeof(path),
			 "%s/30-fifo.conf: not a regular file; a drop-in must be a file (or a "
			 "symlink to /dev/null to mask one).",
			 dir);
		CHECK_STR(c->errors[1], path, "FIFO");
		CHECK(strstr(c->errors[2], "40-dir.conf: not a regular file"), "directory: %s",
		      c->errors[2]);
	}
	conf_free(c);

	/* The configuration directory is a file: an error that names it. */
	write_file("not-a-dir", "[x]\n");
	snprintf(dir, sizeof(dir), "%s/not-a-dir", tmpdir);
	c = NULL;
	CHECK_INT(conf_load(dirs, &c), -ENOTDIR, "a configuration directory that is a file");
	conf_free(c);
}

/* sysfs's trigger file as AvailableTriggers and the Trigger property read it. */
static void test_trigger_list(void)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *cur = NULL;

	CHECK_INT(trigger_list_parse("none [timer] oneshot\n", &names, &cur), 0, "a sysfs list");
	CHECK_STR(cur, "timer", "the selected trigger");
	CHECK(names && strv_length(names) == 3 && streq(names[1], "timer"),
	      "every name, brackets off");
	names = strv_free(names);
	free(cur);
	cur = NULL;
	CHECK_INT(trigger_list_parse("none timer", NULL, &cur), -EBADMSG,
		  "no selected trigger: -EBADMSG");
	CHECK_INT(trigger_list_parse("[none] [timer]", NULL, &cur), -EBADMSG,
		  "two selected triggers: -EBADMSG");
	/* Found by fuzz-trigger-list: "[]" was taken as the selected trigger "". */
	CHECK_INT(trigger_list_parse("[] none", &names, NULL), 0, "'[]' is a word");
	CHECK(names && strv_length(names) == 2 && streq(names[0], "[]"), "'[]' names no trigger");
	names = strv_free(names);
	CHECK_INT(trigger_list_parse("", &names, NULL), 0, "an empty list");
	CHECK(names && !names[0], "an empty list has no names");

	CHECK(trigger_name_is_valid("kbd-scrolllock") && trigger_name_is_valid("phy0rx"),
	      "kernel trigger names are valid");
	CHECK(!trigger_name_is_valid("") && !trigger_name_is_valid("a b") &&
		  !trigger_name_is_valid("[timer]") && !trigger_name_is_valid("a\x01"),
	      "empty, spaces, brackets and control bytes are no trigger names");
	CHECK(trigger_attr_name_is_valid("delay_on"), "delay_on is an attribute");
	CHECK(!trigger_attr_name_is_valid("../brightness") && !trigger_attr_name_is_valid("..") &&
		  !trigger_attr_name_is_valid("device") && !trigger_attr_name_is_valid("power") &&
		  !trigger_attr_name_is_valid("brightness_hw_changed") &&
		  !trigger_attr_name_is_valid("Delay_on"),
	      "paths, the LED core's and the device model's files are no attributes");
}

static void test_defined_pack(void)
{
	_cleanup_(conf_freep) struct conf *c = NULL;

	CHECK_INT(conf_new(&c), 0, "a configuration");
	conf_remember_name(c, "b:led", "/etc/uledsd.d/10.conf", 7);
	conf_remember_name(c, "a:led", "/etc/uledsd.d/10.conf", 1);
	conf_remember_name(c, "c:led", "/etc/uledsd.d/20.conf", 3);
	conf_remember_name(c, "a:led", "/etc/uledsd.d/30.conf", 9); /* the first place stays */
	conf_defined_pack(c);
	CHECK(!c->defined && c->n_packed == 3, "packed: no tree left, three names");
	CHECK_STR(conf_defined_at(c, "a:led"), "/etc/uledsd.d/10.conf:1",
		  "found packed, first place");
	CHECK_STR(conf_defined_at(c, "b:led"), "/etc/uledsd.d/10.conf:7", "the middle one");
	CHECK_STR(conf_defined_at(c, "c:led"), "/etc/uledsd.d/20.conf:3", "the last one");
	CHECK(conf_defined_at(c, "d:led") == NULL, "an unknown name is not found");
	conf_remember_name(c, "d:led", "/etc/uledsd.d/40.conf", 2);
	CHECK_STR(conf_defined_at(c, "d:led"), "/etc/uledsd.d/40.conf:2", "a name added after");
	conf_defined_pack(c);
	CHECK(c->n_packed == 4, "packed again with it");
	CHECK_STR(conf_defined_at(c, "a:led"), "/etc/uledsd.d/10.conf:1", "the old ones stay");
	CHECK_STR(conf_defined_at(c, "d:led"), "/etc/uledsd.d/40.conf:2", "and the new one");
	conf_defined_clear(c);
	CHECK(conf_defined_at(c, "a:led") == NULL, "cleared: nothing is defined");
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-conf-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	TEST_CASE(test_precedence);
	TEST_CASE(test_values);
	TEST_CASE(test_errors);
	TEST_CASE(test_header_comment);
	TEST_CASE(test_duplicates);
	TEST_CASE(test_color);
	TEST_CASE(test_compare);
	TEST_CASE(test_defined_pack);
	TEST_CASE(test_trigger_list);
	TEST_CASE(test_bad_files);
#if HAVE_GPIO
	TEST_CASE(test_gpio);
#endif
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	return test_finish("test-conf");
}
