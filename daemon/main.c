// SPDX-License-Identifier: MIT
/* uledsd's command line. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "backend.h"
#include "conf.h"
#include "log.h"
#include "macro.h"
#include "manager.h"

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

static int strv_add(char ***l, const char *s)
{
	size_t n = 0;
	char **nl;

	while (*l && (*l)[n])
		n++;
	nl = realloc(*l, (n + 2) * sizeof(char *));
	if (!nl)
		return -ENOMEM;
	nl[n] = strdup(s);
	nl[n + 1] = NULL;
	*l = nl;
	return nl[n] ? 0 : -ENOMEM;
}

static int check_config(char **dirs)
{
	struct conf *c;
	int r;

	r = conf_load((const char *const *)dirs, &c);
	if (r < 0) {
		fprintf(stderr, "Failed to read the configuration: %s\n", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < c->n_errors; i++)
		fprintf(stderr, "%s\n", c->errors[i]);
	printf("%zu file%s, %zu LED%s valid, %zu error%s.\n", c->n_files, c->n_files == 1 ? "" : "s",
	       c->n_leds, c->n_leds == 1 ? "" : "s", c->n_errors, c->n_errors == 1 ? "" : "s");
	r = c->n_errors > 0;
	conf_free(c);
	return r;
}

int main(int argc, char **argv)
{
	enum { ARG_STATE_DIR = 0x100 };
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "uleds-device", required_argument, NULL, 'd' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "bus", required_argument, NULL, 'b' },
		{ "state-dir", required_argument, NULL, ARG_STATE_DIR },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	_cleanup_strv_free_ char **dirs = NULL;
	const char *device = NULL, *state_dir = NULL;
	enum bus_kind bus = BUS_KIND_SYSTEM;
	bool check = false;
	struct manager *m;
	int c, r;

	log_open();
	while ((c = getopt_long(argc, argv, "c:d:nl:b:Vh", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			if (strv_add(&dirs, optarg) < 0)
				return log_oom(), 1;
			break;
		case 'd':
			device = optarg;
			break;
		case 'n':
			check = true;
			break;
		case 'l':
			r = log_level_from_string(optarg);
			if (r < 0) {
				fprintf(stderr, "uledsd: unknown log level '%s'; use debug, info, notice, warning or err.\n",
					optarg);
				return 2;
			}
			log_set_max_level(r);
			break;
		case 'b':
			if (streq(optarg, "system"))
				bus = BUS_KIND_SYSTEM;
			else if (streq(optarg, "session"))
				bus = BUS_KIND_SESSION;
			else if (streq(optarg, "none"))
				bus = BUS_KIND_NONE;
			else {
				fprintf(stderr, "uledsd: unknown bus '%s'; use system, session or none.\n",
					optarg);
				return 2;
			}
			break;
		case ARG_STATE_DIR:
			state_dir = optarg;
			break;
		case 'V':
			printf("uledsd %s\n", PROJECT_VERSION);
			return 0;
		case 'h':
			help();
			return 0;
		default:
			fprintf(stderr, "Try 'uledsd --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uledsd: unexpected argument '%s'; try 'uledsd --help'.\n",
			argv[optind]);
		return 2;
	}
	if (!dirs)
		for (const char *const *d = conf_default_dirs; *d; d++)
			if (strv_add(&dirs, *d) < 0)
				return log_oom(), 1;
	if (check)
		return check_config(dirs);

	r = manager_new(&m);
	if (r < 0)
		return log_error_errno(r, "Failed to set up: %m"), 1;
	m->config_dirs = TAKE_PTR(dirs);
	m->bus_kind = bus;
	if (device) {
		free(m->uleds_path);
		m->uleds_path = strdup(device);
	}
	if (state_dir) {
		free(m->state_dir);
		m->state_dir = strdup(state_dir);
	}
	if (!m->uleds_path || !m->state_dir)
		return log_oom(), 1;
	r = manager_start(m);
	if (r >= 0)
		r = manager_run(m);
	if (r < 0)
		log_error_errno(r, "Exiting: %m");
	manager_free(m);
	return r < 0 ? 1 : 0;
}
