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
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>

#include "conf-load.h"
#include "config.h"
#include "backend.h"
#include "conf.h"
#include "fdstore.h"
#include "led.h"
#include "log.h"
#include "led-index.h"
#include "manager.h"
#include "state.h"
#include "preflight.h"
#include "string-util.h"

static void trigger_retry_arm(struct manager *m);

static void on_led_event(struct led *l _unused_, const struct led_event *ev, void *userdata)
{
	if (ev->type == LED_EVENT_TRIGGER_MISSING)
		trigger_retry_arm(userdata);
}

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
	    .notify = !!getenv("NOTIFY_SOCKET"),
	};
	r = sd_event_new(&m->event);
	if (r < 0)
		return r;
	r = led_context_init(&m->led_ctx, m->event);
	if (r >= 0)
		r = fdstore_new(m->event, &m->fdstore);
	if (r < 0)
		return r;
	/* StateDirectory= may list several, colon-separated: the first is ours. */
	m->state_dir =
	    state && *state ? strndup(state, strcspn(state, ":")) : strdup("/var/lib/uledsd");
	if (!m->state_dir || policy_init(&m->policy) < 0 || conf_new(&m->defined) < 0)
		return -ENOMEM;
	/* What lies below the manager follows the LEDs: the fd store, the saved brightness,
	 * the manager's own trigger retry. The daemon adds the bus and recordings (main.c). */
	r = manager_listen(
	    m, &(struct led_listener){.event = fdstore_on_led_event, .userdata = m->fdstore});
	if (r >= 0)
		r = manager_listen(m, &(struct led_listener){.event = state_on_led_event,
							     .saved_brightness = state_saved_brightness,
							     .userdata = &m->state_dir});
	if (r >= 0)
		r = manager_listen(m, &(struct led_listener){.event = on_led_event, .userdata = m});
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int manager_listen(struct manager *m, const struct led_listener *listener)
{
	return led_context_listen(&m->led_ctx, listener);
}

void manager_remove_led(struct manager *m, size_t i, bool forget)
{
	struct led *l = m->leds[i];

	if (forget)
		fdstore_remove(m->fdstore, l);
	led_free(l);
	memmove(m->leds + i, m->leds + i + 1, (m->n_leds - i - 1) * sizeof(*m->leds));
	m->n_leds--;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	/* On exit the LEDs go with their fds; the fd store forgets them too (an orderly stop). */
	while (m->n_leds > 0)
		manager_remove_led(m, m->n_leds - 1, true);
	free(m->leds);
	led_context_done(&m->led_ctx);
	fdstore_free(m->fdstore);
	sd_event_source_disable_unref(m->trigger_retry);
	strv_free(m->config_dirs);
	strv_free(m->load_errors);
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

/* The errors of one start or reload: LoadErrors keeps them, D-Bus Reload returns them. */
struct load_errors {
	char **errors;
	size_t n;
};

static void load_errors_done(struct load_errors *e)
{
	e->errors = strv_free(e->errors);
	e->n = 0;
}

/* Logs an error of the (re)load and keeps it in e. */
static void report(struct manager *m, struct load_errors *e, const char *msg)
{
	log_error("%s", msg);
	m->n_errors++;
	(void)strv_push(&e->errors, &e->n, strdup(msg));
}

static bool stored_led_matches(struct manager *m, struct led_conf *lc)
{
	char path[PATH_MAX];
	unsigned v;

	snprintf(path, sizeof(path), "%s/%s/max_brightness", m->led_ctx.sysfs_leds, lc->name);
	return read_unsigned_file(path, &v) >= 0 && v == (unsigned)lc->max_brightness;
}

/* systemd drops its copy of a forgotten fd asynchronously: give the kernel a moment to remove
 * the old LED before registering the name again (a recreated LED only, rare). */
static void wait_led_gone(struct manager *m, const char *name)
{
	char path[PATH_MAX];

	if (!m->notify)
		return; /* no fd store: closing our fd removed it */
	snprintf(path, sizeof(path), "%s/%s", m->led_ctx.sysfs_leds, name);
	for (int i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(10000);
}

static int manager_add_led(struct manager *m, struct led_conf *lc, struct load_errors *e)
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
	fd = fdstore_take(m->fdstore, lc->name);
	if (fd >= 0 && !stored_led_matches(m, lc)) {
		/* Configured with another max_brightness while uledsd was down: a new device. */
		log_info("%s: max_brightness changed while uledsd was not running; recreating.",
			 lc->name);
		fdstore_forget(m->fdstore, lc->name, fd);
		fd = safe_close(fd);
		wait_led_gone(m, lc->name);
	}
	if (fd >= 0)
		adopted = strdup(lc->name);
	r = led_new(&m->led_ctx, lc, fd, &l, &err);
	if (r < 0) {
		/* systemd still holds a copy of the fd: without this the LED would stay. */
		if (adopted)
			fdstore_forget(m->fdstore, adopted, -1);
		report(m, e, err ? err : "Failed to create an LED: out of memory");
		return r;
	}
	if (r > 0) /* created; its trigger waits for its module */
		report(m, e, err);
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

static int load_conf(struct manager *m, struct conf **ret, struct load_errors *e)
{
	struct conf *c;
	int r;

	r = conf_load((const char *const *)m->config_dirs, &c);
	if (r < 0)
		return log_error_errno(r, "Failed to read the configuration: %m");
	for (size_t i = 0; i < c->n_errors; i++)
		report(m, e, c->errors[i]);
	if (c->n_files == 0)
		log_no_files(m);
	/* The trust model and the names of this configuration apply from now on. */
	if (policy_copy(&m->policy, &c->policy) < 0)
		log_warning("Out of memory: [%s] of the new configuration is not applied.",
			    POLICY_SECTION);
	conf_defined_clear(m->defined);
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
		if (m->hooks.reexec)
			m->hooks.reexec(m);
		return 0;
	}
	log_info("Received %s, removing LEDs and exiting.", strsignal((int)si->ssi_signo));
	manager_notify(m, "STOPPING=1");
	return sd_event_exit(m->event, 0);
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

static void trigger_retry_arm(struct manager *m)
{
	int enabled = SD_EVENT_OFF;

	if (m->trigger_retry)
		(void)sd_event_source_get_enabled(m->trigger_retry, &enabled);
	if (enabled != SD_EVENT_OFF)
		return; /* a retry is due: it looks at this LED too, at the current pace */
	m->trigger_retry_usec = TRIGGER_RETRY_USEC;
	trigger_retry_schedule(m, TRIGGER_RETRY_USEC);
}

/* The running kernel's release, for the name of its headers package. */
static const char *kernel_release(void)
{
	static struct utsname u;

	return uname(&u) < 0 ? "$(uname -r)" : u.release;
}

int manager_start(struct manager *m)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	_cleanup_(load_errors_done) struct load_errors e = {NULL, 0};
	struct stat st;
	int r;

	preflight_raise_nofile();
	if (stat(m->led_ctx.uleds_path, &st) < 0)
		return log_error_errno(
		    errno,
		    "%s: %m. Load the uleds module: modprobe uleds (Debian's kernels lack "
		    "CONFIG_LEDS_USER: install the package uleds-dkms and the headers of your "
		    "kernel, linux-headers-%s; from a source tree, dkms add and dkms install "
		    "uleds/" PROJECT_VERSION ").",
		    m->led_ctx.uleds_path, kernel_release());
	r = manager_watch_signals(m);
	if (r < 0)
		return r;
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog, ignoring: %m");

	(void)fdstore_collect(m->fdstore, &m->led_ctx);
	m->n_errors = 0;
	r = load_conf(m, &c, &e);
	if (r < 0)
		return r;
	r = preflight_can_run(m->led_ctx.uleds_path, m->led_ctx.sysfs_leds, c, m->fdstore);
	if (r < 0)
		return r;
	preflight_check_nofile(c);
	for (size_t i = 0; i < c->n_leds; i++)
		if (manager_add_led(m, TAKE_PTR(c->leds[i]), &e) == -ENOMEM)
			return log_oom();
	strv_free(m->load_errors);
	m->load_errors = TAKE_PTR(e.errors);
	/* main.c: the --keep LEDs of a crashed uledsd, after the configured ones; then D-Bus,
	 * once the LEDs exist: their objects are in place before the name is taken, so no
	 * InterfacesAdded is sent for them (1000 such messages cost seconds and megabytes). */
	if (m->hooks.started)
		m->hooks.started(m);
	/* Stored fds of LEDs that are no longer configured: let them go. */
	fdstore_release_unused(m->fdstore, c);
	led_context_flush(&m->led_ctx);
	/* Parsing and chip scans leave freed heap behind: give it back once, not per LED, and
	 * after what is left of the configuration is freed too (its names and claims). */
	c = conf_free(c);
	/* Packed at start too: the tree's blocks go, and the first reload finds the LEDs' pages
	 * without them (10 000 GPIO LEDs: 13.4 MiB after start, 13.6 after reloads, against 13.2
	 * and 14.3 MiB when packed at reload only). */
	conf_defined_pack(m->defined);
	malloc_trim(0);
	fdstore_flush(m->fdstore); /* before READY=1: a crash from then on finds every LED kept */
	log_info("Ready: %s.", manager_status(m));
	notify_status(m, "READY=1\n");
	return 0;
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

		if (l->transient)
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

static void report_transient_holds(struct manager *m, struct led_conf *nc, struct load_errors *e)
{
	_cleanup_free_ char *msg = NULL;

	if (asprintf(&msg,
		     "%s:%u: [%s] is held by a transient LED (uledsctl create); it is created by "
		     "the first reload after that LED is removed (uledsctl remove %s).",
		     nc->file, nc->line, nc->name, nc->name) < 0)
		return;
	report(m, e, msg);
}

/* Updates in place, which may free resources (a GPIO line) a new LED wants; then new LEDs. */
static void reload_update_add(struct manager *m, struct conf *c, struct load_errors *e)
{
	/* The LEDs before this pass: an update changes none of them, and each name of the new
	 * configuration is added at most once, so the copy stays right for both loops. */
	_cleanup_free_ struct led **sorted = leds_sorted(m->leds, m->n_leds);
	size_t n_sorted = m->n_leds;

	for (size_t i = 0; i < c->n_leds; i++) {
		struct led_conf *nc = c->leds[i];
		struct led *l = find_led(m->leds, m->n_leds, sorted, n_sorted, nc->name);
		_cleanup_free_ char *err = NULL;

		if (!l)
			continue;
		if (l->transient) {
			report_transient_holds(m, nc, e);
			continue;
		}
		if (led_compare(l, nc) == LED_CHANGE_NONE) {
			log_debug("%s: unchanged.", l->name);
			continue;
		}
		log_info("%s: settings changed, updating in place.", l->name);
		if (led_update(l, TAKE_PTR(c->leds[i]), &err) < 0)
			report(m, e, err ? err : "Failed to update an LED");
	}
	for (size_t i = 0; i < c->n_leds; i++)
		if (c->leds[i] && !find_led(m->leds, m->n_leds, sorted, n_sorted, c->leds[i]->name))
			(void)manager_add_led(m, TAKE_PTR(c->leds[i]), e);
}

int manager_reload(struct manager *m, char ***ret_errors)
{
	_cleanup_(load_errors_done) struct load_errors e = {NULL, 0};
	_cleanup_(conf_freep) struct conf *c = NULL;
	int r;

	log_info("Reloading the configuration.");
	manager_notify(m, "RELOADING=1\nSTATUS=Reloading the configuration.");
	m->reloading = true;
	m->n_errors = 0;
	e.errors = calloc(1, sizeof(char *)); /* an empty LoadErrors, not NULL */
	r = e.errors ? load_conf(m, &c, &e) : -ENOMEM;
	/* Even when nothing could be read: READY=1 must follow RELOADING=1. */
	if (r >= 0) {
		reload_remove(m, c);
		reload_update_add(m, c, &e);
		fdstore_release_unused(m->fdstore,
				       c); /* kept for a broken definition, now removed */
	}
	m->reloading = false;
	m->n_reloads++;
	led_context_flush(&m->led_ctx);
	fdstore_flush(m->fdstore); /* the new LEDs are kept when READY=1 says the reload is done */
	/* The new definitions of the unchanged LEDs go before the heap is trimmed. */
	c = conf_free(c);
	/* The names were made among the new definitions just freed, and held on to their pages
	 * (10 000 LEDs: 6.5 MiB stayed resident after every reload); packed, they do not. */
	conf_defined_pack(m->defined);
	malloc_trim(0);
	log_info("Reloaded: %s.", manager_status(m));
	notify_status(m, "READY=1\n");
	/* LoadErrors keeps them; the caller (D-Bus Reload) gets its own copy. */
	if (ret_errors)
		for (size_t i = 0; i < e.n; i++)
			(void)strv_push(ret_errors, NULL, strdup(e.errors[i]));
	strv_free(m->load_errors);
	m->load_errors = TAKE_PTR(e.errors);
	if (m->hooks.reloaded)
		m->hooks.reloaded(m);
	return r < 0 ? r : 0;
}

int manager_run(struct manager *m)
{
	return sd_event_loop(m->event);
}
