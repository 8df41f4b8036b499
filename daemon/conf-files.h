/* SPDX-License-Identifier: MIT */
/* Which drop-ins make the configuration. */
#pragma once

/* Default search path, highest priority first. */
extern const char *const conf_default_dirs[];

/* The *.conf files to read, in application order (by file name). A name found in an earlier
 * directory hides the same name in later ones; a symlink to /dev/null (or an empty file that
 * is a link to it) masks the name. ret_notes (may be NULL): what hid what. */
int conf_files_list(const char *const *dirs, char ***ret_files, char ***ret_notes);
