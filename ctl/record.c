// SPDX-License-Identifier: MIT
/* uledsctl record: Manager.Record()'s pipe read until a duration, a count or Ctrl-C. */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "record-data.h"

enum record_opt {
	RECORD_OPT_DURATION,
	RECORD_OPT_COUNT,
	RECORD_OPT_FORMAT,
	RECORD_OPT_SVG,
};

struct record_args {
	double duration; /* seconds, 0: until Ctrl-C or count */
	unsigned long count;
	enum rec_format format;
	const char *svg;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int parse_args(struct ctl *c, struct record_args *a)
{
	static const char *const formats[] = {"text", "csv", "json", "vcd"};
	const char *const *o = c->record_opts;
	char *end;

	if (o[RECORD_OPT_DURATION] && o[RECORD_OPT_COUNT])
		return ctl_fail(c, CTL_EXIT_USAGE, "Give --duration or --count, not both.");
	if (o[RECORD_OPT_DURATION]) {
		a->duration = strtod(o[RECORD_OPT_DURATION], &end);
		if (*end || !(a->duration > 0) || !isfinite(a->duration))
			return ctl_fail(c, CTL_EXIT_USAGE,
					"--duration takes a number of seconds above 0, not '%s'.",
					o[RECORD_OPT_DURATION]);
	}
	if (o[RECORD_OPT_COUNT]) {
		a->count = strtoul(o[RECORD_OPT_COUNT], &end, 10);
		if (*end || !a->count || *o[RECORD_OPT_COUNT] == '-')
			return ctl_fail(c, CTL_EXIT_USAGE,
					"--count takes a number of transitions above 0, not '%s'.",
					o[RECORD_OPT_COUNT]);
	}
	for (size_t i = 0; o[RECORD_OPT_FORMAT] && i <= ELEMENTSOF(formats); i++) {
		if (i == ELEMENTSOF(formats))
			return ctl_fail(c, CTL_EXIT_USAGE,
					"--format takes text, csv, json or vcd, not '%s'.",
					o[RECORD_OPT_FORMAT]);
		if (streq(o[RECORD_OPT_FORMAT], formats[i])) {
			a->format = (enum rec_format)i;
			break;
		}
	}
	a->svg = o[RECORD_OPT_SVG];
	return 0;
}

int record_check_args(struct ctl *c)
{
	struct record_args a = {0};
	_cleanup_free_ char *dir = NULL;
	char *slash;
	int r;

	r = parse_args(c, &a);
	if (r != 0 || !a.svg)
		return r;
	/* Before the bus and the recording: a waveform is not lost to a typo at the end. */
	dir = strdup(a.svg);
	if (!dir)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Out of memory.");
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0;
	if (access(slash ? dir : ".", W_OK | X_OK) < 0 ||
	    (access(a.svg, F_OK) == 0 && access(a.svg, W_OK) < 0))
		return ctl_fail(c, CTL_EXIT_USAGE, "--svg %s: cannot write there: %m.", a.svg);
	return 0;
}

/* The pipe of a new recording, the caller's to close (that ends the recording). */
static int record_open(struct ctl *c, char **names, size_t n, int *ret_fd)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	_cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
	int fd, r;

	r = sd_bus_message_new_method_call(c->bus, &m, ULEDSD_BUS_NAME, ULEDSD_MANAGER_PATH,
					   ULEDSD_MANAGER_IFACE, "Record");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "s");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(m, "s", names[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_call(c->bus, m, 0, &e, &reply);
	if (r >= 0)
		r = sd_bus_message_read(reply, "h", &fd);
	if (r < 0)
		return ctl_error(c, r, &e, "Failed to start recording");
	*ret_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (*ret_fd < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to keep the recording's pipe: %m.");
	return 0;
}

/* Complete lines of buf[0..*len): fed, printed, consumed. Returns -errno on a bad line. */
static int record_lines(struct ctl *c, struct recording *rec, const struct record_args *a,
			char *buf, size_t *len, unsigned long *n_seen)
{
	char *p = buf, *nl;
	size_t led;
	int r;

	while ((nl = memchr(p, '\n', *len - (size_t)(p - buf)))) {
		*nl = 0;
		r = recording_feed(rec, p, &led);
		if (r < 0)
			return ctl_fail(
			    c, CTL_EXIT_FAILURE,
			    "uledsd sent a line this uledsctl does not understand: '%s'.", p);
		if (r > 0) {
			++*n_seen;
			if (a->format != REC_FORMAT_VCD)
				record_print_change(stdout, a->format, rec, led);
		}
		p = nl + 1;
		/* --count: what follows is not part of the recording, the VCD and SVG included. */
		if (a->count && *n_seen >= a->count)
			return 0;
	}
	*len -= (size_t)(p - buf);
	memmove(buf, p, *len);
	return 0;
}

/* Returns 0 at the end the user asked for, 1 when uledsd ended it first (the pipe closed: it
 * stopped, or was restarted), else an exit status. */
static int record_loop(struct ctl *c, int fd, struct recording *rec, const struct record_args *a)
{
	uint64_t deadline = a->duration ? now_ns() + (uint64_t)(a->duration * 1e9) : 0;
	unsigned long n_seen = 0;
	char buf[65536];
	size_t len = 0;
	int r;

	while (!stop_requested && (!a->count || n_seen < a->count)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = now_ns();
		ssize_t k;

		if (deadline && now >= deadline)
			break;
		if (poll(&pfd, 1, deadline ? (int)((deadline - now) / 1000000 + 1) : -1) <= 0)
			continue; /* EINTR: a signal, checked above; 0: the deadline */
		k = read(fd, buf + len, sizeof(buf) - len - 1);
		if (k == 0) {
			rec->end_ns = now_ns();
			return 1;
		}
		if (k < 0)
			continue;
		len += (size_t)k;
		r = record_lines(c, rec, a, buf, &len, &n_seen);
		if (r != 0)
			return r;
		fflush(stdout);
	}
	/* The end of the recording: a deadline, not the last record, when there is one. */
	rec->end_ns = deadline && !stop_requested && !a->count ? deadline : now_ns();
	return 0;
}

static int record_finish(struct ctl *c, struct recording *rec, const struct record_args *a)
{
	FILE *f;
	int r;

	if (a->format == REC_FORMAT_VCD) {
		r = record_write_vcd(stdout, rec);
		if (r >= 0)
			r = record_print_summary(stderr, REC_FORMAT_TEXT, rec);
	} else
		r = record_print_summary(stdout, a->format, rec);
	if (r < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to write the recording: %s.",
				strerror(-r));
	if (!a->svg)
		return CTL_EXIT_OK;
	f = fopen(a->svg, "we");
	if (!f)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to create %s: %m.", a->svg);
	r = record_write_svg(f, rec);
	if (fclose(f) != 0 || r < 0)
		return ctl_fail(c, CTL_EXIT_FAILURE, "Failed to write %s: %m.", a->svg);
	return CTL_EXIT_OK;
}

int cmd_record(struct ctl *c, char **args, size_t n)
{
	struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART: poll returns */
	struct recording rec = {0};
	struct record_args a = {0};
	int fd = -1, r;

	r = parse_args(c, &a);
	if (r != 0)
		return r;
	r = record_open(c, args, n, &fd);
	if (r != 0)
		return r;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* On stderr: scripts wait for it before they make the LEDs change. */
	fprintf(stderr, "Recording %zu LED%s; %s.\n", n, n == 1 ? "" : "s",
		a.duration ? "Ctrl-C ends it early" : "Ctrl-C ends it");
	record_print_header(stdout, a.format);
	r = record_loop(c, fd, &rec, &a);
	close(fd); /* uledsd sees the pipe closed: the recording ends there too */
	/* Ended by uledsd: what came is kept (the summary, the SVG), then the error. */
	if (r == 0 || r == 1) {
		int ended = r;

		r = record_finish(c, &rec, &a);
		if (ended && r == CTL_EXIT_OK)
			r = ctl_fail(
			    c, CTL_EXIT_FAILURE,
			    "uledsd ended the recording (it stopped or restarted); what was "
			    "recorded until then is above.");
	}
	recording_clear(&rec);
	return r;
}
