// SPDX-License-Identifier: MIT
/* The gpio backend's chip scan without GPIO hardware: the libgpiod calls it makes are replaced
 * by fakes defined here (the executable's definitions win over libgpiod.so's), over a
 * directory of plain files named like chip nodes. One chip fails to open, as a chip going
 * away during a scan does: the scan must skip it and leak nothing (run under valgrind too). */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gpio-chips.h"
#include "string-util.h"
#include "test.h"

static char tmpdir[64];

/* ---- fakes of the libgpiod calls gpio-chips.c makes ---- */

struct gpiod_chip {
	char *name;
};
struct gpiod_chip_info {
	char label[32];
};
struct gpiod_line_info {
	char name[16];
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

bool gpiod_is_gpiochip_device(const char *path)
{
	return access(path, F_OK) == 0;
}

struct gpiod_chip *gpiod_chip_open(const char *path)
{
	struct gpiod_chip *c;

	if (streq(base(path), "gpiochip1")) {
		errno = ENODEV; /* removed between the listing and the open */
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	c->name = strdup(base(path));
	return c;
}

void gpiod_chip_close(struct gpiod_chip *c)
{
	free(c->name);
	free(c);
}

struct gpiod_chip_info *gpiod_chip_get_info(struct gpiod_chip *c)
{
	struct gpiod_chip_info *i = calloc(1, sizeof(*i));

	snprintf(i->label, sizeof(i->label), "label-%s", c->name + 8);
	return i;
}

const char *gpiod_chip_info_get_label(struct gpiod_chip_info *i)
{
	return i->label;
}

size_t gpiod_chip_info_get_num_lines(struct gpiod_chip_info *i)
{
	return 3;
}

void gpiod_chip_info_free(struct gpiod_chip_info *i)
{
	free(i);
}

struct gpiod_line_info *gpiod_chip_get_line_info(struct gpiod_chip *c, unsigned int offset)
{
	struct gpiod_line_info *li = calloc(1, sizeof(*li));

	snprintf(li->name, sizeof(li->name), "%s-L%u", c->name + 8, offset);
	return li;
}

const char *gpiod_line_info_get_name(struct gpiod_line_info *li)
{
	size_t n = strlen(li->name);

	return li->name[n - 1] == '2' ? NULL : li->name; /* line 2 has no name */
}

void gpiod_line_info_free(struct gpiod_line_info *li)
{
	free(li);
}

/* ---- the tests ---- */

static void touch(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		exit(2);
	close(fd);
}

static void test_scan_in(struct gpio_watcher *w)
{
	const struct gpio_chip_entry *e;

	CHECK_INT(gpio_chips_load(w), 0, "scan");
	CHECK_INT(w->n_chips, 3, "chips that opened: gpiochip0, gpiochip2, gpiochip10");
	if (w->n_chips != 3)
		return;
	CHECK_STR(w->chips[0].name, "gpiochip0", "numeric order 1");
	CHECK_STR(w->chips[1].name, "gpiochip2", "numeric order 2 (gpiochip1 failed to open)");
	CHECK_STR(w->chips[2].name, "gpiochip10", "numeric order 3");
	e = gpio_chips_get(w, "gpiochip2");
	CHECK(e && e->chip, "gpiochip2 is cached open");
	CHECK_STR(e ? e->label : NULL, "label-2", "label");
	CHECK_INT(gpio_chip_entry_line(e, "2-L1"), 1, "line by name");
	CHECK_INT(gpio_chip_entry_line(e, "0-L1"), -ENOENT, "another chip's line");
	CHECK(e && e->n_lines == 3 && !e->lines[2], "an unnamed line has no name");
	CHECK(!gpio_chips_get(w, "gpiochip1"), "the chip that failed is not cached");
	e = &w->chips[0];
	CHECK_INT(gpio_chips_load(w), 0, "second load");
	CHECK(&w->chips[0] == e, "a valid scan is not redone");
	gpio_chips_clear(w);
	CHECK(!w->chips_valid && w->n_chips == 0, "cleared");
}

/* What a gpio.chip that matches nothing is told: the chips as gpiodetect shows them. */
static void test_describe_in(struct gpio_watcher *w)
{
	struct gpio_watcher empty = {.fd = -1, .dev_dir = w->dev_dir};
	_cleanup_free_ char *s = NULL, *none = NULL;

	CHECK_INT(gpio_chips_load(w), 0, "scan");
	CHECK_INT(gpio_chips_describe(w, &s), 0, "describe");
	CHECK_STR(s, "gpiochip0 [label-0], gpiochip2 [label-2], gpiochip10 [label-10]",
		  "chips as gpiodetect names them");
	CHECK_INT(gpio_chips_describe(&empty, &none), 0, "describe no chips");
	CHECK_STR(none, "none", "no chips");
	gpio_chips_clear(w);
}

/* --check-config's warning for one gpio.chip / gpio.line; NULL when there is none. */
static char *check(const char *chip, const char *line)
{
	struct gpio_backend p = {.chip = (char *)chip, .line = (char *)line};
	struct led_backend b = {.priv = &p};
	char *warning = NULL;
	int r = gpio_check(&b, tmpdir, &warning);

	CHECK(r < 0 || !warning, "gpio_check returned %d with a warning '%s'", r,
	      warning ? warning : "");
	return r < 0 ? (warning ? warning : strdup("?")) : NULL;
}

static void test_check(void)
{
	const char *chips = "chips now: gpiochip0 [label-0], gpiochip2 [label-2], gpiochip10 "
			    "[label-10]. Use a chip name, path or label as gpiodetect shows it";
	char path[128];
	char *w;

	snprintf(path, sizeof(path), "%s/gpiochip2", tmpdir);
	CHECK(!(w = check("label-2", "2-L1")), "a label that exists: %s", w ? w : "");
	free(w);
	CHECK(!(w = check("gpiochip10", "0")), "a chip name that exists: %s", w ? w : "");
	free(w);
	CHECK(!(w = check(NULL, "10-L0")), "a line name on some chip: %s", w ? w : "");
	free(w);
	CHECK(!(w = check(path, "0")), "a path that exists: %s", w ? w : "");
	free(w);
	w = check("gpio-sim.0-node0", "LED");
	CHECK(w && strstr(w, "gpio.chip = gpio-sim.0-node0 matches no GPIO chip; ") &&
		  strstr(w, chips),
	      "a label that matches nothing lists the chips: %s", w ? w : "(no warning)");
	free(w);
	w = check("gpiochip1", "LED");
	CHECK(w && strstr(w, chips), "a chip that did not open is not there: %s",
	      w ? w : "(no warning)");
	free(w);
	w = check(NULL, "NOPE");
	CHECK(w && strstr(w, "no GPIO chip has a line named 'NOPE'"), "a line on no chip: %s",
	      w ? w : "(no warning)");
	free(w);
}

/* Every rescan must give back everything: a chip that failed to open used to leave the names
 * after it in an array strv_free() stops reading at the first hole in. */
static void rescan(struct gpio_watcher *w, int times)
{
	for (int i = 0; i < times; i++) {
		(void)gpio_chips_load(w);
		gpio_chips_clear(w);
	}
}

/* Every rescan must give back everything: a chip that failed to open used to leave the names
 * after it in an array that strv_free() stops reading at the first hole (tens of bytes a
 * rescan). Measured after a warm-up over 1000 rescans: malloc's caches keep a bounded number
 * of freed blocks "in use" (a few hundred bytes, whatever ran before), a leak grows with the
 * count. */
static void test_no_leak_in(struct gpio_watcher *w)
{
	size_t before, after;

	rescan(w, 100);
	before = mallinfo2().uordblks;
	rescan(w, 1000);
	after = mallinfo2().uordblks;
	CHECK(after <= before + 2048,
	      "1000 rescans with a chip that fails to open: heap grew by %zu bytes",
	      after - before);
}

/* The cases share one watcher on the made-up /dev of main(). */
static struct gpio_watcher watcher = {.fd = -1};
static void test_scan(void)
{
	test_scan_in(&watcher);
}
static void test_describe(void)
{
	test_describe_in(&watcher);
}
static void test_no_leak(void)
{
	test_no_leak_in(&watcher);
}

int main(void)
{
	struct gpio_watcher *w = &watcher;
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-gpio-chips-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	touch("gpiochip0");
	touch("gpiochip1");
	touch("gpiochip2");
	touch("gpiochip10");
	touch("gpiochipX"); /* not a chip name */
	touch("null");
	w->dev_dir = tmpdir;
	TEST_CASE(test_scan);
	TEST_CASE(test_describe);
	TEST_CASE(test_check);
	TEST_CASE(test_no_leak);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		return 2;
	return test_finish("test-gpio-chips");
}
