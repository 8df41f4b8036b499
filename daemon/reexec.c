// SPDX-License-Identifier: MIT
/* Re-executing uledsd in place (SIGUSR2, D-Bus Reexecute, a package upgrade): the new binary
 * adopts every LED through LISTEN_FDS, as after a crash restart from systemd's fd store. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "fdstore.h"
#include "led-name.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "reexec.h"
#include "state.h"
#include "string-util.h"

/* The reload count goes through the exec: uledsd-reload waits for it to grow. */
#define REEXEC_ENV "ULEDSD_REEXEC_RELOADS"
/* uledsd's command line is short: -c DIR a few times at most. */
#define ARG_MAX_READ 65536

/* The file we run from. After a package upgrade /proc/self/exe names the replaced file,
 * "/usr/sbin/uledsd (deleted)": the new binary is at that path. */
static int exe_path(char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	static const char deleted[] = " (deleted)";
	size_t len;

	if (n < 0)
		return -errno;
	buf[n] = 0;
	len = (size_t)n;
	if (len > strlen(deleted) && streq(buf + len - strlen(deleted), deleted))
		buf[len - strlen(deleted)] = 0;
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

/* Our own command line, NUL-separated in /proc/self/cmdline. */
static int read_argv(char ***ret)
{
	_cleanup_free_ char *buf = NULL;
	char **argv = NULL;
	size_t size = 0, n = 0;
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/cmdline", "re");
	int c;

	if (!f)
		return -errno;
	buf = malloc(ARG_MAX_READ);
	if (!buf)
		return -ENOMEM;
	while (size < ARG_MAX_READ - 1 && (c = fgetc(f)) != EOF)
		buf[size++] = (char)c;
	buf[size] = 0;
	for (size_t i = 0; i < size; i += strlen(buf + i) + 1)
		if (strv_push(&argv, &n, strdup(buf + i)) < 0) {
			strv_free(argv);
			return -ENOMEM;
		}
	if (n == 0)
		return -EINVAL;
	*ret = argv;
	return 0;
}

/* Every LED fd with its name: the uleds group (which holds its members: their own fds stay
 * here), the LEDs outside one, and the fd store's LEDs kept for broken definitions. */
static int collect_fds(struct manager *m, int **ret_fds, char **ret_names, size_t *ret_n)
{
	size_t n = 0, len = 0, n_kept = fdstore_n_kept(m->fdstore);
	int *fds = calloc(m->n_leds + n_kept + 1, sizeof(int));
	int group = led_watch_group_fd(m->led_ctx.watch);
	char *names = NULL;

	if (!fds)
		return -ENOMEM;
	if (group >= 0) {
		names = strdup(FDSTORE_GROUP_NAME);
		if (!names) {
			free(fds);
			return -ENOMEM;
		}
		len = strlen(names);
		fds[n++] = group;
	}
	for (size_t i = 0; i < m->n_leds + n_kept; i++) {
		const char *name = NULL;
		int fd = -1;
		_cleanup_free_ char *esc = NULL;
		char *nn;

		if (i < m->n_leds) {
			if (m->leds[i]->watch.group_id)
				continue; /* the group carries it */
			name = m->leds[i]->name;
			fd = m->leds[i]->fd;
		} else
			fdstore_kept(m->fdstore, i - m->n_leds, &name, &fd);
		if (!name || fd < 0)
			continue;
		if (led_name_escape(name, &esc) < 0 ||
		    !(nn = realloc(names, len + strlen(esc) + 2))) {
			free(fds);
			free(names);
			return -ENOMEM;
		}
		names = nn;
		len += (size_t)sprintf(names + len, "%s%s", n ? ":" : "", esc);
		fds[n++] = fd;
	}
	*ret_fds = fds;
	*ret_names = names ? names : strdup("");
	*ret_n = n;
	return *ret_names ? 0 : -ENOMEM;
}

/* The LEDs handed over: the daemon's, and the fd store's kept for broken definitions. */
static size_t count_leds(struct manager *m)
{
	size_t n = m->n_leds;

	for (size_t i = 0; i < fdstore_n_kept(m->fdstore); i++) {
		const char *name;
		int fd;

		fdstore_kept(m->fdstore, i, &name, &fd);
		n += name && fd >= 0;
	}
	return n;
}

/* Moves fds[i] to 3 + i, inheritable; everything else keeps O_CLOEXEC and goes with the exec. */
static int place_fds(int *fds, size_t n)
{
	int high = SD_LISTEN_FDS_START + (int)n;

	/* First above the target range, so that no dup2() overwrites an fd still to be moved. */
	for (size_t i = 0; i < n; i++) {
		fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, high);
		if (fds[i] < 0)
			return -errno;
	}
	for (size_t i = 0; i < n; i++)
		if (dup2(fds[i], SD_LISTEN_FDS_START + (int)i) < 0)
			return -errno;
	return 0;
}

static int reexec_now(struct manager *m)
{
	_cleanup_strv_free_ char **argv = NULL;
	_cleanup_free_ char *exe = NULL, *names = NULL;
	_cleanup_free_ int *fds = NULL;
	char num[32];
	size_t n, n_leds;
	int r;

	r = exe_path(&exe);
	if (r >= 0)
		r = read_argv(&argv);
	if (r >= 0 && access(exe, X_OK) < 0)
		r = -errno;
	if (r < 0)
		return log_error_errno(r, "Cannot re-execute %s: %m; running on.",
				       exe ? exe : "uledsd");
	fdstore_flush(
	    m->fdstore); /* LEDs made this iteration: the new process stores only new ones */
	r = collect_fds(m, &fds, &names, &n);
	if (r < 0)
		return log_error_errno(r, "Cannot re-execute: %m; running on.");

	n_leds = count_leds(m);
	log_info("Re-executing %s with %zu LED%s%s.", exe, n_leds, n_leds == 1 ? "" : "s",
		 led_watch_group_fd(m->led_ctx.watch) >= 0 ? " in a uleds group" : "");
	manager_notify(m, "RELOADING=1\nSTATUS=Re-executing.");
	/* From here on there is no way back: the new process adopts the LEDs. Save what would
	 * be lost (restore LEDs' pending brightness), and leave the bus with our replies sent. */
	for (size_t i = 0; i < m->n_leds; i++)
		led_state_free(m->leds[i]);
	if (m->hooks.before_exec)
		m->hooks.before_exec(m);
	r = place_fds(fds, n);
	if (r >= 0) {
		snprintf(num, sizeof(num), "%d", (int)getpid());
		setenv("LISTEN_PID", num, 1);
		snprintf(num, sizeof(num), "%zu", n);
		setenv("LISTEN_FDS", num, 1);
		setenv("LISTEN_FDNAMES", names, 1);
		snprintf(num, sizeof(num), "%u", m->n_reloads);
		setenv(REEXEC_ENV, num, 1);
		execv(exe, argv);
		r = -errno;
	}
	/* The LEDs' fds may be gone: exit, and let systemd's Restart=on-failure start uledsd
	 * again, which adopts them from the fd store. */
	log_error_errno(r, "Failed to re-execute %s: %m. Exiting.", exe);
	exit(EXIT_FAILURE);
}

static int on_reexec(sd_event_source *s, void *userdata)
{
	sd_event_source_disable_unref(s);
	(void)reexec_now(userdata);
	return 0;
}

int manager_reexec(struct manager *m)
{
	sd_event_source *s;
	int r;

	/* Out of the caller (a D-Bus method handler must return and its reply go out first). */
	r = sd_event_add_defer(m->event, &s, on_reexec, m);
	if (r < 0)
		return log_error_errno(r, "Cannot re-execute: %m; running on.");
	(void)sd_event_source_set_description(s, "reexec");
	return 0;
}

void reexec_collect(struct manager *m)
{
	const char *e = getenv(REEXEC_ENV);

	if (!e)
		return;
	/* A re-execution counts as a reload: STATUS= tells uledsd-reload it is done. */
	m->n_reloads = (unsigned)strtoul(e, NULL, 10) + 1;
	unsetenv(REEXEC_ENV);
	log_info("Re-executed: adopting the LEDs of the previous binary.");
}
