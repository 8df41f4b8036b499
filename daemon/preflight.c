// SPDX-License-Identifier: MIT
/* Before the LEDs are made: the fd limit, and whether any LED can work at all (root, a
 * second uledsd, LEDs someone else registered): one message with the cause and the fix. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "conf.h"
#include "fdstore.h"
#include "log.h"
#include "macro.h"
#include "preflight.h"
#include "string-util.h"

void preflight_raise_nofile(void)
{
	struct rlimit rl;

	/* One fd per LED plus GPIO requests: 1000 LEDs do not fit in the default 1024. The soft
	 * limit only matters to select(), which uledsd does not use. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_debug_errno(errno, "Failed to raise RLIMIT_NOFILE: %m");
	}
}

/* Said before the LEDs are made, not as a "Too many open files" on the first LED that fails. */
void preflight_check_nofile(const struct conf *c)
{
	unsigned long long need = 64; /* the bus, signals, inotify, chips, the fd store's copy */
	struct rlimit rl;

	for (size_t i = 0; i < c->n_leds; i++)
		need += 1 + c->leds[i]->n_backends; /* the uleds fd, a GPIO line request */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    need <= rl.rlim_cur)
		return;
	log_warning("%zu LEDs need up to %llu file descriptors, but the limit is %llu even "
		    "after raising it to the hard limit; the LEDs beyond it fail with 'Too many "
		    "open files'. Raise LimitNOFILE= (systemctl edit uledsd) or the hard limit "
		    "(ulimit -Hn) to at least %llu.",
		    c->n_leds, need, (unsigned long long)rl.rlim_cur, need);
}

/* The PID of another process named uledsd, 0 when there is none. */
static pid_t other_uledsd(void)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[64], comm[32] = "";
		pid_t pid = (pid_t)atoi(de->d_name);
		_cleanup_(fclosep) FILE *f = NULL;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		if (streq(comm, "uledsd\n"))
			return pid;
	}
	return 0;
}

/* Every configured LED exists already and none is ours to adopt (fd store). */
static bool all_leds_taken(const char *sysfs_leds, const struct conf *c, const struct fdstore *fs)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < c->n_leds; i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_leds, c->leds[i]->name);
		if (access(path, F_OK) < 0 || fdstore_stored(fs, c->leds[i]->name))
			return false;
	}
	return c->n_leds > 0;
}

/* When no LED could work, one message with the cause and the fix beats a daemon that runs
 * and does nothing. Some LEDs failing is not this: the others work. */
int preflight_can_run(const char *uleds_path, const char *sysfs_leds, const struct conf *c,
		      const struct fdstore *fs)
{
	_cleanup_close_ int fd = open(uleds_path, O_RDWR | O_CLOEXEC);
	pid_t other;

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		return log_error_errno(errno,
				       "Cannot open %s: %m. uledsd must run as root: start it with "
				       "'systemctl start uledsd' (or as root).",
				       uleds_path);
	if (!all_leds_taken(sysfs_leds, c, fs))
		return 0;
	other = other_uledsd();
	if (other > 0)
		return log_error_errno(
		    EEXIST,
		    "All %zu configured LEDs exist already: another uledsd (PID %d) "
		    "runs them. Stop it first (systemctl stop uledsd, or kill %d).",
		    c->n_leds, (int)other, (int)other);
	return log_error_errno(EEXIST,
			       "All %zu configured LEDs exist already in %s: another program "
			       "registered them. Remove them or give uledsd's LEDs other names.",
			       c->n_leds, sysfs_leds);
}
