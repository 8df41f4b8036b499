/* SPDX-License-Identifier: MIT */
/* Cleanup helpers in the manner of systemd's macro.h: the one way every file frees. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
/* n rounded up to a multiple of a. */
#define ALIGN_TO(n, a) (((n) + (a)-1) / (a) * (a))

/* Take ownership of a pointer: the variable becomes NULL, its cleanup a no-op. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _tmp_ = (p);                                                         \
		(p) = NULL;                                                                        \
		_tmp_;                                                                             \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _tmp_ = (fd);                                                                  \
		(fd) = -1;                                                                         \
		_tmp_;                                                                             \
	})

/* "_cleanup_(foo_freep) struct foo *p = NULL;" for any destructor foo_free(p) that takes
 * a non-NULL pointer (destructors of this project also accept NULL). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                    \
	static inline void func##p(type *p)                                                        \
	{                                                                                          \
		if (*p)                                                                            \
			func(*p);                                                                  \
	}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return -1;
}

static inline void closep(int *fd)
{
	safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)
DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)

static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
