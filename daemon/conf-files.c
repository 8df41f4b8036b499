// SPDX-License-Identifier: MIT
/* Which drop-ins make the configuration: search path, precedence by file name, masking. */
#include <limits.h>
#include <stdio.h>

#include "conf-files.h"
#include "log.h"
#include "string-util.h"

const char *const conf_default_dirs[] = {
    "/etc/uledsd.d", "/run/uledsd.d", "/usr/local/lib/uledsd.d", "/usr/lib/uledsd.d", NULL,
};

/* One file name, the first (highest priority) path that has it. */
struct conf_file {
	char *name;
	char *path;
	bool masked;
};

struct conf_files {
	struct conf_file *files;
	size_t n;
	char **notes; /* what hides what, for --check-config */
	size_t n_notes;
};

static void conf_files_done(struct conf_files *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->files[i].name);
		free(l->files[i].path);
	}
	free(l->files);
	strv_free(l->notes);
}

static int conf_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name, ((const struct conf_file *)b)->name);
}

/* As systemd's drop-ins: a symlink to /dev/null hides the name in every later directory. */
static bool is_masked(const char *path)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return false;
	target[n] = 0;
	return streq(target, "/dev/null");
}

/* "*.conf", not hidden: editors' backups (foo.conf~, .foo.conf.swp) are not read. */
static bool conf_name_wanted(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && streq(name + n - 5, ".conf");
}

static const struct conf_file *conf_files_find(const struct conf_files *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (streq(l->files[i].name, name))
			return &l->files[i];
	return NULL;
}

/* A drop-in hidden by one of the same name in an earlier directory, or masked. */
static int conf_files_note_hidden(struct conf_files *l, const struct conf_file *by, const char *dir,
				  const char *name)
{
	char *note = NULL;

	if (asprintf(&note, "%s/%s: %s by %s", dir, name, by->masked ? "masked" : "overridden",
		     by->path) < 0)
		return -ENOMEM;
	return strv_push(&l->notes, &l->n_notes, note);
}

static int conf_files_add(struct conf_files *l, const char *dir, const char *name)
{
	_cleanup_free_ char *path = NULL, *copy = strdup(name);
	struct conf_file *nf;
	bool masked;

	if (!copy || asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	nf = realloc(l->files, (l->n + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	l->files = nf;
	masked = is_masked(path);
	l->files[l->n++] = (struct conf_file){
	    .name = TAKE_PTR(copy),
	    .masked = masked,
	    .path = TAKE_PTR(path),
	};
	return 0;
}

/* The names of one directory that no earlier directory had. */
static int conf_files_scan(struct conf_files *l, const char *dir)
{
	_cleanup_(closedirp) DIR *d = opendir(dir);
	struct dirent *de;
	int r;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		return log_error_errno(errno, "Failed to open configuration directory %s: %m", dir);
	}
	while ((de = readdir(d))) {
		const struct conf_file *by;

		if (!conf_name_wanted(de->d_name))
			continue;
		by = conf_files_find(l, de->d_name);
		r = by ? conf_files_note_hidden(l, by, dir, de->d_name)
		       : conf_files_add(l, dir, de->d_name);
		if (r < 0)
			return r;
	}
	return 0;
}

int conf_files_list(const char *const *dirs, char ***ret_files, char ***ret_notes)
{
	struct conf_files l = {NULL, 0, NULL, 0};
	char **out, *note;
	size_t n_out = 0;
	int r = 0;

	for (const char *const *d = dirs; *d && r >= 0; d++)
		r = conf_files_scan(&l, *d);
	out = r >= 0 ? calloc(l.n + 1, sizeof(char *)) : NULL;
	if (r >= 0 && !out)
		r = -ENOMEM;
	/* Applied by file name, whatever the directory: a later directory's 10-a.conf comes
	 * before an earlier one's 20-b.conf, so numbering orders files across directories. */
	if (r >= 0) {
		if (l.n > 0)
			qsort(l.files, l.n, sizeof(*l.files), conf_file_cmp);
		for (size_t i = 0; i < l.n; i++)
			if (!l.files[i].masked)
				out[n_out++] = TAKE_PTR(l.files[i].path);
			else if (asprintf(&note, "%s: a symlink to /dev/null, masks %s",
					  l.files[i].path, l.files[i].name) >= 0)
				(void)strv_push(&l.notes, &l.n_notes, note);
		*ret_files = out;
		if (ret_notes)
			*ret_notes = TAKE_PTR(l.notes);
	}
	conf_files_done(&l);
	return r;
}
