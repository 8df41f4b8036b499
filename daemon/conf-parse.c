// SPDX-License-Identifier: MIT
/* Reading one drop-in: inih with our own line reader (line numbers), [uledsd] keys here and
 * the keys of an [LED] section in conf-section.c. */
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-parse.h"
#include "conf-section.h"
#include "string-util.h"

/* A key of [uledsd]: a later file may set it again (drop-ins override), one file only once. */
static void policy_key(struct parser *p, const char *key, const char *value)
{
	_cleanup_free_ char *err = NULL;
	size_t n = strv_length(p->policy_seen);

	for (size_t i = 0; i + 1 < n; i += 2)
		if (streq(p->policy_seen[i], key)) {
			conf_add_error(p->conf, p->path, p->line,
				       "'%s' is set twice in [%s] (first at line %s); keep one.", key,
				       POLICY_SECTION, p->policy_seen[i + 1]);
			return;
		}
	if (strv_push(&p->policy_seen, &n, strdup(key)) >= 0) {
		char line[16];

		snprintf(line, sizeof(line), "%u", p->line);
		(void)strv_push(&p->policy_seen, &n, strdup(line));
	}
	if (policy_parse_key(&p->conf->policy, key, value, &err) < 0)
		conf_add_error(p->conf, p->path, p->line, "%s", err ? err : "out of memory");
}

static int handler(void *user, const char *section _unused_, const char *key, const char *value)
{
	struct parser *p = user;

	if (p->in_policy) {
		policy_key(p, key, value);
		return 1;
	}
	if (!p->in_section) {
		conf_add_error(
		    p->conf, p->path, p->line,
		    "'%s' is outside of any [LED] section; put it below a section header.", key);
		return 1;
	}
	section_key(p, key, value);
	return 1;
}

/* ---- lines ---- */

/* Without its indentation (inih would take indented lines as continuations), trailing
 * space and newline, and a UTF-8 byte order mark on line 1. Returns the length. */
static size_t line_trim(struct parser *p, char *buf)
{
	char *s = buf;
	size_t len;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	memmove(buf, s, strlen(s) + 1);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
			   buf[len - 1] == '\t'))
		buf[--len] = 0;
	if (p->line == 1 && len >= 3 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0) {
		memmove(buf, buf + 3, len - 2);
		len -= 3;
	}
	return len;
}

/* "[NAME]  ; comment": the header without its inline comment (';' after a space, as on
 * key lines). Returns the position of the closing ']', NULL when there is none. */
static char *header_end(char *buf, size_t len)
{
	char *end;

	for (char *c = buf + 1; *c; c++)
		if (*c == ';' && (c[-1] == ' ' || c[-1] == '\t')) {
			len = (size_t)(c - buf);
			break;
		}
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = 0;
	end = strrchr(buf, ']');
	return end && !end[1] ? end : NULL;
}

/* A line that is not for inih: a section header (inih would cut long names and never
 * report empty sections) or one inih would reject. true: handled here. */
static bool line_handle(struct parser *p, char *buf, size_t len)
{
	char *end;

	if (len == 0 || buf[0] == ';' || buf[0] == '#')
		return true;
	if (buf[0] == '[') {
		_cleanup_free_ char *text = strdup(buf);

		end = header_end(buf, len);
		if (!end) {
			/* Not the previous section's fault; the keys that follow belong to no
			 * LED: ignore them. */
			conf_add_error(p->conf, p->path, p->line,
				       "'%s' is not a section header: write [NAME], optionally "
				       "followed by ' ; comment'.",
				       text ? text : buf);
			section_begin(p, "", 0, true);
			return true;
		}
		section_begin(p, buf + 1, (size_t)(end - buf - 1), false);
		return true;
	}
	if (!strpbrk(buf, "=:")) {
		section_error(p, p->line,
			      "'%s' is not 'key = value', a [section] or a comment (';' or '#' at "
			      "the start of the line).",
			      buf);
		return true;
	}
	if (buf[0] == '=' || buf[0] == ':') {
		section_error(p, p->line, "a key is missing before '%c' in '%s'.", buf[0], buf);
		return true;
	}
	return false;
}

/* inih's reader: counts lines and hands inih only "key = value" lines. */
static char *reader(char *buf, int size, void *user)
{
	struct parser *p = user;

	for (;;) {
		size_t len;
		int c;

		if (!fgets(buf, size, p->f))
			return NULL;
		p->line++;
		len = strlen(buf);
		if (len > 0 && buf[len - 1] != '\n' && !feof(p->f)) {
			while ((c = fgetc(p->f)) != EOF && c != '\n')
				;
			section_error(p, p->line, "line is longer than %d bytes; shorten it.",
				      size - 2);
			continue;
		}
		len = line_trim(p, buf);
		if (line_handle(p, buf, len))
			continue;
		buf[len] = '\n';
		buf[len + 1] = 0;
		return buf;
	}
}

int conf_parse_stream(struct conf *c, const char *path, FILE *f)
{
	struct parser p = {.conf = c, .path = path, .f = f};

	(void)ini_parse_stream(reader, &p, handler, &p);
	section_end(&p);
	strv_free(p.policy_seen);
	c->n_files++;
	return 0;
}

int conf_parse_file(struct conf *c, const char *path)
{
	_cleanup_(fclosep) FILE *f = NULL;
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO named *.conf would block fopen() (and the daemon) forever. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		conf_add_error(c, path, 0, "cannot read the file: %s.", strerror(errno));
		return 0;
	}
	/* A directory opens too, and reads as an empty file: say so instead. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		conf_add_error(c, path, 0,
			       "not a regular file; a drop-in must be a file (or a symlink to "
			       "/dev/null to mask one).");
		return 0;
	}
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	return conf_parse_stream(c, path, f);
}
