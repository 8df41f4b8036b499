/* SPDX-License-Identifier: MIT */
/* Logging: structured records to the journal when stderr is the journal, plain lines otherwise. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"

/* Highest priority that is printed (LOG_DEBUG prints everything). */
void log_set_max_level(int level);
int log_get_max_level(void);
/* Returns the syslog priority for "debug", "info", "notice", "warning", "err"/"error", ... or
 * -EINVAL. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);
/* Decides once whether records go to the journal (JOURNAL_STREAM matches stderr) or stderr. */
void log_open(void);
bool log_to_journal(void);
/* Prefix stderr lines with the "file:line: " that wrote them (journal records always carry
 * CODE_FILE=, CODE_LINE=, CODE_FUNC=). */
void log_set_show_location(bool b);

/* Every log_* returns -abs(error) (or 0 for error == 0), so "return log_error_errno(r, ...)" works.
 * errno is set to error during formatting, so %m prints it. */
int log_internal(int level, int error, const char *file, int line, const char *func,
		 const char *format, ...) _printf_(6, 7);

/* A record with extra journal fields ("KEY=value" strings, NULL-terminated). */
int log_struct_fields(int level, const char *const *fields, const char *format, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...)                                                          \
	({                                                                                         \
		int _l_ = (level), _e_ = (error);                                                  \
		(log_get_max_level() >= _l_)                                                       \
		    ? log_internal(_l_, _e_, __FILE__, __LINE__, __func__, __VA_ARGS__)            \
		    : -((_e_) < 0 ? -(_e_) : (_e_));                                               \
	})
#define log_full(level, ...) (void)log_full_errno(level, 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
