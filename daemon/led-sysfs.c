// SPDX-License-Identifier: MIT
/* An LED's sysfs attributes, by the LED's directory: written and read whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "led-sysfs.h"
#include "macro.h"
#include "led-conf.h"

int sysfs_attr_write(const char *dir, const char *attr, const char *value)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	size_t n = strlen(value);

	if (asprintf(&path, "%s/%s", dir, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		return negative_errno();
	return 0;
}

/* At most this much of an attribute: the trigger list of a kernel with many triggers has a few
 * KiB, anything near a megabyte is not an LED attribute. */
#define SYSFS_ATTR_MAX (1024 * 1024)

/* The whole file: since Linux 5.6 "trigger" is a bin attribute without the page limit, read
 * a page per read() (more triggers than fit in 4 KiB made Trigger, and so GetManagedObjects,
 * fail for every LED). Trailing newlines and spaces removed. */
int sysfs_attr_read(const char *dir, const char *attr, char **ret)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t size = 4096, len = 0;

	if (asprintf(&path, "%s/%s", dir, attr) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		/* Full: grow, at most to SYSFS_ATTR_MAX + 1 bytes and the NUL; a file that fills
		 * that much is longer than the limit. */
		if (len == size - 1) {
			char *p;

			if (len > SYSFS_ATTR_MAX)
				return -EFBIG;
			size = size * 2 > SYSFS_ATTR_MAX + 2 ? SYSFS_ATTR_MAX + 2 : size * 2;
			p = realloc(buf, size);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = 0;
	*ret = TAKE_PTR(buf);
	return 0;
}

int sysfs_current_trigger(const char *dir, char **ret)
{
	_cleanup_free_ char *list = NULL;
	int r;

	/* The kernel lists all triggers and brackets the active one: "none [timer] oneshot". */
	r = sysfs_attr_read(dir, "trigger", &list);
	if (r < 0)
		return r;
	return trigger_list_parse(list, NULL, ret);
}
