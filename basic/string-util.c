// SPDX-License-Identifier: MIT
/* Strings, shared copies, string arrays, strict numbers (and files of one), error messages, UTF-8
 * checks. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "string-util.h"

char **strv_free(char **l)
{
	if (!l)
		return NULL;
	for (char **s = l; *s; s++)
		free(*s);
	free(l);
	return NULL;
}

size_t strv_length(char *const *l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

bool strv_contains(char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (streq(*l, s))
			return true;
	return false;
}

/* Consuming s, also on failure, lets callers write strv_push(&l, &n, strdup(x)) and check
 * one result. */
int strv_push(char ***l, size_t *n, char *s)
{
	size_t len = n ? *n : strv_length(*l);
	char **nl;

	if (!s)
		return -ENOMEM;
	nl = realloc(*l, (len + 2) * sizeof(char *));
	if (!nl) {
		free(s);
		return -ENOMEM;
	}
	nl[len++] = s;
	nl[len] = NULL;
	*l = nl;
	if (n)
		*n = len;
	return 0;
}

int safe_atou(const char *s, unsigned *ret)
{
	unsigned long long v;
	char *end;

	/* strtoull() alone would take "-1" (as ULLONG_MAX), " 5" and "5abc". */
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v > UINT_MAX)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

int error_setf(char **ret_error, int r, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	if (vasprintf(ret_error, format, ap) < 0)
		*ret_error = NULL;
	va_end(ap);
	return r < 0 ? r : -EINVAL;
}

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static size_t utf8_sequence(const unsigned char *s)
{
	unsigned cp, n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong 3- and 4-byte forms, UTF-16 surrogates, beyond Unicode */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

bool utf8_is_valid(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_sequence(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Worst case every byte becomes "\xNN": four bytes out for one in. */
char *utf8_escape_invalid(const char *s)
{
	char *out = malloc(strlen(s) * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_sequence(p);

		if (!n) {
			o += sprintf(o, "\\x%02x", *p++);
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = 0;
	return out;
}

int read_unsigned_file(const char *path, unsigned *ret)
{
	/* O_NONBLOCK: a FIFO in the file's place (a hostile state directory) must not block. */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char buf[32];
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	/* One read: sysfs attributes come whole, and a state file this short is written whole
	 * (temporary file and rename). A full buffer means the file is not a number. */
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n == (ssize_t)sizeof(buf))
		return -E2BIG;
	/* "4\0junk" is not the number 4 (found by fuzz-state-file). */
	if (memchr(buf, 0, (size_t)n))
		return -EBADMSG;
	buf[n] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return safe_atou(buf, ret) < 0 ? -EBADMSG : 0;
}

unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[257], n = (unsigned)strlen(b);

	if (n > 255)
		return UINT_MAX;
	for (unsigned j = 0; j <= n; j++)
		d[j] = j;
	for (const char *p = a; *p; p++) {
		unsigned diag = d[0];

		d[0]++;
		for (unsigned j = 1; j <= n; j++) {
			unsigned up = d[j], best = (d[j] < d[j - 1] ? d[j] : d[j - 1]) + 1;

			d[j] = best < diag + (*p != b[j - 1]) ? best : diag + (*p != b[j - 1]);
			diag = up;
		}
	}
	return d[n];
}

struct shared_str {
	struct shared_str *next;
	unsigned refs;
	char s[];
};

/* Few distinct strings (the configuration's files, the chips), the newest first: a run of
 * sections of one file finds it at once. */
static struct shared_str *shared_strs;

const char *str_shared(const char *s)
{
	struct shared_str *p;
	size_t len;

	for (p = shared_strs; p; p = p->next)
		if (streq(p->s, s) && p->refs < UINT_MAX) {
			p->refs++;
			return p->s;
		}
	len = strlen(s);
	p = malloc(sizeof(*p) + len + 1);
	if (!p)
		return NULL;
	memcpy(p->s, s, len + 1);
	p->refs = 1;
	p->next = shared_strs;
	shared_strs = p;
	return p->s;
}

void str_unshare(const char *s)
{
	struct shared_str **pp;

	if (!s)
		return;
	for (pp = &shared_strs; *pp; pp = &(*pp)->next)
		if ((*pp)->s == s) {
			struct shared_str *p = *pp;

			if (--p->refs == 0) {
				*pp = p->next;
				free(p);
			}
			return;
		}
}
