// SPDX-License-Identifier: MIT
/* The benchmark's measurements inside the VM; each subcommand prints one JSON object per line. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/uleds.h>
#include <systemd/sd-bus.h>

/*
 * usage:
 *   measure latency N BLOCK DELAY_US SUBJECT...
 *       SUBJECT = LABEL,BRIGHTNESS_FILE,SIM_VALUE_FILE. N changes per subject, taken in
 *       blocks of BLOCK that rotate over the subjects (slow drifts of the emulator hit all
 *       alike). Each change: write 0 or 1 to the LED's brightness, then re-read the
 *       gpio-sim line's value until it shows the new level. DELAY_US (random 0..DELAY_US)
 *       between changes lets the forwarder fall asleep first; 0 makes it a closed-loop
 *       throughput run ("rate" in the output).
 *   measure batch COUNT ROUNDS BLOCKS SUBJECT...
 *       SUBJECT = LABEL,LED_PREFIX,SIM_LINE_PREFIX,FIRST_OFFSET. COUNT LEDs LED_PREFIX0..;
 *       each round writes a new level to every LED, then waits until every line shows it.
 *       SIM_LINE_PREFIX may list several chips' prefixes, PREFIX|PREFIX|..., of 1000 lines
 *       each (gpio-sim allows 1024 lines a chip).
 *   measure register COUNT      time to create COUNT uleds LEDs (open, write, first read)
 *   measure spawn LABEL -- CMD...   start CMD with $NOTIFY_SOCKET, time until READY=1;
 *       prints its pid and VmRSS then; CMD keeps running.
 *   measure idle SECONDS LABEL=PID...   context switches of all threads over SECONDS
 *   measure dbus SECONDS PID LED_PREFIX COUNT   flood COUNT LEDs with changes for SECONDS,
 *       count io.uledsd1 Brightness PropertiesChanged signals, sample PID's VmRSS.
 * Times are CLOCK_MONOTONIC, in microseconds.
 */

#define TIMEOUT_USEC 2000000

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static double now_usec_f(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "measure: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, ": %s\n", strerror(errno));
	exit(1);
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		die("cannot open %s", path);
	return fd;
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The level the gpio-sim line shows: '0' or '1', -1 on error. */
static int sim_read(int fd)
{
	char c[4];

	if (pread(fd, c, sizeof(c), 0) < 1)
		return -1;
	return c[0] - '0';
}

static void write_level(int fd, int level)
{
	const char *s = level ? "1" : "0";

	if (pwrite(fd, s, 1, 0) != 1)
		die("writing brightness %s failed", s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return n ? sorted[i < n ? i : n - 1] : 0;
}

static double mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* ---- latency ---- */

struct subject {
	char *label, *a, *b;
	unsigned int first;
	int led_fd, sim_fd, level;
	double *lat, *wr;
	size_t n;
	unsigned int timeouts;
	double busy_usec; /* time spent in changes (for the closed-loop rate) */
	pid_t pid;	  /* batch: the forwarder, whose CPU time is measured (0: not) */
	double cpu_nsec;  /* its CPU time (user + system) during the subject's blocks */
};

/* CPU time (user + system) of every thread of pid so far, in ns: the first field of
 * /proc/PID/task/TID/schedstat (sum_exec_runtime), exact where /proc/PID/stat counts ticks. */
static double proc_cpu_nsec(pid_t pid)
{
	char pattern[64];
	double sum = 0;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "/proc/%d/task/*/schedstat", (int)pid);
	if (pid <= 0 || glob(pattern, 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");
		unsigned long long ns;

		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += (double)ns;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return sum;
}

static char *split(char **s)
{
	char *tok = *s, *c = strchr(tok, ',');

	if (c) {
		*c = 0;
		*s = c + 1;
	} else
		*s = tok + strlen(tok);
	return tok;
}

static int cmd_latency(int argc, char **argv)
{
	size_t n, block;
	unsigned int delay;
	int ns = argc - 3;
	struct subject *subs;

	if (argc < 4)
		return 2;
	n = strtoul(argv[0], NULL, 10);
	block = strtoul(argv[1], NULL, 10);
	delay = (unsigned int)strtoul(argv[2], NULL, 10);
	subs = calloc((size_t)ns, sizeof(*subs));
	for (int i = 0; i < ns; i++) {
		struct subject *s = &subs[i];
		char *p = argv[3 + i];

		s->label = split(&p);
		s->a = split(&p);
		s->b = split(&p);
		s->led_fd = open_or_die(s->a, O_WRONLY);
		s->sim_fd = open_or_die(s->b, O_RDONLY);
		s->lat = calloc(n, sizeof(double));
		s->wr = calloc(n, sizeof(double));
		/* Start from a known level: 0. */
		write_level(s->led_fd, 0);
		for (uint64_t end = now_usec() + TIMEOUT_USEC; sim_read(s->sim_fd) != 0;)
			if (now_usec() > end) {
				fprintf(stderr, "measure: %s never shows 0 on %s\n", s->label, s->b);
				return 1;
			}
	}
	srand(1);
	for (size_t done = 0; done < n; done += block) {
		for (int i = 0; i < ns; i++) {
			struct subject *s = &subs[i];
			size_t k = n - done < block ? n - done : block;
			double b0 = now_usec_f();

			for (size_t j = 0; j < k; j++) {
				int want = s->level = !s->level;
				double t0, t1, t2;
				int v;

				if (delay)
					usleep((useconds_t)(rand() % (int)delay));
				t0 = now_usec_f();
				write_level(s->led_fd, want);
				t1 = now_usec_f();
				/* Yield between looks: a forwarder woken on this CPU runs at once. */
				while ((v = sim_read(s->sim_fd)) != want && now_usec_f() - t0 < TIMEOUT_USEC)
					sched_yield();
				t2 = now_usec_f();
				if (v != want) {
					s->timeouts++;
					continue;
				}
				s->lat[s->n] = t2 - t0;
				s->wr[s->n++] = t1 - t0;
			}
			s->busy_usec += now_usec_f() - b0;
		}
	}
	for (int i = 0; i < ns; i++) {
		struct subject *s = &subs[i];
		double m = mean(s->lat, s->n);

		qsort(s->lat, s->n, sizeof(double), cmp_double);
		qsort(s->wr, s->n, sizeof(double), cmp_double);
		printf("{\"kind\":\"%s\",\"subject\":\"%s\",\"n\":%zu,\"timeouts\":%u,"
		       "\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"mean\":%.1f,\"max\":%.1f,"
		       "\"write_p50\":%.1f,\"write_p99\":%.1f,\"rate\":%.1f}\n",
		       delay ? "latency" : "pingpong", s->label, s->n, s->timeouts,
		       pct(s->lat, s->n, 0.5), pct(s->lat, s->n, 0.9), pct(s->lat, s->n, 0.99), m,
		       pct(s->lat, s->n, 1), pct(s->wr, s->n, 0.5), pct(s->wr, s->n, 0.99),
		       s->busy_usec > 0 ? (double)s->n * 1e6 / s->busy_usec : 0);
	}
	return 0;
}

/* ---- batch throughput over many LEDs ---- */

/* The value file of line n: PREFIXn/value, or with PREFIX0|PREFIX1|... (gpio-sim chips of
 * SIM_CHIP_LINES lines each, for more LEDs than one chip may have) the chip's own prefix. */
#define SIM_CHIP_LINES 1000
static const char *sim_line_path(char *buf, size_t size, const char *prefixes, unsigned int n)
{
	const char *p = prefixes;

	for (unsigned int chip = n / SIM_CHIP_LINES; chip > 0 && strchr(p, '|'); chip--)
		p = strchr(p, '|') + 1;
	if (strchr(prefixes, '|'))
		n %= SIM_CHIP_LINES;
	snprintf(buf, size, "%.*s%u/value", (int)strcspn(p, "|"), p, n);
	return buf;
}

static int cmd_batch(int argc, char **argv)
{
	unsigned int count, rounds, blocks;
	int ns = argc - 3;
	struct subject *subs;
	int *led_fd, *sim_fd;
	unsigned int *pending;

	if (argc < 4)
		return 2;
	raise_nofile();
	count = (unsigned int)strtoul(argv[0], NULL, 10);
	rounds = (unsigned int)strtoul(argv[1], NULL, 10);
	blocks = (unsigned int)strtoul(argv[2], NULL, 10);
	subs = calloc((size_t)ns, sizeof(*subs));
	led_fd = calloc(count, sizeof(int));
	sim_fd = calloc(count, sizeof(int));
	pending = calloc(count, sizeof(unsigned int));
	for (int i = 0; i < ns; i++) {
		char *p = argv[3 + i];

		subs[i].label = split(&p);
		subs[i].a = split(&p);
		subs[i].b = split(&p);
		subs[i].first = (unsigned int)strtoul(split(&p), NULL, 10);
		subs[i].pid = *p ? (pid_t)strtol(split(&p), NULL, 10) : 0;
	}
	/* Blocks rotate over the subjects; the fds of one subject are open at a time. */
	for (unsigned int blk = 0; blk < blocks; blk++) {
		for (int i = 0; i < ns; i++) {
			struct subject *s = &subs[i];
			char path[512];
			double t0, cpu0;

			for (unsigned int j = 0; j < count; j++) {
				snprintf(path, sizeof(path), "/sys/class/leds/%s%u/brightness", s->a, j);
				led_fd[j] = open_or_die(path, O_WRONLY);
				sim_fd[j] = open_or_die(sim_line_path(path, sizeof(path), s->b,
								      s->first + j),
							O_RDONLY);
			}
			/* Start from where the lines are: an earlier run (the strace block) may have
			 * left them high, and a first round to the same level would change nothing. */
			if (blk == 0)
				s->level = sim_read(sim_fd[0]) == 1;
			t0 = now_usec_f();
			cpu0 = proc_cpu_nsec(s->pid);
			for (unsigned int r = 0; r < rounds; r++) {
				int want = s->level = !s->level;
				unsigned int np = count;
				uint64_t end = now_usec() + 10 * TIMEOUT_USEC;

				for (unsigned int j = 0; j < count; j++) {
					write_level(led_fd[j], want);
					pending[j] = j;
				}
				/* Lines that show the level drop out of the list. */
				while (np > 0 && now_usec() < end) {
					unsigned int k = 0;

					for (unsigned int j = 0; j < np; j++)
						if (sim_read(sim_fd[pending[j]]) != want)
							pending[k++] = pending[j];
					np = k;
					if (np)
						sched_yield();
				}
				s->timeouts += np;
				s->n += count - np;
			}
			s->busy_usec += now_usec_f() - t0;
			if (cpu0 >= 0)
				s->cpu_nsec += proc_cpu_nsec(s->pid) - cpu0;
			for (unsigned int j = 0; j < count; j++) {
				close(led_fd[j]);
				close(sim_fd[j]);
			}
		}
	}
	for (int i = 0; i < ns; i++) {
		struct subject *s = &subs[i];

		printf("{\"kind\":\"batch\",\"subject\":\"%s\",\"leds\":%u,\"n\":%zu,\"timeouts\":%u,"
		       "\"rate\":%.1f,\"cpu_ms_per_10k\":%.1f}\n",
		       s->label, count, s->n, s->timeouts,
		       s->busy_usec > 0 ? (double)s->n * 1e6 / s->busy_usec : 0,
		       s->pid > 0 && s->n ? s->cpu_nsec / 1e6 * 10000 / (double)s->n : -1);
	}
	return 0;
}

/* ---- bare registration ---- */

static int cmd_register(int argc, char **argv)
{
	unsigned int count;
	int *fds;
	double t0, t1, t2;

	if (argc != 1)
		return 2;
	raise_nofile();
	count = (unsigned int)strtoul(argv[0], NULL, 10);
	fds = calloc(count, sizeof(int));
	t0 = now_usec_f();
	for (unsigned int i = 0; i < count; i++) {
		struct uleds_user_dev dev = { .max_brightness = 255 };
		int v;

		snprintf(dev.name, sizeof(dev.name), "reg%u", i);
		fds[i] = open_or_die("/dev/uleds", O_RDWR | O_NONBLOCK);
		if (write(fds[i], &dev, sizeof(dev)) != (ssize_t)sizeof(dev))
			die("registering %s failed", dev.name);
		if (read(fds[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
			die("first read of %s failed", dev.name);
	}
	t1 = now_usec_f();
	for (unsigned int i = 0; i < count; i++)
		close(fds[i]);
	t2 = now_usec_f();
	printf("{\"kind\":\"register\",\"leds\":%u,\"usec\":%.0f,\"close_usec\":%.0f}\n", count,
	       t1 - t0, t2 - t1);
	return 0;
}

/* ---- start-up ---- */

static long status_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static int cmd_spawn(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	double t0, t1;
	pid_t pid;
	int fd, one = 1;

	if (argc < 3 || strcmp(argv[1], "--") != 0)
		return 2;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/bench-notify-%d", (int)getpid());
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("cannot bind %s", sa.sun_path);
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	t0 = now_usec_f();
	pid = fork();
	if (pid == 0) {
		/* Our stdout is the caller's pipe: the daemon must not hold it open. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	for (;;) {
		struct timeval tv = { .tv_sec = 600 }; /* 10 000 LEDs under a loaded TCG */
		ssize_t n;

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			fprintf(stderr, "measure: %s sent no READY=1\n", argv[0]);
			kill(pid, SIGKILL);
			return 1;
		}
		buf[n] = 0;
		if (strncmp(buf, "READY=1", 7) == 0 || strstr(buf, "\nREADY=1"))
			break;
	}
	t1 = now_usec_f();
	unlink(sa.sun_path);
	/* Let the start-up's last allocations settle before reading RSS. */
	usleep(200000);
	printf("{\"kind\":\"startup\",\"subject\":\"%s\",\"pid\":%d,\"usec\":%.0f,\"rss_kib\":%ld,"
	       "\"hwm_kib\":%ld}\n",
	       argv[0], (int)pid, t1 - t0, status_field(pid, "VmRSS"), status_field(pid, "VmHWM"));
	return 0;
}

/* ---- idle wakeups ---- */

/* Context switches of every thread of pid (a wakeup of a sleeping thread is one). */
static long ctxt_switches(const char *pid)
{
	char pattern[64];
	glob_t g;
	long sum = 0;

	snprintf(pattern, sizeof(pattern), "/proc/%s/task/*", pid);
	if (glob(pattern, 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		pid_t tid = (pid_t)strtol(strrchr(g.gl_pathv[i], '/') + 1, NULL, 10);

		sum += status_field(tid, "voluntary_ctxt_switches");
		sum += status_field(tid, "nonvoluntary_ctxt_switches");
	}
	globfree(&g);
	return sum;
}

static int cmd_idle(int argc, char **argv)
{
	unsigned int secs;
	long *before;

	if (argc < 2)
		return 2;
	secs = (unsigned int)strtoul(argv[0], NULL, 10);
	before = calloc((size_t)argc, sizeof(long));
	for (int i = 1; i < argc; i++)
		before[i] = ctxt_switches(strchr(argv[i], '=') + 1);
	sleep(secs);
	for (int i = 1; i < argc; i++) {
		char *pid = strchr(argv[i], '=') + 1;
		long after = ctxt_switches(pid);

		pid[-1] = 0;
		printf("{\"kind\":\"idle\",\"subject\":\"%s\",\"seconds\":%u,\"wakeups\":%ld}\n",
		       argv[i], secs, after < 0 || before[i] < 0 ? -1 : after - before[i]);
	}
	return 0;
}

/* ---- D-Bus flood ---- */

struct flood {
	unsigned int count;
	int *fds;
	unsigned int *last;   /* last value written per LED */
	unsigned int *signal; /* value of the last signal per LED */
	unsigned long *signals;
	unsigned long writes;
	const char *prefix;
	volatile bool stop;
};

static void *flood_writer(void *userdata)
{
	struct flood *f = userdata;
	unsigned int v = 0;
	cpu_set_t cpus;

	/* The writer keeps CPU 0 busy; the reader of the signals stays where it was started. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	while (!f->stop) {
		for (unsigned int i = 0; i < f->count; i++) {
			char s[8];
			int n;

			v = v % 255 + 1;
			n = snprintf(s, sizeof(s), "%u", v);
			if (pwrite(f->fds[i], s, (size_t)n, 0) == n) {
				f->last[i] = v;
				f->writes++;
			}
		}
	}
	return NULL;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *err)
{
	struct flood *f = userdata;
	const char *path = sd_bus_message_get_path(m), *iface, *key;
	char want[128];
	unsigned int idx;
	int r;

	/* sd_bus_path_encode leaves plain alphanumeric names as they are. */
	snprintf(want, sizeof(want), "/io/uledsd1/led/%s", f->prefix);
	if (!path || strncmp(path, want, strlen(want)) != 0)
		return 0;
	idx = (unsigned int)strtoul(path + strlen(want), NULL, 10);
	if (idx >= f->count || sd_bus_message_read(m, "s", &iface) < 0)
		return 0;
	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r > 0 && sd_bus_message_enter_container(m, 'e', "sv") > 0) {
		unsigned int v;

		if (sd_bus_message_read(m, "s", &key) < 0)
			break;
		if (strcmp(key, "Brightness") == 0 && sd_bus_message_read(m, "v", "u", &v) >= 0) {
			f->signal[idx] = v;
			f->signals[idx]++;
		} else
			sd_bus_message_skip(m, "v");
		sd_bus_message_exit_container(m);
	}
	return 0;
}

static int cmd_dbus(int argc, char **argv)
{
	struct flood f = { 0 };
	unsigned int secs;
	pid_t pid;
	sd_bus *bus = NULL;
	pthread_t th;
	long rss_min = -1, rss_max = -1, rss_start, rss_end;
	unsigned long total = 0, lo = (unsigned long)-1, hi = 0;
	unsigned int final_ok = 0;
	double t0, t1 = 0, t_end, last_signal = 0;
	unsigned long last_seen = 0;
	int r;

	if (argc != 4)
		return 2;
	secs = (unsigned int)strtoul(argv[0], NULL, 10);
	pid = (pid_t)strtol(argv[1], NULL, 10);
	f.prefix = argv[2];
	f.count = (unsigned int)strtoul(argv[3], NULL, 10);
	f.fds = calloc(f.count, sizeof(int));
	f.last = calloc(f.count, sizeof(unsigned int));
	f.signal = calloc(f.count, sizeof(unsigned int));
	f.signals = calloc(f.count, sizeof(unsigned long));
	for (unsigned int i = 0; i < f.count; i++) {
		char path[256];

		snprintf(path, sizeof(path), "/sys/class/leds/%s%u/brightness", f.prefix, i);
		f.fds[i] = open_or_die(path, O_WRONLY);
	}
	r = sd_bus_open_system(&bus);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',sender='io.uledsd1',"
				     "interface='org.freedesktop.DBus.Properties',"
				     "member='PropertiesChanged',path_namespace='/io/uledsd1'",
				     on_signal, &f);
	if (r < 0) {
		fprintf(stderr, "measure: cannot watch the system bus: %s\n", strerror(-r));
		return 1;
	}
	/* The match is in place once the bus answered something. */
	while (sd_bus_process(bus, NULL) > 0)
		;
	rss_start = status_field(pid, "VmRSS");
	t0 = now_usec_f();
	t_end = t0 + secs * 1e6;
	pthread_create(&th, NULL, flood_writer, &f);
	/* Read signals while the writer floods, then until a second passes without one (the
	 * rate limit's last signal of each LED, and whatever the bus still had queued). */
	for (bool stopped = false;;) {
		double t = now_usec_f();
		unsigned long seen = 0;
		long rss;

		if (!stopped && t >= t_end) {
			f.stop = true;
			pthread_join(th, NULL);
			stopped = true;
			t1 = now_usec_f();
		}
		for (unsigned int i = 0; i < f.count; i++)
			seen += f.signals[i];
		if (seen != last_seen) {
			last_seen = seen;
			last_signal = t;
		}
		if (stopped && (t >= last_signal + 1e6 || t >= t1 + 30e6))
			break;
		rss = status_field(pid, "VmRSS");
		if (rss >= 0 && (rss_min < 0 || rss < rss_min))
			rss_min = rss;
		if (rss > rss_max)
			rss_max = rss;
		while ((r = sd_bus_process(bus, NULL)) > 0)
			;
		if (r < 0)
			break;
		sd_bus_wait(bus, 100000);
	}
	rss_end = status_field(pid, "VmRSS");
	for (unsigned int i = 0; i < f.count; i++) {
		total += f.signals[i];
		if (f.signals[i] < lo)
			lo = f.signals[i];
		if (f.signals[i] > hi)
			hi = f.signals[i];
		final_ok += f.signal[i] == f.last[i];
	}
	printf("{\"kind\":\"dbus\",\"leds\":%u,\"seconds\":%.2f,\"drain_s\":%.2f,\"writes\":%lu,\"writes_per_s\":%.0f,"
	       "\"signals\":%lu,\"signals_per_s\":%.1f,\"signals_per_s_per_led_min\":%.1f,"
	       "\"signals_per_s_per_led_max\":%.1f,\"coalescing\":%.1f,\"final_value_ok\":%u,"
	       "\"rss_start_kib\":%ld,\"rss_min_kib\":%ld,\"rss_max_kib\":%ld,\"rss_end_kib\":%ld}\n",
	       f.count, (t1 - t0) / 1e6, last_signal > t1 ? (last_signal - t1) / 1e6 : 0, f.writes, (double)f.writes * 1e6 / (t1 - t0), total,
	       (double)total * 1e6 / (t1 - t0), (double)lo * 1e6 / (t1 - t0),
	       (double)hi * 1e6 / (t1 - t0), total ? (double)f.writes / (double)total : 0, final_ok,
	       rss_start, rss_min, rss_max, rss_end);
	sd_bus_unref(bus);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "latency", cmd_latency }, { "batch", cmd_batch }, { "register", cmd_register },
		{ "spawn", cmd_spawn },	    { "idle", cmd_idle },   { "dbus", cmd_dbus },
	};
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0) {
			r = cmds[i].fn(argc - 2, argv + 2);
			if (r == 2)
				fprintf(stderr, "measure %s: wrong arguments (see the comment in measure.c)\n",
					argv[1]);
			return r;
		}
	fprintf(stderr, "usage: measure latency|batch|register|spawn|idle|dbus ARGS...\n");
	return 2;
}
