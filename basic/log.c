// SPDX-License-Identifier: MIT
/* Log records: journal with structured fields when stderr is the journal, plain lines otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "string-util.h"

static int max_level = LOG_INFO;
static bool journal;
static bool show_location;

static const char *const level_names[] = {
    [LOG_EMERG] = "emerg",     [LOG_ALERT] = "alert",	[LOG_CRIT] = "crit", [LOG_ERR] = "err",
    [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

int log_level_from_string(const char *s)
{
	if (!s)
		return -EINVAL;
	if (streq(s, "error"))
		return LOG_ERR;
	for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
		if (streq(s, level_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *log_level_to_string(int level)
{
	if (level < 0 || (size_t)level >= ELEMENTSOF(level_names))
		return "?";
	return level_names[level];
}

void log_open(void)
{
	/* systemd sets JOURNAL_STREAM=dev:ino for the stream it connected to stderr. */
	const char *e = getenv("JOURNAL_STREAM"), *loc = getenv("SYSTEMD_LOG_LOCATION");
	unsigned long long dev, ino;
	struct stat st;

	show_location = loc && (streq(loc, "1") || streq(loc, "yes") || streq(loc, "true"));
	journal = false;
	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return;
	if (fstat(STDERR_FILENO, &st) < 0)
		return;
	journal = st.st_dev == dev && st.st_ino == ino;
}

bool log_to_journal(void)
{
	return journal;
}

void log_set_show_location(bool b)
{
	show_location = b;
}

/* Where a record was written from: journal fields, and a "file:line: " prefix on stderr when
 * asked for (SYSTEMD_LOG_LOCATION=1, as systemd's tools do). */
struct log_location {
	const char *file;
	int line;
	const char *func;
};

static void log_emit(int level, const struct log_location *loc, const char *const *fields,
		     const char *msg)
{
	if (journal) {
		struct iovec iov[20];
		char prio[16], code_line[32];
		_cleanup_free_ char *m = NULL, *code_file = NULL, *code_func = NULL;
		size_t n = 0;

		snprintf(prio, sizeof(prio), "PRIORITY=%d", level);
		if (asprintf(&m, "MESSAGE=%s", msg) < 0)
			return;
		iov[n++] = (struct iovec){m, strlen(m)};
		iov[n++] = (struct iovec){prio, strlen(prio)};
		iov[n++] = (struct iovec){(char *)"SYSLOG_IDENTIFIER=uledsd", 24};
		if (loc && asprintf(&code_file, "CODE_FILE=%s", loc->file) >= 0 &&
		    asprintf(&code_func, "CODE_FUNC=%s", loc->func) >= 0) {
			snprintf(code_line, sizeof(code_line), "CODE_LINE=%d", loc->line);
			iov[n++] = (struct iovec){code_file, strlen(code_file)};
			iov[n++] = (struct iovec){code_line, strlen(code_line)};
			iov[n++] = (struct iovec){code_func, strlen(code_func)};
		}
		for (; fields && *fields && n < ELEMENTSOF(iov); fields++)
			iov[n++] = (struct iovec){(char *)*fields, strlen(*fields)};
		if (sd_journal_sendv(iov, (int)n) >= 0)
			return;
	}
	/* One write per record so lines of concurrent writers don't interleave. */
	if (loc && show_location)
		fprintf(stderr, "%s:%d: %s\n", loc->file, loc->line, msg);
	else
		fprintf(stderr, "%s\n", msg);
}

int log_internal(int level, int error, const char *file, int line, const char *func,
		 const char *format, ...)
{
	const struct log_location loc = {file, line, func};
	char buf[1024];
	va_list ap;
	int saved = errno;

	/* errno is the error while formatting, so %m prints it, and restored after: a caller
	 * may still look at its own errno. */
	if (error < 0)
		error = -error;
	errno = error;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	log_emit(level, &loc, NULL, buf);
	errno = saved;
	return -error;
}

int log_struct_fields(int level, const char *const *fields, const char *format, ...)
{
	char buf[1024];
	va_list ap;

	if (level > max_level)
		return 0;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	log_emit(level, NULL, fields, buf);
	return 0;
}
