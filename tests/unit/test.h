/* SPDX-License-Identifier: MIT */
/* A minimal test harness: named checks, a failure says what differed, a closing count line. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned test_passed, test_failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			test_passed++;                                                             \
		} else {                                                                           \
			test_failed++;                                                             \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_STR(actual, expected, what)                                                          \
	do {                                                                                       \
		const char *_a = (actual), *_e = (expected);                                       \
		CHECK(_a &&_e &&strcmp(_a, _e) == 0, "%s:\n  expected: %s\n  actual:   %s", what,  \
		      _e ? _e : "(null)", _a ? _a : "(null)");                                     \
	} while (0)

#define CHECK_INT(actual, expected, what)                                                          \
	do {                                                                                       \
		long long _a = (long long)(actual), _e = (long long)(expected);                    \
		CHECK(_a == _e, "%s: expected %lld, got %lld", what, _e, _a);                      \
	} while (0)

/* One case: a function for one behaviour, named by it; "ok"/"FAILED" with its name. */
static inline void test_case(const char *name, void (*fn)(void))
{
	unsigned before = test_failed;

	fn();
	printf("%s %s\n", test_failed == before ? "ok    " : "FAILED", name);
}
#define TEST_CASE(fn) test_case(#fn, fn)

static inline int test_finish(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, test_passed, test_failed);
	return test_failed ? 1 : 0;
}
