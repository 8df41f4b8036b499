// SPDX-License-Identifier: MIT
/* The log backend's default pace, with a fake sysfs trigger attribute: every write of an LED
 * without a trigger is logged at once; while a trigger drives it, one record then summaries;
 * when the trigger goes, its summary comes at once and writes are logged one by one again. */
#include <stdio.h>
#include <unistd.h>

#include "backend.h"
#include "log.h"
#include "ratelimit.h"
#include "registry.h"
#include "string-util.h"
#include "test.h"

static char dir[64];
static char out_path[96];

static void trigger_is(const char *list)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trigger", dir);
	f = fopen(path, "w");
	if (!f || fputs(list, f) < 0 || fclose(f) != 0)
		exit(2);
}

/* Records written so far that contain what. */
static int records(const char *what)
{
	char line[256];
	int n = 0;
	FILE *f;

	fflush(stderr);
	f = fopen(out_path, "r");
	if (!f)
		exit(2);
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, what);
	fclose(f);
	return n;
}

static void run_for(sd_event *e, uint64_t usec)
{
	uint64_t end = ratelimit_now() + usec;

	while (ratelimit_now() < end)
		(void)sd_event_run(e, 10000);
}

/* One log backend on one loop, through the cases in order (each starts where the last left). */
static struct led_backend *b;
static sd_event *e;

static void no_trigger_each_write_is_logged_at_once(void)
{
	for (unsigned v = 1; v <= 5; v++) {
		char want[32];

		b->ops->set(b, v * 10);
		snprintf(want, sizeof(want), "u:log: brightness %u/255", v * 10);
		run_for(e, 150000);
		CHECK_INT(records(want), 1, "no trigger: a write is logged at once");
	}
}

static void trigger_changes_fold_into_a_summary(void)
{
	trigger_is("none timer [heartbeat]\n");
	for (unsigned v = 1; v <= 20; v++)
		b->ops->set(b, v % 2 ? 255 : 0);
	run_for(e, 300000);
	CHECK_INT(records("u:log: brightness 255/255") + records("u:log: brightness 0/255"), 0,
		  "a trigger's changes right after a write: folded into the summary");
}

static void trigger_gone_summary_then_the_write(void)
{
	trigger_is("[none] timer heartbeat\n");
	b->ops->set(b, 77);
	CHECK_INT(records("more changes not logged"), 1, "the trigger went: its summary at once");
	run_for(e, 150000);
	CHECK_INT(records("u:log: brightness 77/255"), 1, "then the write, 100 ms later at most");
}

int main(void)
{
	struct backend_context ctx = {.led_name = "u:log", .max_brightness = 255};
	int saved;

	snprintf(dir, sizeof(dir), "/tmp/test-log-backend-XXXXXX");
	if (!mkdtemp(dir) || sd_event_new(&e) < 0)
		return 2;
	snprintf(out_path, sizeof(out_path), "%s/stderr", dir);
	saved = dup(STDERR_FILENO);
	if (!freopen(out_path, "w", stderr))
		return 2;
	ctx.event = e;
	ctx.sysfs = dir;
	trigger_is("[none] timer heartbeat\n");
	if (led_backend_new(&backend_log, "t.conf", 1, &b) < 0 || led_backend_attach(b, &ctx) < 0)
		return 2;
	/* stdout is not captured: the case lines go there, the records to the file. */
	TEST_CASE(no_trigger_each_write_is_logged_at_once);
	TEST_CASE(trigger_changes_fold_into_a_summary);
	TEST_CASE(trigger_gone_summary_then_the_write);

	b = led_backend_free(b);
	sd_event_unref(e);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	if (test_failed) /* the failures went to the captured stderr, with the records */
		(void)!system(
		    (snprintf(out_path, sizeof(out_path), "cat %s/stderr >&2", dir), out_path));
	snprintf(out_path, sizeof(out_path), "rm -rf %s", dir);
	if (system(out_path) != 0)
		return 2;
	return test_finish("test-log-backend");
}
