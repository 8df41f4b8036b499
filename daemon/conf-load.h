/* SPDX-License-Identifier: MIT */
/* The configuration from a search path of drop-in directories. */
#pragma once

#include "conf.h"

/* Checks across files (exclusive backend resources); call after the last file. */
void conf_finish(struct conf *c);
/* conf_files_list + conf_parse_file for each + conf_finish. */
int conf_load(const char *const *dirs, struct conf **ret);
