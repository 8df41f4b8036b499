// SPDX-License-Identifier: MIT
/* The one JSON emitter behind every --json: commas, indentation and string escapes. */
#include "ctl.h"

/* Before a value or a key: a comma after a sibling, then a new line when pretty. */
static void json_separate(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma)
		fputc(',', j->f);
	if (j->pretty && j->depth > 0)
		fprintf(j->f, "\n%*s", (int)(2 * j->depth), "");
}

void json_begin(struct json *j, char open)
{
	json_separate(j);
	fputc(open, j->f);
	j->depth++;
	j->need_comma = false;
}

void json_end(struct json *j, char close)
{
	bool empty = !j->need_comma;

	j->depth--;
	if (j->pretty && !empty)
		fprintf(j->f, "\n%*s", (int)(2 * j->depth), "");
	fputc(close, j->f);
	j->need_comma = true;
	if (j->depth == 0)
		fputc('\n', j->f);
}

static void json_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f); /* names and messages are UTF-8: passed through */
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	json_separate(j);
	json_escaped(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	json_separate(j);
	if (s)
		json_escaped(j->f, s);
	else
		fputs("null", j->f);
	j->need_comma = true;
}

void json_uint(struct json *j, uint64_t v)
{
	json_separate(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
	j->need_comma = true;
}

void json_field_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_field_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_bool(struct json *j, bool b)
{
	json_separate(j);
	fputs(b ? "true" : "false", j->f);
	j->need_comma = true;
}

void json_null(struct json *j)
{
	json_separate(j);
	fputs("null", j->f);
	j->need_comma = true;
}

void json_strv(struct json *j, char **strv)
{
	if (!strv) {
		json_null(j);
		return;
	}
	json_begin(j, '[');
	for (char **s = strv; *s; s++)
		json_string(j, *s);
	json_end(j, ']');
}

/* One LED as list --json and status --json print it: the fields and the path. */
void json_led(struct json *j, const struct ctl_led *l)
{
	json_begin(j, '{');
	json_key(j, "name");
	json_string(j, l->name);
	json_key(j, "path");
	json_string(j, l->path);
	json_key(j, "brightness");
	json_uint(j, l->brightness);
	json_key(j, "max_brightness");
	json_uint(j, l->max_brightness);
	json_key(j, "trigger");
	json_string(j, l->trigger);
	json_key(j, "mode");
	json_string(j, l->mode ? l->mode : "");
	json_key(j, "blink_on_ms");
	json_uint(j, l->blink_on_ms);
	json_key(j, "blink_off_ms");
	json_uint(j, l->blink_off_ms);
	json_key(j, "backends");
	json_begin(j, '[');
	for (size_t i = 0; i < l->n_backends; i++) {
		json_begin(j, '{');
		json_key(j, "name");
		json_string(j, l->backends[i].name);
		json_key(j, "ok");
		json_bool(j, l->backends[i].ok);
		json_key(j, "state");
		json_string(j, l->backends[i].status);
		json_end(j, '}');
	}
	json_end(j, ']');
	json_key(j, "color");
	json_begin(j, '[');
	for (size_t i = 0; i < l->n_channels; i++) {
		json_begin(j, '{');
		json_field_string(j, "name", l->channels[i].name);
		json_field_uint(j, "intensity", l->channels[i].intensity);
		json_end(j, '}');
	}
	json_end(j, ']');
	json_key(j, "transient");
	json_bool(j, l->transient);
	json_end(j, '}');
}
