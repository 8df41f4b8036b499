// SPDX-License-Identifier: MIT
/* uledsd's command line. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "conf-load.h"
#include "config.h"
#include "backend.h"
#include "conf.h"
#include "log.h"
#include "bus.h"
#include "manager.h"
#include "recording.h"
#include "reexec.h"
#include "registry.h"
#include "string-util.h"
#include "transient.h"
#include "trigger-names.h"

static void help(void)
{
	printf("Usage: uledsd [OPTION]...\n"
	       "Create the virtual LEDs configured in *.conf drop-ins (uleds) and forward their\n"
	       "brightness to backends (%s).\n\n"
	       "  -c, --config-dir DIR    read *.conf from DIR (repeatable, first wins; replaces\n"
	       "                          /etc/uledsd.d /run/uledsd.d /usr/local/lib/uledsd.d\n"
	       "                          /usr/lib/uledsd.d)\n"
	       "  -d, --uleds-device PATH the uleds device (default /dev/uleds)\n"
	       "  -n, --check-config      check the configuration, print every error, touch no\n"
	       "                          device; exit 1 if any error\n"
	       "  -l, --log-level LEVEL   debug, info, notice, warning or err (default info)\n"
	       "  -b, --bus BUS           system, session or none (default system)\n"
	       "      --state-dir DIR     where restore LEDs save brightness (default\n"
	       "                          $STATE_DIRECTORY or /var/lib/uledsd)\n"
	       "  -V, --version           print the version\n"
	       "  -h, --help              print this help\n",
	       backend_list_names());
}

/* What --check-config found: each LED with where it comes from, then the drop-ins that
 * others override or mask, so the effect of a drop-in is visible. */
static void print_found(const struct conf *c)
{
	for (size_t i = 0; i < c->n_leds; i++) {
		const struct led_conf *lc = c->leds[i];

		printf("%s:%u: [%s]", lc->file, lc->line, lc->name);
		for (size_t j = 0; j < lc->n_backends; j++)
			printf("%s%s", j ? " " : " backends ", lc->backends[j]->ops->name);
		if (lc->trigger)
			printf("%s trigger %s", lc->n_backends ? "," : "", lc->trigger);
		printf("\n");
	}
	for (size_t i = 0; i < c->n_notes; i++)
		printf("%s\n", c->notes[i]);
}

/* Triggers this kernel has neither registered nor as a module: warnings (a device may bring
 * its trigger later), with the nearest registered name of a typo. */
static size_t check_triggers(const struct conf *c)
{
	_cleanup_free_ char *list = NULL;
	size_t n = 0;

	(void)trigger_list_read("/sys/class/leds", &list);
	for (size_t i = 0; i < c->n_leds; i++) {
		const struct led_conf *lc = c->leds[i];
		_cleanup_free_ char *warning = NULL;

		if (!lc->trigger || trigger_check(list, lc->trigger, &warning) >= 0)
			continue;
		fprintf(stderr, "%s:%u: [%s] warning: %s.\n", lc->file,
			lc->trigger_line ? lc->trigger_line : lc->line, lc->name,
			warning ? warning : "out of memory");
		n++;
	}
	return n;
}

/* What the backends find missing now (a GPIO chip): warnings, as it may appear later. */
static size_t check_backends(const struct conf *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_leds; i++)
		for (size_t j = 0; j < c->leds[i]->n_backends; j++) {
			const struct led_backend *b = c->leds[i]->backends[j];
			_cleanup_free_ char *warning = NULL;

			if (!b->ops->check || b->ops->check(b, "/dev", &warning) >= 0)
				continue;
			fprintf(stderr, "%s:%u: [%s] warning: %s.\n", b->file, b->line,
				c->leds[i]->name, warning ? warning : "out of memory");
			n++;
		}
	return n;
}

static int check_config(char **dirs)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	size_t n_warnings;
	int r;

	r = conf_load((const char *const *)dirs, &c);
	if (r < 0) {
		fprintf(stderr, "Failed to read the configuration: %s\n", strerror(-r));
		return 1;
	}
	print_found(c);
	for (size_t i = 0; i < c->n_errors; i++)
		fprintf(stderr, "%s\n", c->errors[i]);
	n_warnings = check_backends(c) + check_triggers(c);
	printf("%zu file%s in", c->n_files, c->n_files == 1 ? "" : "s");
	for (char **d = dirs; *d; d++)
		printf("%s %s", d == dirs ? "" : ",", *d);
	printf(": %zu LED%s valid, %zu error%s", c->n_leds, c->n_leds == 1 ? "" : "s", c->n_errors,
	       c->n_errors == 1 ? "" : "s");
	if (n_warnings)
		printf(", %zu warning%s", n_warnings, n_warnings == 1 ? "" : "s");
	printf(".\n");
	return c->n_errors > 0;
}

/* A directory given with -c that does not exist is a typo, not an empty configuration (the
 * default directories may be missing: a package need not ship any). */
static int check_dirs_exist(char **dirs)
{
	struct stat st;
	int r = 0;

	for (char **d = dirs; *d; d++) {
		int e = stat(*d, &st) < 0 ? errno : 0;

		if (!e && S_ISDIR(st.st_mode))
			continue;
		fprintf(
		    stderr,
		    "uledsd: configuration directory '%s' (given with -c) %s; check the path.\n",
		    *d,
		    e == ENOENT ? "does not exist"
		    : e		? strerror(e)
				: "is not a directory");
		r = -ENOENT;
	}
	return r;
}

/* What the command line asks for. */
struct args {
	char **dirs;
	const char *device;
	const char *state_dir;
	enum bus_kind bus;
	bool check;
};

static int parse_bus(const char *s, enum bus_kind *ret)
{
	if (streq(s, "none")) {
		*ret = BUS_KIND_NONE;
		return 0;
	}
	if (!HAVE_DBUS) {
		fprintf(stderr, "uledsd: built without D-Bus (meson -Ddbus=disabled); only --bus "
				"none works.\n");
		return -EOPNOTSUPP;
	}
	if (streq(s, "system"))
		*ret = BUS_KIND_SYSTEM;
	else if (streq(s, "session"))
		*ret = BUS_KIND_SESSION;
	else {
		fprintf(stderr, "uledsd: unknown bus '%s'; use system, session or none.\n", s);
		return -EINVAL;
	}
	return 0;
}

static int parse_log_level(const char *s)
{
	int level = log_level_from_string(s);

	if (level < 0) {
		fprintf(
		    stderr,
		    "uledsd: unknown log level '%s'; use debug, info, notice, warning or err.\n",
		    s);
		return level;
	}
	log_set_max_level(level);
	return 0;
}

/* Exit codes as getopt tools have them: 2 for a usage error, 1 for a failure.
 * Returns 1 to go on, 0 to exit successfully (--help), or -errno (exit code 2). */
static int parse_argv(int argc, char **argv, struct args *a)
{
	enum { ARG_STATE_DIR = 0x100 };
	static const struct option options[] = {
	    {"config-dir", required_argument, NULL, 'c'},
	    {"uleds-device", required_argument, NULL, 'd'},
	    {"check-config", no_argument, NULL, 'n'},
	    {"log-level", required_argument, NULL, 'l'},
	    {"bus", required_argument, NULL, 'b'},
	    {"state-dir", required_argument, NULL, ARG_STATE_DIR},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "c:d:nl:b:Vh", options, NULL)) >= 0)
		switch (c) {
		case 'c':
			if (strv_push(&a->dirs, NULL, strdup(optarg)) < 0)
				return log_oom();
			break;
		case 'd':
			a->device = optarg;
			break;
		case 'n':
			a->check = true;
			break;
		case 'l':
			r = parse_log_level(optarg);
			if (r < 0)
				return r;
			break;
		case 'b':
			r = parse_bus(optarg, &a->bus);
			if (r < 0)
				return r;
			break;
		case ARG_STATE_DIR:
			a->state_dir = optarg;
			break;
		case 'V':
			printf("uledsd %s\n", PROJECT_VERSION);
			return 0;
		case 'h':
			help();
			return 0;
		default:
			fprintf(stderr, "Try 'uledsd --help'.\n");
			return -EINVAL;
		}
	if (optind < argc) {
		fprintf(stderr, "uledsd: unexpected argument '%s'; try 'uledsd --help'.\n",
			argv[optind]);
		return -EINVAL;
	}
	return 1;
}

/* The manager has its defaults; an option given replaces one. */
static int replace_string(char **s, const char *value)
{
	if (!value)
		return 0;
	free(*s);
	*s = strdup(value);
	return *s ? 0 : -ENOMEM;
}

/* The daemon around the manager: what it does at the manager's steps (manager.h). */
static void on_started(struct manager *m)
{
	transient_restore(m); /* --keep LEDs of a crashed uledsd, after the configured ones */
	(void)bus_start(m);
}

static void on_reloaded(struct manager *m)
{
	bus_manager_changed(m, "LoadErrors");
}

static void on_reexec(struct manager *m)
{
	(void)manager_reexec(m);
}

/* Who follows the LEDs besides the manager's own (fd store, saved brightness): recordings
 * first, so a record is written before the bus looks at the trigger it may have changed. */
static int wire(struct manager *m)
{
	int r;

	m->hooks = (struct manager_hooks){
	    .started = on_started,
	    .reloaded = on_reloaded,
	    .reexec = on_reexec,
	    .before_exec = bus_stop,
	};
	r = manager_listen(m,
			   &(struct led_listener){.event = recording_on_led_event, .userdata = m});
#if HAVE_DBUS
	if (r >= 0)
		r = manager_listen(
		    m, &(struct led_listener){.event = bus_on_led_event, .userdata = m});
#endif
	return r;
}

/* Before the manager frees the LEDs: nobody is told of them any more. */
static void stop(struct manager *m)
{
	bus_stop(m);
	recording_stop_all(m);
	transient_free_all(m);
}

static int run(struct args *a)
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	int r;

	r = manager_new(&m);
	if (r >= 0)
		r = wire(m);
	if (r < 0)
		return log_error_errno(r, "Failed to set up: %m");
	m->config_dirs = TAKE_PTR(a->dirs);
	m->bus_kind = a->bus;
	if (replace_string(&m->led_ctx.uleds_path, a->device) < 0 ||
	    replace_string(&m->state_dir, a->state_dir) < 0)
		return log_oom();
	reexec_collect(m);    /* a re-execution counts as a reload */
	r = manager_start(m); /* on failure it said why, once */
	if (r >= 0) {
		r = manager_run(m);
		if (r < 0)
			log_error_errno(r, "Exiting: %m");
	}
	stop(m);
	return r;
}

int main(int argc, char **argv)
{
	struct args a = {.bus = HAVE_DBUS ? BUS_KIND_SYSTEM : BUS_KIND_NONE};
	int r;

	/* Anyone may send a message of up to 32 MiB (Record with 50 000 names is ~450 KB):
	 * blocks that large are mapped and unmapped, never kept in the heap. glibc's dynamic
	 * threshold would rise to the largest block freed and keep the next ones. */
	(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	log_open();
	r = parse_argv(argc, argv, &a);
	if (r <= 0) {
		strv_free(a.dirs);
		return r < 0 ? (r == -ENOMEM ? 1 : 2) : 0;
	}
	if (a.dirs && check_dirs_exist(a.dirs) < 0) {
		strv_free(a.dirs);
		return 1;
	}
	if (!a.dirs)
		for (const char *const *d = conf_default_dirs; *d; d++)
			if (strv_push(&a.dirs, NULL, strdup(*d)) < 0)
				return log_oom(), 1;
	if (a.check)
		r = check_config(a.dirs);
	else
		r = run(&a) < 0;
	strv_free(a.dirs);
	return r;
}
