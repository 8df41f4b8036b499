// SPDX-License-Identifier: MIT
/* Logging: a record says where it was written (file:line), and returns -errno for "return log_*".
 */
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "string-util.h"
#include "test.h"

/* Run one log call with stderr in a file; returns what it printed. */
static char *capture_error(const char *msg, int *ret, int *ret_line)
{
	char path[] = "/tmp/test-log-XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	FILE *f;
	long n;

	if (fd < 0 || saved < 0)
		exit(2);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	*ret_line = __LINE__ + 1;
	*ret = log_error_errno(ENOENT, "%s: %m", msg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	unlink(path);
	return text;
}

static void log_errno_returns_negative_errno_and_expands_m(void)
{
	_cleanup_free_ char *plain = NULL;
	int r, line;

	log_set_show_location(false);
	plain = capture_error("plain", &r, &line);
	CHECK_INT(r, -ENOENT, "log_error_errno returns -errno");
	CHECK_STR(plain, "plain: No such file or directory\n", "a plain record, %m expanded");
}

static void record_names_the_file_and_line(void)
{
	_cleanup_free_ char *located = NULL;
	char want[64];
	int r, line;

	log_set_show_location(true);
	located = capture_error("located", &r, &line);
	snprintf(want, sizeof(want), "test-log.c:%d: located: No such file or directory\n", line);
	CHECK(strstr(located, want) != NULL,
	      "the record names the file and line that logged:\n  expected: ...%s  actual:   %s",
	      want, located);
}

int main(void)
{
	TEST_CASE(log_errno_returns_negative_errno_and_expands_m);
	TEST_CASE(record_names_the_file_and_line);
	return test_finish("test-log");
}
