/* SPDX-License-Identifier: MIT */
/* Reading one drop-in into a configuration: errors are appended to it, never fatal. */
#pragma once

#include <stdio.h>

#include "conf.h"

int conf_parse_file(struct conf *c, const char *path);
/* Same, from an open stream (for tests and transient LEDs). */
int conf_parse_stream(struct conf *c, const char *path, FILE *f);
