// SPDX-License-Identifier: MIT
/* Configuration: drop-in discovery, inih-driven parsing with line numbers, validation, diff. */
#include <ctype.h>
#include <dirent.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "conf.h"
#include "log.h"
#include "macro.h"

const char *const conf_default_dirs[] = {
	"/etc/uledsd.d", "/run/uledsd.d", "/usr/local/lib/uledsd.d", "/usr/lib/uledsd.d", NULL,
};

/* ---- drop-in discovery ---- */

struct conf_file {
	char *name;
	char *path; /* NULL: masked */
};

static int conf_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name, ((const struct conf_file *)b)->name);
}

static bool is_masked(const char *path)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return false;
	target[n] = 0;
	return streq(target, "/dev/null");
}

static bool conf_name_wanted(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && streq(name + n - 5, ".conf");
}

int conf_files_list(const char *const *dirs, char ***ret_files)
{
	struct conf_file *files = NULL;
	size_t n = 0, n_out = 0;
	char **out = NULL;
	int r = 0;

	for (const char *const *d = dirs; *d; d++) {
		DIR *dir = opendir(*d);
		struct dirent *de;

		if (!dir) {
			if (errno == ENOENT)
				continue;
			r = log_error_errno(errno, "Failed to open configuration directory %s: %m", *d);
			goto finish;
		}
		while ((de = readdir(dir))) {
			bool seen = false;
			char *path;

			if (!conf_name_wanted(de->d_name))
				continue;
			for (size_t i = 0; i < n && !seen; i++)
				seen = streq(files[i].name, de->d_name);
			if (seen) /* an earlier directory has this name */
				continue;
			if (asprintf(&path, "%s/%s", *d, de->d_name) < 0) {
				closedir(dir);
				r = -ENOMEM;
				goto finish;
			}
			struct conf_file *nf = realloc(files, (n + 1) * sizeof(*files));
			if (!nf) {
				free(path);
				closedir(dir);
				r = -ENOMEM;
				goto finish;
			}
			files = nf;
			files[n].name = strdup(de->d_name);
			files[n].path = path;
			if (is_masked(path)) {
				free(path);
				files[n].path = NULL;
			}
			n++;
		}
		closedir(dir);
	}
	if (n > 0)
		qsort(files, n, sizeof(*files), conf_file_cmp);
	out = calloc(n + 1, sizeof(char *));
	if (!out) {
		r = -ENOMEM;
		goto finish;
	}
	for (size_t i = 0; i < n; i++)
		if (files[i].path)
			out[n_out++] = TAKE_PTR(files[i].path);
	*ret_files = TAKE_PTR(out);
finish:
	for (size_t i = 0; i < n; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
	return r;
}

/* ---- containers ---- */

int conf_new(struct conf **ret)
{
	struct conf *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->errors = calloc(1, sizeof(char *));
	c->failed_names = calloc(1, sizeof(char *));
	if (!c->errors || !c->failed_names) {
		conf_free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

struct led_conf *led_conf_free(struct led_conf *lc)
{
	if (!lc)
		return NULL;
	for (size_t i = 0; i < lc->n_backends; i++)
		led_backend_free(lc->backends[i]);
	free(lc->backends);
	for (size_t i = 0; i < lc->n_attrs; i++) {
		free(lc->attrs[i].key);
		free(lc->attrs[i].value);
	}
	free(lc->attrs);
	free(lc->trigger);
	free(lc->file);
	free(lc->name);
	free(lc);
	return NULL;
}

struct conf *conf_free(struct conf *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_leds; i++)
		led_conf_free(c->leds[i]);
	free(c->leds);
	strv_free(c->failed_names);
	strv_free(c->errors);
	for (size_t i = 0; i < c->n_defined; i++) {
		free(c->defined_names[i]);
		free(c->defined_places[i]);
	}
	free(c->defined_names);
	free(c->defined_places);
	free(c);
	return NULL;
}

static int strv_push(char ***l, size_t *n, char *s)
{
	char **nl = realloc(*l, (*n + 2) * sizeof(char *));

	if (!nl)
		return -ENOMEM;
	nl[(*n)++] = s;
	nl[*n] = NULL;
	*l = nl;
	return 0;
}

void conf_add_error(struct conf *c, const char *file, unsigned line, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	char *s;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	if ((line > 0 ? asprintf(&s, "%s:%u: %s", file, line, msg)
		      : asprintf(&s, "%s: %s", file, msg)) < 0)
		return;
	if (strv_push(&c->errors, &c->n_errors, s) < 0)
		free(s);
}

struct led_conf *conf_find(const struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_leds; i++)
		if (streq(c->leds[i]->name, name))
			return c->leds[i];
	return NULL;
}

bool conf_is_failed(const struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_failed; i++)
		if (streq(c->failed_names[i], name))
			return true;
	return false;
}

/* ---- values ---- */

bool led_name_is_valid(const char *name, const char **ret_reason)
{
	const char *reason = NULL;
	size_t n = strlen(name);

	if (n == 0)
		reason = "it is empty";
	else if (n > LED_NAME_MAX)
		reason = "it is longer than the kernel's 63 bytes";
	else if (strchr(name, '/'))
		reason = "it contains '/'";
	else if (streq(name, ".") || streq(name, ".."))
		reason = "\".\" and \"..\" are not valid names";
	else
		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			if (*p < 0x20 || *p == 0x7f) {
				reason = "it contains a control character";
				break;
			}
	if (ret_reason)
		*ret_reason = reason;
	return !reason;
}

static int parse_int(const char *s, long long min, long long max, int *ret)
{
	char *end;
	long long v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

static bool trigger_name_is_valid(const char *s)
{
	if (!*s || strlen(s) > LED_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static bool attr_name_is_valid(const char *s)
{
	static const char *const reserved[] = { "brightness", "max_brightness", "trigger",
						"uevent",     "power",		"device",
						"subsystem" };
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return false;
	for (size_t i = 0; i < ELEMENTSOF(reserved); i++)
		if (streq(s, reserved[i]))
			return false;
	return true;
}

/* ---- parsing ---- */

/* Lines of the section being parsed that set a key, to report duplicates. */
struct seen_key {
	char *key;
	unsigned line;
};

struct section {
	struct led_conf *lc;
	bool skip; /* duplicate LED name: its keys are ignored */
	bool error;
	struct seen_key *keys;
	size_t n_keys;
	unsigned default_line;
	/* Backends that got keys (or were listed): index in lc->backends, listed flag. */
	bool *listed;
	unsigned *first_key_line;
};

struct parser {
	struct conf *conf;
	const char *path;
	FILE *f;
	unsigned line;
	bool in_section;
	struct section sec;
};

static void section_error(struct parser *p, unsigned line, const char *format, ...)
	_printf_(3, 4);
static void section_error(struct parser *p, unsigned line, const char *format, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, format);
	if (vasprintf(&msg, format, ap) < 0)
		msg = NULL;
	va_end(ap);
	conf_add_error(p->conf, p->path, line, "%s", msg ? msg : "(out of memory)");
	p->sec.error = true;
}

static int find_backend(struct led_conf *lc, const struct backend_ops *ops)
{
	for (size_t i = 0; i < lc->n_backends; i++)
		if (lc->backends[i]->ops == ops)
			return (int)i;
	return -1;
}

static int add_backend(struct parser *p, const struct backend_ops *ops, unsigned line)
{
	struct section *s = &p->sec;
	struct led_conf *lc = s->lc;
	struct led_backend *b, **nb;
	bool *nl;
	unsigned *nf;
	int r;

	r = led_backend_new(ops, p->path, line, &b);
	if (r < 0)
		return r;
	nb = realloc(lc->backends, (lc->n_backends + 1) * sizeof(*nb));
	nl = nb ? realloc(s->listed, (lc->n_backends + 1) * sizeof(*nl)) : NULL;
	nf = nl ? realloc(s->first_key_line, (lc->n_backends + 1) * sizeof(*nf)) : NULL;
	if (nb)
		lc->backends = nb;
	if (nl)
		s->listed = nl;
	if (!nf) {
		led_backend_free(b);
		return -ENOMEM;
	}
	s->first_key_line = nf;
	s->listed[lc->n_backends] = false;
	s->first_key_line[lc->n_backends] = 0;
	lc->backends[lc->n_backends] = b;
	return (int)lc->n_backends++;
}

static void parse_backends_list(struct parser *p, const char *value)
{
	_cleanup_free_ char *copy = strdup(value);
	struct led_conf *lc = p->sec.lc;
	char *save = NULL;

	if (!copy)
		return;
	lc->backends_set = true;
	lc->backends_line = p->line;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		const struct backend_ops *ops = backend_ops_find(w);
		int i;

		if (!ops) {
			section_error(p, p->line, "unknown backend '%s' in 'backends'; known: %s.", w,
				      backend_list_names());
			continue;
		}
		i = find_backend(lc, ops);
		if (i >= 0 && p->sec.listed[i]) {
			section_error(p, p->line, "backend '%s' is listed twice in 'backends'.", w);
			continue;
		}
		if (i < 0)
			i = add_backend(p, ops, p->line);
		if (i < 0) {
			section_error(p, p->line, "out of memory");
			continue;
		}
		p->sec.listed[i] = true;
		lc->backends[i]->line = p->line;
	}
}

static void parse_backend_key(struct parser *p, const struct backend_ops *ops, const char *key,
			      const char *value)
{
	_cleanup_free_ char *err = NULL;
	struct led_conf *lc = p->sec.lc;
	int i, r;

	i = find_backend(lc, ops);
	if (i < 0)
		i = add_backend(p, ops, p->line);
	if (i < 0) {
		section_error(p, p->line, "out of memory");
		return;
	}
	if (!p->sec.first_key_line[i])
		p->sec.first_key_line[i] = p->line;
	if (!ops->parse) {
		section_error(p, p->line, "backend '%s' has no settings; remove '%s.%s'.",
			      ops->name, ops->name, key);
		return;
	}
	r = ops->parse(lc->backends[i], key, value, &err);
	if (r < 0)
		section_error(p, p->line, "%s", err ? err : "invalid value");
}

static void parse_key(struct parser *p, const char *key, const char *value)
{
	struct led_conf *lc = p->sec.lc;
	const char *dot;
	int r;

	if (streq(key, "max_brightness")) {
		r = parse_int(value, 1, INT_MAX, &lc->max_brightness);
		if (r < 0)
			section_error(p, p->line,
				      "max_brightness = '%s' is not valid: give a whole number from 1 to %d.",
				      value, INT_MAX);
	} else if (streq(key, "default_brightness")) {
		p->sec.default_line = p->line;
		if (streq(value, "restore"))
			lc->default_mode = DEFAULT_BRIGHTNESS_RESTORE;
		else if (parse_int(value, 0, INT_MAX, &lc->default_brightness) >= 0)
			lc->default_mode = DEFAULT_BRIGHTNESS_VALUE;
		else
			section_error(p, p->line,
				      "default_brightness = '%s' is not valid: give a number from 0 to max_brightness, or 'restore'.",
				      value);
	} else if (streq(key, "trigger")) {
		if (!trigger_name_is_valid(value)) {
			section_error(p, p->line,
				      "trigger = '%s' is not a trigger name: use letters, digits, '_' and '-' (see /sys/class/leds/*/trigger).",
				      value);
			return;
		}
		lc->trigger = strdup(value);
		lc->trigger_line = p->line;
	} else if (streq(key, "backends")) {
		parse_backends_list(p, value);
	} else if (strncmp(key, "trigger.", 8) == 0) {
		struct trigger_attr *na;

		if (!attr_name_is_valid(key + 8)) {
			section_error(p, p->line,
				      "'%s' does not name a trigger attribute: use trigger.ATTRIBUTE with a lower-case sysfs name such as trigger.delay_on.",
				      key);
			return;
		}
		na = realloc(lc->attrs, (lc->n_attrs + 1) * sizeof(*na));
		if (!na) {
			section_error(p, p->line, "out of memory");
			return;
		}
		lc->attrs = na;
		lc->attrs[lc->n_attrs++] = (struct trigger_attr){
			.key = strdup(key + 8), .value = strdup(value), .line = p->line
		};
	} else if ((dot = strchr(key, '.'))) {
		_cleanup_free_ char *prefix = strndup(key, (size_t)(dot - key));
		const struct backend_ops *ops = prefix ? backend_ops_find(prefix) : NULL;

		if (!ops) {
			section_error(p, p->line,
				      "unknown key '%s': '%s' is not a backend (known: %s) nor 'trigger'.",
				      key, prefix ? prefix : "", backend_list_names());
			return;
		}
		parse_backend_key(p, ops, dot + 1, value);
	} else {
		section_error(p, p->line,
			      "unknown key '%s'; known keys: max_brightness, default_brightness, trigger, trigger.ATTRIBUTE, backends, BACKEND.KEY.",
			      key);
	}
}

static void section_end(struct parser *p)
{
	struct section *s = &p->sec;
	struct led_conf *lc = s->lc;

	if (!p->in_section)
		return;
	p->in_section = false;
	if (s->skip) {
		led_conf_free(lc);
		goto done;
	}
	if (lc->default_mode == DEFAULT_BRIGHTNESS_VALUE &&
	    lc->default_brightness > lc->max_brightness)
		section_error(p, s->default_line,
			      "default_brightness = %d is above max_brightness = %d; lower it or raise max_brightness.",
			      lc->default_brightness, lc->max_brightness);
	if (lc->n_attrs > 0 && !lc->trigger)
		section_error(p, lc->attrs[0].line,
			      "'trigger.%s' needs a trigger: add 'trigger = ...' to [%s].",
			      lc->attrs[0].key, lc->name);
	for (size_t i = 0; i < lc->n_backends; i++) {
		struct led_backend *b = lc->backends[i];
		_cleanup_free_ char *err = NULL;

		if (!s->listed[i]) {
			section_error(p, s->first_key_line[i],
				      "'%s.*' settings given but '%s' is not in 'backends' of [%s]; add it there or remove the settings.",
				      b->ops->name, b->ops->name, lc->name);
			continue;
		}
		if (b->ops->verify && b->ops->verify(b, &err) < 0)
			section_error(p, b->line, "%s", err ? err : "invalid backend settings");
	}
	if (s->error) {
		char *n = strdup(lc->name);

		if (n && strv_push(&p->conf->failed_names, &p->conf->n_failed, n) < 0)
			free(n);
		led_conf_free(lc);
	} else {
		struct led_conf **nl =
			realloc(p->conf->leds, (p->conf->n_leds + 1) * sizeof(*nl));
		if (!nl) {
			led_conf_free(lc);
		} else {
			p->conf->leds = nl;
			p->conf->leds[p->conf->n_leds++] = lc;
		}
	}
done:
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i].key);
	free(s->keys);
	free(s->listed);
	free(s->first_key_line);
	memset(s, 0, sizeof(*s));
}

/* Where an LED name was defined before, in this conf (any file). */
static const char *name_defined_at(struct conf *c, const char *name);

static void name_remember(struct conf *c, const char *name, const char *path, unsigned line)
{
	char *place, *n = strdup(name);
	char **nn, **np;

	if (!n || asprintf(&place, "%s:%u", path, line) < 0) {
		free(n);
		return;
	}
	nn = realloc(c->defined_names, (c->n_defined + 1) * sizeof(char *));
	np = nn ? realloc(c->defined_places, (c->n_defined + 1) * sizeof(char *)) : NULL;
	if (nn)
		c->defined_names = nn;
	if (!np) {
		free(n);
		free(place);
		return;
	}
	c->defined_places = np;
	c->defined_names[c->n_defined] = n;
	c->defined_places[c->n_defined++] = place;
}

static void section_begin(struct parser *p, const char *raw, size_t len, bool skip)
{
	struct section *s = &p->sec;
	struct led_conf *lc;
	const char *reason, *prev;

	section_end(p);
	lc = calloc(1, sizeof(*lc));
	if (!lc)
		return;
	lc->name = strndup(raw, len);
	lc->file = strdup(p->path);
	lc->line = p->line;
	lc->max_brightness = 255;
	if (!lc->name || !lc->file) {
		led_conf_free(lc);
		return;
	}
	p->in_section = true;
	s->lc = lc;
	s->skip = skip;
	if (skip)
		return;
	if (!led_name_is_valid(lc->name, &reason)) {
		section_error(p, p->line, "[%s] is not a valid LED name: %s.", lc->name, reason);
		return;
	}
	prev = name_defined_at(p->conf, lc->name);
	if (prev) {
		conf_add_error(p->conf, p->path, p->line,
			       "LED '%s' is already defined at %s; remove or rename this one.", lc->name,
			       prev);
		s->skip = true;
		return;
	}
	name_remember(p->conf, lc->name, p->path, p->line);
}

static const char *name_defined_at(struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_defined; i++)
		if (streq(c->defined_names[i], name))
			return c->defined_places[i];
	return NULL;
}

static int handler(void *user, const char *section _unused_, const char *key, const char *value)
{
	struct parser *p = user;
	struct section *s = &p->sec;

	if (!p->in_section) {
		conf_add_error(p->conf, p->path, p->line,
			       "'%s' is outside of any [LED] section; put it below a section header.",
			       key);
		return 1;
	}
	if (s->skip)
		return 1;
	for (size_t i = 0; i < s->n_keys; i++)
		if (streq(s->keys[i].key, key)) {
			section_error(p, p->line, "'%s' is set twice in [%s] (first at line %u); keep one.",
				      key, s->lc->name, s->keys[i].line);
			return 1;
		}
	struct seen_key *nk = realloc(s->keys, (s->n_keys + 1) * sizeof(*nk));
	if (nk) {
		s->keys = nk;
		s->keys[s->n_keys++] = (struct seen_key){ .key = strdup(key), .line = p->line };
	}
	parse_key(p, key, value);
	return 1;
}

static char *skip_space(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/* inih's reader: counts lines, handles section headers itself (inih would cut long names and
 * never report empty sections) and reports lines inih would reject, with their number. */
static char *reader(char *buf, int size, void *user)
{
	struct parser *p = user;

	for (;;) {
		char *s, *end;
		size_t len;

		if (!fgets(buf, size, p->f))
			return NULL;
		p->line++;
		len = strlen(buf);
		if (len > 0 && buf[len - 1] != '\n' && !feof(p->f)) {
			int c;

			while ((c = fgetc(p->f)) != EOF && c != '\n')
				;
			conf_add_error(p->conf, p->path, p->line,
				       "line is longer than %d bytes; shorten it.", size - 2);
			if (p->in_section)
				p->sec.error = true;
			continue;
		}
		s = skip_space(buf);
		/* inih would treat indented lines as continuations: take them as they are. */
		memmove(buf, s, strlen(s) + 1);
		len = strlen(buf);
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
				   buf[len - 1] == ' ' || buf[len - 1] == '\t'))
			buf[--len] = 0;
		if (p->line == 1 && len >= 3 && strncmp(buf, "\xEF\xBB\xBF", 3) == 0) {
			memmove(buf, buf + 3, len - 2);
			len -= 3;
		}
		if (len == 0 || buf[0] == ';' || buf[0] == '#')
			continue;
		if (buf[0] == '[') {
			end = strrchr(buf, ']');
			if (!end || end[1]) {
				conf_add_error(p->conf, p->path, p->line,
					       "a section header must look like [NAME] with nothing after ']'.");
				/* the keys that follow belong to no LED: ignore them */
				section_begin(p, "", 0, true);
				continue;
			}
			section_begin(p, buf + 1, (size_t)(end - buf - 1), false);
			continue;
		}
		if (!strpbrk(buf, "=:")) {
			conf_add_error(p->conf, p->path, p->line,
				       "expected 'key = value', a [section] or a comment.");
			if (p->in_section)
				p->sec.error = true;
			continue;
		}
		if (buf[0] == '=' || buf[0] == ':') {
			conf_add_error(p->conf, p->path, p->line, "a key is missing before '%c'.",
				       buf[0]);
			if (p->in_section)
				p->sec.error = true;
			continue;
		}
		buf[len] = '\n';
		buf[len + 1] = 0;
		return buf;
	}
}

int conf_parse_stream(struct conf *c, const char *path, FILE *f)
{
	struct parser p = { .conf = c, .path = path, .f = f };

	(void)ini_parse_stream(reader, &p, handler, &p);
	section_end(&p);
	c->n_files++;
	return 0;
}

int conf_parse_file(struct conf *c, const char *path)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f) {
		conf_add_error(c, path, 0, "cannot read the file: %s.", strerror(errno));
		return 0;
	}
	r = conf_parse_stream(c, path, f);
	fclose(f);
	return r;
}

/* A resource one backend claims (the same GPIO line may not serve two LEDs). */
struct claim {
	char *what;  /* b->ops->claim(b) */
	size_t led;  /* index in conf->leds, in definition order */
	struct led_backend *b;
	size_t first; /* in the sorted order: the first claim of the same resource */
};

static int claim_cmp(const void *x, const void *y)
{
	const struct claim *a = *(const struct claim *const *)x, *b = *(const struct claim *const *)y;
	int r = strcmp(a->what, b->what);

	return r ? r : a->led < b->led ? -1 : a->led > b->led;
}

void conf_finish(struct conf *c)
{
	/* Two backends claiming one resource: the later LED fails, naming the earlier one that
	 * was kept. Each claim is built once and sorted (1000 GPIO LEDs: n log n, not n²). */
	_cleanup_free_ struct claim *claims = NULL;
	_cleanup_free_ struct claim **sorted = NULL;
	_cleanup_free_ bool *kept_led = NULL;
	size_t n = 0, kept = 0, k = 0;

	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++)
			n += !!c->leds[i]->backends[j]->ops->claim;
	if (n == 0)
		return;
	claims = calloc(n, sizeof(*claims));
	sorted = calloc(n, sizeof(*sorted));
	kept_led = calloc(c->n_leds, sizeof(*kept_led));
	if (!claims || !sorted || !kept_led) {
		conf_add_error(c, c->leds[0]->file, c->leds[0]->line,
			       "out of memory while checking GPIO lines for duplicates");
		return;
	}
	n = 0;
	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++) {
			struct led_backend *b = c->leds[i]->backends[j];
			char *what = b->ops->claim ? b->ops->claim(b) : NULL;

			if (what) {
				claims[n] = (struct claim){ .what = what, .led = i, .b = b };
				sorted[n] = &claims[n];
				n++;
			}
		}
	qsort(sorted, n, sizeof(*sorted), claim_cmp);
	for (size_t x = 0; x < n; x++)
		sorted[x]->first = x > 0 && streq(sorted[x - 1]->what, sorted[x]->what)
					   ? sorted[x - 1]->first
					   : x;

	for (size_t i = 0; i < c->n_leds; i++) {
		struct led_conf *lc = c->leds[i];
		bool failed = false;

		for (; k < n && claims[k].led == i; k++) {
			const struct claim *cl = &claims[k], *owner = NULL;

			/* The earliest LED before this one with the same claim that was kept. */
			for (size_t x = cl->first; x < n && sorted[x]->led < i &&
						   streq(sorted[x]->what, cl->what);
			     x++)
				if (kept_led[sorted[x]->led]) {
					owner = sorted[x];
					break;
				}
			if (!owner)
				continue;
			conf_add_error(c, cl->b->file, cl->b->line,
				       "[%s] uses %s, which [%s] at %s:%u already uses; give each LED its own.",
				       lc->name, cl->what, c->leds[owner->led]->name, owner->b->file,
				       owner->b->line);
			failed = true;
		}
		kept_led[i] = !failed;
	}
	/* Errors cite the LEDs that stay: free the failed ones only now. */
	for (size_t i = 0; i < c->n_leds; i++) {
		struct led_conf *lc = c->leds[i];

		if (kept_led[i]) {
			c->leds[kept++] = lc;
			continue;
		}
		char *name = strdup(lc->name);

		if (name && strv_push(&c->failed_names, &c->n_failed, name) < 0)
			free(name);
		led_conf_free(lc);
	}
	c->n_leds = kept;
	for (size_t x = 0; x < n; x++)
		free(claims[x].what);
}

int conf_load(const char *const *dirs, struct conf **ret)
{
	_cleanup_strv_free_ char **files = NULL;
	struct conf *c;
	int r;

	r = conf_new(&c);
	if (r < 0)
		return r;
	r = conf_files_list(dirs, &files);
	if (r < 0) {
		conf_free(c);
		return r;
	}
	for (char **f = files; *f; f++)
		conf_parse_file(c, *f);
	conf_finish(c);
	*ret = c;
	return 0;
}

/* ---- reload comparison ---- */

static bool str_eq_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && streq(a, b));
}

bool led_conf_backends_same(const struct led_conf *a, const struct led_conf *b);
bool led_conf_backends_same(const struct led_conf *a, const struct led_conf *b)
{
	if (a->n_backends != b->n_backends)
		return false;
	for (size_t i = 0; i < a->n_backends; i++) {
		const struct led_backend *x = a->backends[i], *y = b->backends[i];

		if (x->ops != y->ops || (x->ops->same && !x->ops->same(x, y)))
			return false;
	}
	return true;
}

enum led_change led_conf_compare(const struct led_conf *old, const struct led_conf *new)
{
	if (old->max_brightness != new->max_brightness)
		return LED_CHANGE_RECREATE;
	if (old->default_mode != new->default_mode ||
	    (new->default_mode == DEFAULT_BRIGHTNESS_VALUE &&
	     old->default_brightness != new->default_brightness))
		return LED_CHANGE_UPDATE;
	if (!str_eq_null(old->trigger, new->trigger) || old->n_attrs != new->n_attrs)
		return LED_CHANGE_UPDATE;
	for (size_t i = 0; i < old->n_attrs; i++)
		if (!streq(old->attrs[i].key, new->attrs[i].key) ||
		    !streq(old->attrs[i].value, new->attrs[i].value))
			return LED_CHANGE_UPDATE;
	return led_conf_backends_same(old, new) ? LED_CHANGE_NONE : LED_CHANGE_UPDATE;
}
