// SPDX-License-Identifier: MIT
/* The saved brightness of "restore" LEDs: a number is read back, anything else is refused. */
#include <stdio.h>
#include <sys/stat.h>

#include "led.h"
#include "log.h"
#include "manager.h"
#include "state.h"
#include "string-util.h"
#include "test.h"

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		exit(2);
	fputs(text, f);
	fclose(f);
}

/* The saved value for an LED named name whose state file holds text (NULL: no file). */
static int load(const char *name, const char *text, unsigned *v)
{
	char *dir = tmpdir;
	struct led l = {.name = (char *)name};

	if (text)
		write_file(name, text);
	return state_saved_brightness(&l, v, &dir);
}

static void saved_values_are_read(void)
{
	unsigned v = 7;

	CHECK_INT(load("good", "42\n", &v), 0, "a saved value");
	CHECK_INT(v, 42, "the saved value");
	CHECK_INT(load("nonl", "0", &v), 0, "no trailing newline");
	CHECK_INT(v, 0, "zero");
	CHECK_INT(load("max", "4294967295\n", &v), 0, "UINT_MAX itself is read");
	CHECK(v == 4294967295U, "UINT_MAX value");
}

static void no_file_means_start_dark(void)
{
	unsigned v = 7;

	CHECK_INT(load("missing", NULL, &v), -ENOENT, "no file: -ENOENT (start dark)");
}

/* A refused file leaves the value alone. */
static void anything_but_a_number_is_refused(void)
{
	char big[64];
	unsigned v = 7;

	CHECK(load("negative", "-1\n", &v) < 0 && v == 7, "-1 is refused, not read as 4294967295");
	CHECK(load("junk", "12abc\n", &v) < 0 && v == 7, "a number followed by junk is refused");
	CHECK(load("space", " 5\n", &v) < 0, "leading space is refused");
	CHECK(load("empty", "", &v) < 0, "an empty file is refused");
	CHECK(load("words", "bright\n", &v) < 0, "words are refused");
	CHECK(load("range", "4294967296\n", &v) < 0 && v == 7, "a value above UINT_MAX is refused");
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(load("long", big, &v) < 0 && v == 7, "a file longer than any number is refused");
}

/* Found by fuzz-state-file: the NUL ended the number early and "4" was read. */
static void a_nul_byte_is_refused(void)
{
	char path[300];
	unsigned v = 7;
	FILE *f;

	snprintf(path, sizeof(path), "%s/nul", tmpdir);
	f = fopen(path, "w");
	fwrite("4\0\003", 1, 3, f);
	fclose(f);
	CHECK(load("nul", NULL, &v) == -EBADMSG && v == 7,
	      "a number followed by a NUL byte and junk is refused");
}

/* A FIFO or a directory in the file's place: refused at once, never waited on. */
static void a_fifo_or_directory_is_refused_without_blocking(void)
{
	char path[300];
	unsigned v = 7;

	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	mkfifo(path, 0644);
	CHECK(load("fifo", NULL, &v) == -EBADMSG && v == 7, "a FIFO is refused without blocking");
	snprintf(path, sizeof(path), "%s/dir", tmpdir);
	mkdir(path, 0755);
	CHECK(load("dir", NULL, &v) == -EBADMSG && v == 7, "a directory is refused");
}

int main(void)
{
	char cmd[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-state-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	log_set_max_level(LOG_ERR);
	TEST_CASE(saved_values_are_read);
	TEST_CASE(no_file_means_start_dark);
	TEST_CASE(anything_but_a_number_is_refused);
	TEST_CASE(a_nul_byte_is_refused);
	TEST_CASE(a_fifo_or_directory_is_refused_without_blocking);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		return 2;
	return test_finish("test-state");
}
