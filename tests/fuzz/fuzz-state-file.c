// SPDX-License-Identifier: MIT
/* libFuzzer target: a state file (or a sysfs number) with any content reads as one number or
 * an error, never more. The bytes are a real file: read_unsigned_file() reads paths. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "string-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64], text[32];
	size_t digits;
	unsigned v;
	bool ok;
	int r;

	if (fd < 0)
		fd = memfd_create("fuzz-state", MFD_CLOEXEC);
	assert(fd >= 0);
	assert(ftruncate(fd, 0) == 0);
	assert(pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = read_unsigned_file(path, &v);
	assert(r == 0 || r == -EBADMSG || r == -E2BIG);
	/* The reference: 1+ digits and at most one newline, in fewer than 32 bytes, and the
	 * value fits an unsigned. */
	digits = size;
	if (digits > 0 && data[digits - 1] == '\n')
		digits--;
	ok = digits > 0 && size < 32;
	for (size_t i = 0; ok && i < digits; i++)
		ok = data[i] >= '0' && data[i] <= '9';
	if (ok) {
		memcpy(text, data, digits);
		text[digits] = 0;
		ok = strtoull(text, NULL, 10) <= UINT_MAX;
	}
	assert(ok == (r == 0));
	if (r == 0)
		assert(v == strtoull(text, NULL, 10));
	return 0;
}
