// SPDX-License-Identifier: MIT
/* The daemon: event loop, signals, the LED set and its reload, systemd notifications. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <search.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "backend.h"
#include "bus.h"
#include "conf.h"
#include "fdstore.h"
#include "led.h"
#include "led-watch.h"
#include "log.h"
#include "manager.h"
#include "record.h"
#include "reexec.h"
#include "string-util.h"
#include "transient.h"

int manager_new(struct manager **ret)
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	const char *state = getenv("STATE_DIRECTORY");
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct manager){
	    .bus_kind = HAVE_DBUS ? BUS_KIND_SYSTEM : BUS_KIND_NONE,
	    .uleds_ext = -1,
	    .notify = !!getenv("NOTIFY_SOCKET"),
	};
	r = sd_event_new(&m->event);
	if (r < 0)
		return r;
	m->uleds_path = strdup("/dev/uleds");
	m->sysfs_leds = strdup("/sys/class/leds");
	m->dev_dir = strdup("/dev");
	/* StateDirectory= may list several, colon-separated: the first is ours. */
	m->state_dir =
	    state && *state ? strndup(state, strcspn(state, ":")) : strdup("/var/lib/uledsd");
	if (!m->uleds_path || !m->sysfs_leds || !m->dev_dir || !m->state_dir ||
	    policy_init(&m->policy) < 0 || conf_new(&m->defined) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

void manager_remove_led(struct manager *m, size_t i, bool forget)
{
	struct led *l = m->leds[i];

	if (forget)
		fdstore_remove(l);
	led_free(l);
	memmove(m->leds + i, m->leds + i + 1, (m->n_leds - i - 1) * sizeof(*m->leds));
	m->n_leds--;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	bus_stop(m);
	record_stop_all(m);
	transient_free_all(m);
	/* On exit the LEDs go with their fds; the fd store forgets them too (an orderly stop). */
	while (m->n_leds > 0)
		manager_remove_led(m, m->n_leds - 1, true);
	free(m->leds);
	led_watch_free(m);
	m->backend_shared = backend_shared_free(m->backend_shared);
	fdstore_release_unused(m, NULL);
	free(m->store_queue);
	sd_event_source_disable_unref(m->store_flush);
	sd_event_source_disable_unref(m->trigger_retry);
	free(m->stored_fds);
	free(m->stored_names);
	strv_free(m->config_dirs);
	strv_free(m->load_errors);
	free(m->uleds_path);
	free(m->sysfs_leds);
	free(m->dev_dir);
	free(m->state_dir);
	policy_done(&m->policy);
	conf_free(m->defined);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

struct led *manager_find_led(struct manager *m, const char *name)
{
	for (size_t i = 0; i < m->n_leds; i++)
		if (streq(m->leds[i]->name, name))
			return m->leds[i];
	return NULL;
}

const char *manager_status(struct manager *m)
{
	static char buf[160];
	size_t waiting = 0;
	int n;

	/* A backend that waits (a gpio.chip that matches no chip) is no configuration error,
	 * but "0 errors" alone hid it: counted apart, details in uledsctl status and the log. */
	for (size_t i = 0; i < m->n_leds; i++)
		for (size_t j = 0; j < m->leds[i]->conf->n_backends; j++)
			waiting += !m->leds[i]->conf->backends[j]->ok;
	n = snprintf(buf, sizeof(buf), "%zu LED%s, %zu error%s", m->n_leds,
		     m->n_leds == 1 ? "" : "s", m->n_errors, m->n_errors == 1 ? "" : "s");
	if (waiting)
		snprintf(buf + n, sizeof(buf) - (size_t)n, ", %zu backend%s not working", waiting,
			 waiting == 1 ? "" : "s");
	return buf;
}

void manager_notify(struct manager *m, const char *state)
{
	if (m->notify)
		(void)sd_notify(false, state);
}

/* The last STATUS= sent, so a change found later (a chip appeared) is sent once. */
static char status_sent[256];

static void status_line(struct manager *m, char *buf, size_t size)
{
	/* The reload count tells uledsd-reload (ExecReload= without D-Bus) that its SIGHUP is
	 * done. */
	if (m->n_reloads > 0)
		snprintf(buf, size, "STATUS=%s (reload %u)", manager_status(m), m->n_reloads);
	else
		snprintf(buf, size, "STATUS=%s", manager_status(m));
}

static void notify_status(struct manager *m, const char *prefix)
{
	char buf[sizeof(status_sent) + 16];

	status_line(m, status_sent, sizeof(status_sent));
	snprintf(buf, sizeof(buf), "%s%s", prefix, status_sent);
	manager_notify(m, buf);
}

/* Backends attach and triggers appear between reloads: STATUS= follows. */
static void notify_status_changed(struct manager *m)
{
	char buf[sizeof(status_sent)];

	status_line(m, buf, sizeof(buf));
	if (!streq(buf, status_sent))
		notify_status(m, "");
}

/* Logs an error of the (re)load and keeps it for the caller (D-Bus Reload returns them). */
static void report(struct manager *m, char ***errors, size_t *n_errors, const char *msg)
{
	log_error("%s", msg);
	m->n_errors++;
	if (errors)
		(void)strv_push(errors, n_errors, strdup(msg));
}

static bool stored_led_matches(struct manager *m, struct led_conf *lc)
{
	char path[PATH_MAX];
	unsigned v;

	snprintf(path, sizeof(path), "%s/%s/max_brightness", m->sysfs_leds, lc->name);
	return read_unsigned_file(path, &v) >= 0 && v == (unsigned)lc->max_brightness;
}

/* systemd drops its copy of a forgotten fd asynchronously: give the kernel a moment to remove
 * the old LED before registering the name again (a recreated LED only, rare). */
static void wait_led_gone(struct manager *m, const char *name)
{
	char path[PATH_MAX];

	if (!m->notify)
		return; /* no fd store: closing our fd removed it */
	snprintf(path, sizeof(path), "%s/%s", m->sysfs_leds, name);
	for (int i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(10000);
}

static int manager_add_led(struct manager *m, struct led_conf *lc, char ***errors, size_t *n_errors)
{
	_cleanup_free_ char *err = NULL, *adopted = NULL;
	struct led **nl, *l;
	int fd, r;

	nl = realloc(m->leds, (m->n_leds + 1) * sizeof(*nl));
	if (!nl) {
		led_conf_free(lc);
		return -ENOMEM;
	}
	m->leds = nl;
	fd = fdstore_take(m, lc->name);
	if (fd >= 0 && !stored_led_matches(m, lc)) {
		/* Configured with another max_brightness while uledsd was down: a new device. */
		log_info("%s: max_brightness changed while uledsd was not running; recreating.",
			 lc->name);
		fdstore_forget(m, lc->name, fd);
		fd = safe_close(fd);
		wait_led_gone(m, lc->name);
	}
	if (fd >= 0)
		adopted = strdup(lc->name);
	r = led_new(m, lc, fd, &l, &err);
	if (r < 0) {
		/* systemd still holds a copy of the fd: without this the LED would stay. */
		if (adopted)
			fdstore_forget(m, adopted, -1);
		report(m, errors, n_errors, err ? err : "Failed to create an LED: out of memory");
		return r;
	}
	if (r > 0) /* created; its trigger waits for its module */
		report(m, errors, n_errors, err);
	/* Adoption matters after a crash; plain creation of 1000 LEDs would flood the journal. */
	log_full(fd >= 0 ? LOG_INFO : LOG_DEBUG, "%s: %s (max_brightness %u, brightness %u%s%s).",
		 l->name, fd >= 0 ? "adopted from the fd store" : "created", l->max_brightness,
		 l->brightness, l->conf->trigger ? ", trigger " : "",
		 l->conf->trigger ? l->conf->trigger : "");
	m->leds[m->n_leds++] = l;
	return 0;
}

/* Names the directories searched: a typo in -c would otherwise look like an empty setup. */
static void log_no_files(struct manager *m)
{
	char dirs[1024] = "";
	size_t n = 0;

	for (char **d = m->config_dirs; d && *d && n < sizeof(dirs); d++)
		n += (size_t)snprintf(dirs + n, sizeof(dirs) - n, "%s%s", n ? ", " : "", *d);
	log_warning("No *.conf files in %s: no LEDs. Put LED definitions there (see man "
		    "uledsd.conf) and reload.",
		    dirs);
}

static int load_conf(struct manager *m, struct conf **ret, char ***errors, size_t *n_errors)
{
	struct conf *c;
	int r;

	r = conf_load((const char *const *)m->config_dirs, &c);
	if (r < 0)
		return log_error_errno(r, "Failed to read the configuration: %m");
	for (size_t i = 0; i < c->n_errors; i++)
		report(m, errors, n_errors, c->errors[i]);
	if (c->n_files == 0)
		log_no_files(m);
	/* The trust model and the names of this configuration apply from now on. */
	if (policy_copy(&m->policy, &c->policy) < 0)
		log_warning("Out of memory: [%s] of the new configuration is not applied.",
			    POLICY_SECTION);
	tdestroy(m->defined->defined, free);
	m->defined->defined = TAKE_PTR(c->defined);
	*ret = c;
	return 0;
}

static int on_signal(sd_event_source *s _unused_, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	if (si->ssi_signo == SIGHUP) {
		(void)manager_reload(m, NULL);
		return 0;
	}
	if (si->ssi_signo == SIGUSR2) {
		(void)manager_reexec(m);
		return 0;
	}
	log_info("Received %s, removing LEDs and exiting.", strsignal((int)si->ssi_signo));
	manager_notify(m, "STOPPING=1");
	return sd_event_exit(m->event, 0);
}

static void raise_nofile(void)
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
static void check_nofile(const struct conf *c)
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

static int manager_watch_signals(struct manager *m)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR2};
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
		sigaddset(&mask, sigs[i]);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++) {
		sd_event_source *s;

		r = sd_event_add_signal(m->event, &s, sigs[i], on_signal, m);
		if (r < 0)
			return log_error_errno(r, "Failed to watch signal %d: %m", sigs[i]);
		(void)sd_event_source_set_description(s, "signal");
		(void)sd_event_source_set_floating(s, true);
		sd_event_source_unref(s);
	}
	return 0;
}

/* The PID of another process named uledsd, 0 when there is none. */
static pid_t other_uledsd(void)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[64], comm[32] = "";
		pid_t pid = (pid_t)atoi(de->d_name);
		FILE *f;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (streq(comm, "uledsd\n"))
			return pid;
	}
	return 0;
}

/* Every configured LED exists already and none is ours to adopt (fd store). */
static bool all_leds_taken(struct manager *m, const struct conf *c)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < c->n_leds; i++) {
		snprintf(path, sizeof(path), "%s/%s", m->sysfs_leds, c->leds[i]->name);
		if (access(path, F_OK) < 0)
			return false;
		for (size_t j = 0; j < m->n_stored; j++)
			if (m->stored_names[j] && streq(m->stored_names[j], c->leds[i]->name))
				return false;
	}
	return c->n_leds > 0;
}

/* When no LED could work, one message with the cause and the fix beats a daemon that runs
 * and does nothing. Some LEDs failing is not this: the others work. */
static int manager_check_can_run(struct manager *m, const struct conf *c)
{
	_cleanup_close_ int fd = open(m->uleds_path, O_RDWR | O_CLOEXEC);
	pid_t other;

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		return log_error_errno(errno,
				       "Cannot open %s: %m. uledsd must run as root: start it with "
				       "'systemctl start uledsd' (or as root).",
				       m->uleds_path);
	if (!all_leds_taken(m, c))
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
			       c->n_leds, m->sysfs_leds);
}

#define TRIGGER_RETRY_USEC 2000000ULL

/* Trigger modules load at any time (modprobe, a device appearing): LEDs whose trigger was not
 * available get it without a reload, looked at every 2 s while there are any (idle, uledsd
 * wakes for nothing). */
/* A trigger module may come any time: look soon, then less and less often (a missing module
 * that never comes costs a sysfs read per LED a minute). */
#define TRIGGER_RETRY_MAX_USEC (60 * 1000000ULL)

static void trigger_retry_schedule(struct manager *m, uint64_t usec);

static int on_trigger_retry(sd_event_source *s _unused_, uint64_t usec _unused_, void *userdata)
{
	struct manager *m = userdata;
	bool pending = false, attached = false;

	for (size_t i = 0; i < m->n_leds; i++) {
		struct led *l = m->leds[i];

		if (led_retry_trigger(l) > 0) {
			attached = true;
			if (m->n_errors > 0)
				m->n_errors--;
		}
		pending = pending || (l->apply_failed && l->conf->trigger);
	}
	notify_status_changed(m);
	/* Something came: others of its kind may follow soon. */
	if (attached || m->trigger_retry_usec < TRIGGER_RETRY_USEC)
		m->trigger_retry_usec = TRIGGER_RETRY_USEC;
	else if (m->trigger_retry_usec < TRIGGER_RETRY_MAX_USEC / 2)
		m->trigger_retry_usec *= 2;
	else
		m->trigger_retry_usec = TRIGGER_RETRY_MAX_USEC;
	if (pending)
		trigger_retry_schedule(m, m->trigger_retry_usec);
	return 0;
}

static void trigger_retry_schedule(struct manager *m, uint64_t usec)
{
	int r;

	if (m->trigger_retry) {
		r = sd_event_source_set_time_relative(m->trigger_retry, usec);
		if (r >= 0)
			r = sd_event_source_set_enabled(m->trigger_retry, SD_EVENT_ONESHOT);
	} else {
		r = sd_event_add_time_relative(m->event, &m->trigger_retry, CLOCK_MONOTONIC, usec,
					       0, on_trigger_retry, m);
		if (r >= 0)
			(void)sd_event_source_set_description(m->trigger_retry, "trigger-retry");
	}
	if (r < 0)
		log_warning_errno(r, "Failed to schedule a retry of unavailable triggers: %m");
}

void manager_trigger_retry_arm(struct manager *m)
{
	int enabled = SD_EVENT_OFF;

	if (m->trigger_retry)
		(void)sd_event_source_get_enabled(m->trigger_retry, &enabled);
	if (enabled != SD_EVENT_OFF)
		return; /* a retry is due: it looks at this LED too, at the current pace */
	m->trigger_retry_usec = TRIGGER_RETRY_USEC;
	trigger_retry_schedule(m, TRIGGER_RETRY_USEC);
}

int manager_start(struct manager *m)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	size_t n_errors = 0;
	struct stat st;
	int r;

	raise_nofile();
	if (stat(m->uleds_path, &st) < 0)
		return log_error_errno(
		    errno,
		    "%s: %m. Load the uleds module: modprobe uleds (Debian's kernels lack "
		    "CONFIG_LEDS_USER; the module ships in uledsd's kmod/, installable with DKMS: "
		    "dkms install uleds/VERSION).",
		    m->uleds_path);
	r = manager_watch_signals(m);
	if (r < 0)
		return r;
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog, ignoring: %m");

	reexec_collect(m);
	(void)fdstore_collect(m);
	m->n_errors = 0;
	r = load_conf(m, &c, &m->load_errors, &n_errors);
	if (r < 0)
		return r;
	r = manager_check_can_run(m, c);
	if (r < 0)
		return r;
	check_nofile(c);
	for (size_t i = 0; i < c->n_leds; i++)
		if (manager_add_led(m, TAKE_PTR(c->leds[i]), &m->load_errors, &n_errors) == -ENOMEM)
			return log_oom();
	transient_restore(m); /* --keep LEDs of a crashed uledsd, after the configured ones */
	/* D-Bus after the LEDs: their objects are in place before the name is taken, so no
	 * InterfacesAdded is sent for them (1000 such messages cost seconds and megabytes). */
	(void)bus_start(m);
	/* Stored fds of LEDs that are no longer configured: let them go. */
	fdstore_release_unused(m, c);
	/* Parsing and chip scans leave freed heap behind: give it back once, not per LED. */
	malloc_trim(0);
	fdstore_flush(m); /* before READY=1: a crash from then on finds every LED kept */
	log_info("Ready: %s.", manager_status(m));
	notify_status(m, "READY=1\n");
	return 0;
}

/* The errors of one reload, returned by D-Bus Reload. */
struct reload_errors {
	char **errors;
	size_t n;
};

/* A reload looks each LED up in the other list: sorted copies and bsearch, not n² strcmp
 * (10 000 LEDs: a reload that changed one LED took 49 s under emulation, bench/README.md). */
static int cmp_conf(const void *a, const void *b)
{
	return strcmp((*(struct led_conf *const *)a)->name, (*(struct led_conf *const *)b)->name);
}

static int cmp_name_conf(const void *key, const void *elem)
{
	return strcmp(key, (*(struct led_conf *const *)elem)->name);
}

static int cmp_led(const void *a, const void *b)
{
	return strcmp((*(struct led *const *)a)->name, (*(struct led *const *)b)->name);
}

static int cmp_name_led(const void *key, const void *elem)
{
	return strcmp(key, (*(struct led *const *)elem)->name);
}

/* Sorted copies (NULL when out of memory: the lookups below fall back to the lists). */
static struct led_conf **conf_sorted(const struct conf *c)
{
	struct led_conf **v = c->n_leds ? malloc(c->n_leds * sizeof(*v)) : NULL;

	if (v) {
		memcpy(v, c->leds, c->n_leds * sizeof(*v));
		qsort(v, c->n_leds, sizeof(*v), cmp_conf);
	}
	return v;
}

static struct led **leds_sorted(const struct manager *m)
{
	struct led **v = m->n_leds ? malloc(m->n_leds * sizeof(*v)) : NULL;

	if (v) {
		memcpy(v, m->leds, m->n_leds * sizeof(*v));
		qsort(v, m->n_leds, sizeof(*v), cmp_led);
	}
	return v;
}

static struct led_conf *find_conf(const struct conf *c, struct led_conf **sorted,
				  const char *name)
{
	struct led_conf **f;

	if (!sorted)
		return conf_find(c, name);
	f = bsearch(name, sorted, c->n_leds, sizeof(*sorted), cmp_name_conf);
	return f ? *f : NULL;
}

static struct led *find_led(struct manager *m, struct led **sorted, size_t n, const char *name)
{
	struct led **f;

	if (!sorted)
		return manager_find_led(m, name);
	f = bsearch(name, sorted, n, sizeof(*sorted), cmp_name_led);
	return f ? *f : NULL;
}

/* Removed and recreated LEDs go first: their names and resources become free. */
static void reload_remove(struct manager *m, struct conf *c)
{
	_cleanup_strv_free_ char **recreated = NULL;
	_cleanup_free_ struct led_conf **sorted = conf_sorted(c);
	size_t n_recreated = 0;

	for (size_t i = m->n_leds; i-- > 0;) {
		struct led *l = m->leds[i];
		struct led_conf *nc = find_conf(c, sorted, l->name);

		if (transient_is(m, l))
			continue; /* not from the configuration: reload leaves it alone */
		if (nc && led_compare(l, nc) != LED_CHANGE_RECREATE)
			continue;
		if (!nc && conf_is_failed(c, l->name)) {
			log_warning("%s: the new definition has errors; keeping the old one.",
				    l->name);
			continue;
		}
		log_info("%s: %s.", l->name, nc ? "max_brightness changed, recreating" : "removed");
		if (nc)
			(void)strv_push(&recreated, &n_recreated, strdup(l->name));
		manager_remove_led(m, i, true);
	}
	/* Under systemd the fd store's copy keeps a removed LED until systemd has read our
	 * FDSTOREREMOVE=1: registering its name again before that would fail with EEXIST. */
	for (size_t i = 0; i < n_recreated; i++)
		wait_led_gone(m, recreated[i]);
}

static void report_transient_holds(struct manager *m, struct led_conf *nc, struct reload_errors *e)
{
	_cleanup_free_ char *msg = NULL;

	if (asprintf(&msg,
		     "%s:%u: [%s] is held by a transient LED (uledsctl create); it is created by "
		     "the first reload after that LED is removed (uledsctl remove %s).",
		     nc->file, nc->line, nc->name, nc->name) < 0)
		return;
	report(m, &e->errors, &e->n, msg);
}

/* Updates in place, which may free resources (a GPIO line) a new LED wants; then new LEDs. */
static void reload_update_add(struct manager *m, struct conf *c, struct reload_errors *e)
{
	/* The LEDs before this pass: an update changes none of them, and each name of the new
	 * configuration is added at most once, so the copy stays right for both loops. */
	_cleanup_free_ struct led **sorted = leds_sorted(m);
	size_t n_sorted = m->n_leds;

	for (size_t i = 0; i < c->n_leds; i++) {
		struct led_conf *nc = c->leds[i];
		struct led *l = find_led(m, sorted, n_sorted, nc->name);
		_cleanup_free_ char *err = NULL;

		if (!l)
			continue;
		if (transient_is(m, l)) {
			report_transient_holds(m, nc, e);
			continue;
		}
		if (led_compare(l, nc) == LED_CHANGE_NONE) {
			log_debug("%s: unchanged.", l->name);
			continue;
		}
		log_info("%s: settings changed, updating in place.", l->name);
		if (led_update(l, TAKE_PTR(c->leds[i]), &err) < 0)
			report(m, &e->errors, &e->n, err ? err : "Failed to update an LED");
	}
	for (size_t i = 0; i < c->n_leds; i++)
		if (c->leds[i] && !find_led(m, sorted, n_sorted, c->leds[i]->name))
			(void)manager_add_led(m, TAKE_PTR(c->leds[i]), &e->errors, &e->n);
}

int manager_reload(struct manager *m, char ***ret_errors)
{
	struct reload_errors e = {NULL, 0};
	_cleanup_(conf_freep) struct conf *c = NULL;
	int r;

	log_info("Reloading the configuration.");
	manager_notify(m, "RELOADING=1\nSTATUS=Reloading the configuration.");
	m->reloading = true;
	m->n_errors = 0;
	e.errors = calloc(1, sizeof(char *));
	r = e.errors ? load_conf(m, &c, &e.errors, &e.n) : -ENOMEM;
	/* Even when nothing could be read: READY=1 must follow RELOADING=1. */
	if (r >= 0) {
		reload_remove(m, c);
		reload_update_add(m, c, &e);
		fdstore_release_unused(m, c); /* kept for a broken definition, now removed */
	}
	m->reloading = false;
	m->n_reloads++;
	fdstore_flush(m); /* the new LEDs are kept when READY=1 says the reload is done */
	malloc_trim(0);
	log_info("Reloaded: %s.", manager_status(m));
	notify_status(m, "READY=1\n");
	/* LoadErrors keeps them; the caller (D-Bus Reload) gets its own copy. */
	if (ret_errors)
		for (size_t i = 0; i < e.n; i++)
			(void)strv_push(ret_errors, NULL, strdup(e.errors[i]));
	strv_free(m->load_errors);
	m->load_errors = TAKE_PTR(e.errors);
	bus_manager_changed(m, "LoadErrors");
	return r < 0 ? r : 0;
}

int manager_run(struct manager *m)
{
	return sd_event_loop(m->event);
}
