/* SPDX-License-Identifier: MIT */
/* The state of reading one drop-in (struct parser) and what a section of it does with a key:
 * conf-parse.c reads the lines, conf-section.c the keys of an [LED] section. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "macro.h"

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
	unsigned intensity_words; /* values given in multi_intensity */
	/* Per entry of lc->backends: listed in "backends =", line of its first key. */
	bool *listed;
	unsigned *first_key_line;
};

struct parser {
	struct conf *conf;
	const char *path;
	FILE *f;
	unsigned line;
	bool in_section;
	bool in_policy;	    /* in [uledsd] (policy.h), not in an LED's section */
	char **policy_seen; /* keys [uledsd] set in this file so far ("KEY\0LINE" pairs) */
	bool hash_in_value; /* this line's value has a '#': hint that only ';' starts a comment */
	struct section sec;
};

/* An error at line of p's file; inside a section it also fails the section's LED. A '#' in
 * the current line's value adds the hint that only ';' starts an inline comment. */
void section_error(struct parser *p, unsigned line, const char *format, ...) _printf_(3, 4);
/* "[raw]" at p->line: ends the previous section, starts an LED (or [uledsd]); skip: a
 * header so broken that the keys below it belong to no LED. */
void section_begin(struct parser *p, const char *raw, size_t len, bool skip);
/* Verifies the section and hands its LED to p->conf (valid or failed). */
void section_end(struct parser *p);
/* "key = value" in the current [LED] section: each key once. */
void section_key(struct parser *p, const char *key, const char *value);
