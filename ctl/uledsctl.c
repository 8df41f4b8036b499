// SPDX-License-Identifier: MIT
/* uledsctl: the command line of uledsd over io.uledsd1 (options, commands, their help). */
#include <errno.h>
#include <getopt.h>
#include <unistd.h>

#include "ctl.h"

struct command {
	const char *name;
	size_t min_args, max_args; /* SIZE_MAX: any number */
	bool json, pager;
	int (*run)(struct ctl *c, char **args, size_t n);
	const char *usage;
	const char *help;
	/* the arguments, checked before the bus is opened (NULL: nothing to check) */
	int (*check)(struct ctl *c, char **args, size_t n);
};

#define ANY SIZE_MAX

enum {
	ARG_VERSION = 0x100,
	ARG_JSON,
	ARG_NO_PAGER,
	ARG_NO_LEGEND,
	ARG_BUS,
	ARG_ADDRESS,
	ARG_MAX,
	ARG_TRIGGER,
	ARG_BACKEND,
	ARG_KEEP,
	ARG_DURATION, /* record's, in the order of ctl.record_opts */
	ARG_COUNT,
	ARG_FORMAT,
	ARG_SVG,
	ARG_VALUE,
};

static const struct command commands[] = {
    {"list", 0, 0, true, true, cmd_list, "list [--json] [--no-pager]",
     "One line an LED: name, brightness/max, trigger, backends (a failing one with\n"
     "its state). With --json, an array of objects with name, path, brightness,\n"
     "max_brightness, trigger, backends (name, ok, state) and transient.\n", NULL},
    {"status", 0, ANY, true, true, cmd_status, "status [NAME...] [--json] [--no-pager]",
     "uledsd's version, its LED count and the errors of its last (re)load, then the\n"
     "named LEDs (all without names) in detail.\n", NULL},
    {"show", 0, ANY, false, false, cmd_show, "show [NAME...] [-p PROPERTY[,...]] [--value]",
     "The D-Bus properties of the named LEDs (of uledsd itself without a NAME), one\n"
     "PROPERTY=VALUE a line, as 'systemctl show' prints a unit's: Brightness=255.\n"
     "-p picks properties (-p Brightness,Trigger, or -p again), printed in that order;\n"
     "--value prints the values alone (for scripts). Numbers are decimal, booleans\n"
     "yes/no, a list's items are separated by spaces and a record's fields by ':'\n"
     "(Color=red:255 green:0). uledsd-dbus(7) describes every property.\n", NULL},
    {"get", 1, 1, false, false, cmd_get, "get NAME",
     "Prints the brightness of LED NAME, a number alone (for scripts).\n", NULL},
    {"set", 2, 2, false, false, cmd_set, "set NAME VALUE",
     "Sets the brightness of LED NAME, or of every LED a glob matches ('board:*').\n"
     "VALUE is a number from 0 to its max_brightness, on (max_brightness), off (0), a\n"
     "percentage such as 50%, toggle (off when lit, else on), or a step from the\n"
     "current brightness: +10, -1, +10%, -25% (kept within 0 and max_brightness; the\n"
     "new value is printed, -q not). Like a write to its sysfs brightness file, 0 also\n"
     "stops a running trigger. Needs root, the group\n"
     "uledsd or polkit's consent (uledsctl(1)).\n", NULL},
    {"color", 1, 9, false, false, cmd_color, "color NAME [VALUE...]",
     "Without VALUEs: the colour channels of multicolour LED NAME and their\n"
     "intensities, \"red 255\" a line. With one VALUE per channel, in that order: sets\n"
     "the intensities (multi_intensity in sysfs), each a number from 0 to its\n"
     "max_brightness, on, off or a percentage. The light of a channel is brightness x\n"
     "intensity / max_brightness: set the brightness too. Needs root, the group uledsd\n"
     "or polkit's consent.\n", NULL},
    {"trigger", 1, ANY, false, false, cmd_trigger, "trigger NAME [TRIGGER] [ATTR=VALUE...]",
     "Without TRIGGER: the triggers LED NAME can use, the selected one marked with *.\n"
     "With TRIGGER: selects it (none for none), then writes the ATTR=VALUE pairs\n"
     "to the trigger's attributes in order, e.g. timer delay_on=100 delay_off=900.\n"
     "ATTR=VALUE without TRIGGER changes the selected trigger's attributes. Needs\n"
     "root, the group uledsd or polkit's consent.\n", NULL},
    {"blink", 2, 3, false, false, cmd_blink, "blink NAME ON_MS [OFF_MS]",
     "Blinks LED NAME: the kernel's timer trigger, ON_MS lit and OFF_MS dark (OFF_MS\n"
     "defaults to ON_MS), 'trigger NAME timer delay_on=ON_MS delay_off=OFF_MS' in\n"
     "short. 'uledsctl set NAME off' stops it. Needs root, the group uledsd or polkit's\n"
     "consent.\n", check_blink},
    {"heartbeat", 1, 1, false, false, cmd_heartbeat, "heartbeat NAME",
     "LED NAME beats with the system load: the kernel's heartbeat trigger.\n"
     "'uledsctl set NAME off' stops it. Needs root, the group uledsd or polkit's\n"
     "consent.\n", NULL},
    {"pattern", 3, ANY, false, false, cmd_pattern, "pattern NAME BRIGHTNESS MS [BRIGHTNESS MS...]",
     "Runs a brightness pattern on LED NAME, over and over: the kernel's pattern\n"
     "trigger (ledtrig-pattern). Each step goes linearly from its BRIGHTNESS to the\n"
     "next step's over MS milliseconds; two equal steps in a row hold. E.g.\n"
     "'0 500 255 500' fades up and down once a second, '255 100 255 0 0 900 0 0'\n"
     "flashes. 'uledsctl set NAME off' stops it. Needs root, the group uledsd or\n"
     "polkit's consent.\n", check_pattern},
    {"monitor", 0, ANY, true, false, cmd_monitor, "monitor [NAME...] [--json]",
     "Prints a line for each change of brightness, trigger, blink, colour or backend\n"
     "state, for LEDs that come and go, and for uledsd leaving and coming back (it waits\n"
     "for it). On a terminal, a row of lamps under the lines shows every LED in its\n"
     "colour. With --json, one object a line: time, event (brightness, trigger, blink,\n"
     "color, backends, present, added, removed, missing, uledsd-running, uledsd-away,\n"
     "uledsd-back, uledsd-not-running), name, and led (its state after the change, as\n"
     "list --json gives it). Ctrl-C ends it.\n", NULL},
    {"create", 1, ANY, false, false, cmd_create,
     "create NAME [--max N] [--trigger T [ATTR=VALUE...]] [--backend B...] [KEY=VALUE...] "
     "[--keep]",
     "Creates a transient LED: KEY=VALUE are the keys of a section of uledsd.conf(5)\n"
     "(gpio.chip=... gpio.line=...); a word without a dot that is not such a key is an\n"
     "attribute of the trigger (delay_on=100). Without --backend or backends=, the LED\n"
     "gets the dbus backend. Without --keep it lives as long as this command, which\n"
     "monitors it until Ctrl-C; with --keep it stays until 'uledsctl remove' or uledsd\n"
     "stops. Needs root, the group uledsd or polkit's consent.\n", NULL},
    {"remove", 1, 1, false, false, cmd_remove, "remove NAME",
     "Removes a transient LED (one made by create). Needs root, the group uledsd or\n"
     "polkit's consent.\n", NULL},
    {"record", 1, ANY, false, false, cmd_record,
     "record NAME... [--duration S | --count N] [--format text|csv|json|vcd] [--svg FILE]",
     "Records every transition of the named LEDs with the kernel's timestamps: a line each\n"
     "(seconds since the start, LED, value, time since its previous transition), then a\n"
     "summary per LED (transitions, on/off time min/median/max, period, duty cycle, lost).\n"
     "Ends after --duration seconds, --count transitions, or Ctrl-C. --format vcd writes a\n"
     "value change dump for PulseView or GTKWave, --svg FILE a waveform for a browser.\n", NULL},
    {"reload", 0, 0, false, false, cmd_reload, "reload",
     "Makes uledsd re-read its configuration and apply what changed, and prints the\n"
     "errors it found, one a line. Exit status 1 when there are any. Needs root, the\n"
     "group uledsd or polkit's consent.\n", NULL},
};

/* What a value's leading '-' becomes while getopt runs (a byte no option starts with). */
#define NEGATIVE_MARK '\x1f'

static const char global_options[] =
    "  -h --help            show this help, or a command's with COMMAND --help\n"
    "     --version         show the version\n"
    "     --bus system|session\n"
    "                       the bus uledsd is on (default: system)\n"
    "     --address ADDRESS connect to this D-Bus address instead (tests)\n";

static void help_all(void)
{
	printf("uledsctl [OPTIONS...] COMMAND [ARGS...]\n\n"
	       "Shows and changes the LEDs of uledsd, over D-Bus (io.uledsd1).\n\n"
	       "Commands:\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		printf("  %s\n", commands[i].usage);
	printf("\nOptions:\n%s"
	       "     --json            JSON output (list, status, monitor)\n"
	       "     --no-pager        do not pipe long output into a pager\n"
	       "     --no-legend       no header line (list), even on a terminal\n"
	       "  -q --quiet           set: no line with the value a step or toggle gave\n"
	       "  -p --property PROP   show: this property only (may repeat, PROP,PROP...)\n"
	       "     --value           show: the values alone, without PROPERTY=\n"
	       "\nExit status: 0 done, 1 a failure the message says how to fix, 2 usage error,\n"
	       "3 uledsd is not running, 4 no such LED. See uledsctl(1).\n",
	       global_options);
}

static void help_command(const struct command *cmd)
{
	printf("uledsctl %s\n\n%s\nOptions:\n%s", cmd->usage, cmd->help, global_options);
	if (cmd->json)
		printf("     --json            JSON output\n");
	if (cmd->pager)
		printf("     --no-pager        do not pipe the output into a pager\n");
	if (streq(cmd->name, "show"))
		printf("  -p --property PROP   this property only (may repeat, PROP,PROP...)\n"
		       "     --value           the values alone, without PROPERTY=\n");
}

/* --backend may repeat: the list grows, space-separated as in "backends =". */
static int create_option(struct ctl *c, int opt, const char *arg)
{
	char *s = NULL;

	c->create_options = true;
	if (opt == ARG_MAX)
		c->create_max = arg;
	else if (opt == ARG_TRIGGER)
		c->create_trigger = arg;
	else if (opt == ARG_KEEP)
		c->create_keep = true;
	else {
		if (asprintf(&s, "%s%s%s", c->create_backends ? c->create_backends : "",
			     c->create_backends ? " " : "", arg) < 0)
			return -ENOMEM;
		free(c->create_backends);
		c->create_backends = s;
	}
	return 0;
}

/* -p may repeat and take a comma-separated list: one list of names in the end. */
static int show_property(struct ctl *c, const char *arg)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (strv_push(&c->show_props, &c->n_show_props, strdup(p)) < 0)
			return -ENOMEM;
	return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("uledsctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" See 'uledsctl --help'.\n", stderr);
	return CTL_EXIT_USAGE;
}

#define CTL_CONTINUE (-1) /* from the steps of main(): no exit code yet, go on */

static const struct option options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, ARG_VERSION},
    {"json", no_argument, NULL, ARG_JSON},
    {"no-pager", no_argument, NULL, ARG_NO_PAGER},
    {"no-legend", no_argument, NULL, ARG_NO_LEGEND},
    {"quiet", no_argument, NULL, 'q'},
    {"property", required_argument, NULL, 'p'},
    {"value", no_argument, NULL, ARG_VALUE},
    {"bus", required_argument, NULL, ARG_BUS},
    {"address", required_argument, NULL, ARG_ADDRESS},
    {"max", required_argument, NULL, ARG_MAX},
    {"trigger", required_argument, NULL, ARG_TRIGGER},
    {"backend", required_argument, NULL, ARG_BACKEND},
    {"keep", no_argument, NULL, ARG_KEEP},
    {"duration", required_argument, NULL, ARG_DURATION},
    {"count", required_argument, NULL, ARG_COUNT},
    {"format", required_argument, NULL, ARG_FORMAT},
    {"svg", required_argument, NULL, ARG_SVG},
    {},
};

/* The options, wherever they are (getopt permutes: options may follow the command, as with
 * systemctl). */
static int parse_options(struct ctl *c, int argc, char *argv[], bool *help)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "hqp:", options, NULL)) >= 0) {
		switch (opt) {
		case 'h':
			*help = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'p':
			if (show_property(c, optarg) < 0)
				return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
			break;
		case ARG_VALUE:
			c->show_value = true;
			break;
		case ARG_NO_LEGEND:
			c->no_legend = true;
			break;
		case ARG_VERSION:
			printf("uledsctl %s\n", ULEDSCTL_VERSION);
			return CTL_EXIT_OK;
		case ARG_JSON:
			c->json = true;
			break;
		case ARG_NO_PAGER:
			c->no_pager = true;
			break;
		case ARG_BUS:
			if (!streq(optarg, "system") && !streq(optarg, "session"))
				return usage_error("--bus takes system or session, not '%s'.",
						   optarg);
			c->bus_kind = optarg;
			break;
		case ARG_ADDRESS:
			c->address = optarg;
			break;
		case ARG_MAX:
		case ARG_TRIGGER:
		case ARG_BACKEND:
		case ARG_KEEP:
			if (create_option(c, opt, optarg) < 0)
				return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
			break;
		case ARG_DURATION:
		case ARG_COUNT:
		case ARG_FORMAT:
		case ARG_SVG:
			c->record_opts[opt - ARG_DURATION] = optarg;
			break;
		default: /* getopt said which option, above */
			fputs("uledsctl: see 'uledsctl --help' for the options.\n", stderr);
			return CTL_EXIT_USAGE;
		}
	}
	return CTL_CONTINUE;
}

/* The command's argument count, and options given to a command they are not for. */
static int check_command(struct ctl *c, const struct command *cmd, char **args, size_t n)
{
	if (n < cmd->min_args || n > cmd->max_args) {
		fprintf(stderr, "uledsctl: %s arguments. Usage: uledsctl %s\n",
			n < cmd->min_args ? "Missing" : "Too many", cmd->usage);
		return CTL_EXIT_USAGE;
	}
	if (c->json && streq(cmd->name, "record"))
		return usage_error("%s", "record writes JSON with --format json (one object a "
					 "transition, then the summary), not --json.");
	if (c->json && !cmd->json)
		return usage_error("--json is for list, status and monitor, not '%s'.", cmd->name);
	if ((c->show_props || c->show_value) && !streq(cmd->name, "show"))
		return usage_error("-p/--property and --value are for show, not '%s'.", cmd->name);
	if (c->create_options && !streq(cmd->name, "create"))
		return usage_error(
		    "--max, --trigger, --backend and --keep are for create, not '%s'.", cmd->name);
	if ((c->record_opts[0] || c->record_opts[1] || c->record_opts[2] || c->record_opts[3]) &&
	    !streq(cmd->name, "record"))
		return usage_error("--duration, --count, --format and --svg are for record, not "
				   "'%s'.",
				   cmd->name);
	c->command = cmd->name;
	if (cmd->check) {
		int r = cmd->check(c, args, n);

		if (r != CTL_EXIT_OK)
			return r;
	}
	if (streq(cmd->name, "record")) {
		int r = record_check_args(c);

		if (r != 0)
			return r;
	}
	return CTL_CONTINUE;
}

int main(int argc, char *argv[])
{
	struct ctl c = {.bus_kind = "system"};
	const struct command *cmd = NULL;
	const char *term = getenv("TERM");
	bool help = false;
	size_t n;
	int r;

	/* A step down ("set NAME -10%") is a value, not an option: hidden from getopt. */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9')
			argv[i][0] = NEGATIVE_MARK;
	r = parse_options(&c, argc, argv, &help);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == NEGATIVE_MARK)
			argv[i][0] = '-';
	if (r != CTL_CONTINUE)
		return r;
	if (optind < argc) {
		for (size_t i = 0; i < ELEMENTSOF(commands); i++)
			if (streq(argv[optind], commands[i].name))
				cmd = &commands[i];
		if (!cmd)
			return usage_error("Unknown command '%s'.", argv[optind]);
		optind++;
	}
	if (help) {
		if (cmd)
			help_command(cmd);
		else
			help_all();
		return CTL_EXIT_OK;
	}
	if (!cmd)
		return usage_error("%s", "Missing command.");
	n = (size_t)(argc - optind);
	r = check_command(&c, cmd, argv + optind, n);
	if (r != CTL_CONTINUE)
		return r;
	if (c.address ? asprintf(&c.bus_desc, "bus at %s", c.address) < 0
		      : asprintf(&c.bus_desc, "%s bus", c.bus_kind) < 0)
		return ctl_fail(&c, CTL_EXIT_FAILURE, "Out of memory.");
	c.tty = isatty(STDOUT_FILENO);
	c.color = c.tty && !getenv("NO_COLOR") && !(term && streq(term, "dumb"));

	r = ctl_connect(&c);
	if (r > 0)
		return r;
	r = cmd->run(&c, argv + optind, n);
	ctl_pager_close();
	sd_bus_flush_close_unref(c.bus);
	free(c.bus_desc);
	strv_free(c.show_props);
	return r;
}
