// SPDX-License-Identifier: MIT
/* Host micro-benchmark of uledsd's dispatch, no kernel needed: N LEDs adopted on socketpairs
 * (as test-led does), rounds of one change each, the loop run until every LED has its value.
 * Prints CPU time (getrusage: the writes and the loop, one process) per 10 000 changes and
 * sd-event loop iterations per 100 changes. Link it against another revision's
 * libuledsd-core.a to compare (bench/README.md, "Issue 19").
 *
 * usage: bench-dispatch LEDS ROUNDS LABEL */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdstore.h"
#include "led.h"
#include "log.h"
#include "manager.h"

static double cpu_ms(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/* An adopted LED reads its brightness from sysfs: a directory standing in for it. */
static void fake_sysfs(const char *dir, const char *name)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/brightness", dir, name);
	f = fopen(p, "w");
	if (!f)
		exit(2);
	fputs("0\n", f);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct rlimit rl = {65536, 65536};
	char dir[] = "/tmp/bench-dispatch-XXXXXX", cmd[64];
	unsigned long iterations = 0;
	struct manager *m;
	int n, rounds, *peer;
	double t0;

	if (argc != 4)
		return 2;
	n = atoi(argv[1]);
	rounds = atoi(argv[2]);
	peer = calloc((size_t)n, sizeof(int));
	(void)setrlimit(RLIMIT_NOFILE, &rl);
	log_set_max_level(LOG_ERR);
	if (!peer || !mkdtemp(dir) || manager_new(&m) < 0)
		return 2;
	m->bus_kind = BUS_KIND_NONE;
	m->notify = false;
	fdstore_set_notify(m->fdstore, false);
	free(m->led_ctx.sysfs_leds);
	m->led_ctx.sysfs_leds = strdup(dir);
	for (int i = 0; i < n; i++) {
		struct led_conf *lc;
		struct led *l;
		char *err = NULL, name[32];
		int sv[2];

		snprintf(name, sizeof(name), "d%d", i);
		fake_sysfs(dir, name);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0 ||
		    led_conf_new(name, strlen(name), "bench", 1, &lc) < 0)
			return 2;
		lc->max_brightness = 255;
		if (led_new(&m->led_ctx, lc, sv[0], &l, &err) < 0) {
			fprintf(stderr, "%s\n", err ? err : name);
			return 1;
		}
		m->leds = realloc(m->leds, (m->n_leds + 1) * sizeof(*m->leds));
		m->leds[m->n_leds++] = l;
		peer[i] = sv[1];
	}
	t0 = cpu_ms();
	for (int r = 0; r < rounds; r++) {
		int v = r % 200 + 1;

		for (int i = 0; i < n; i++)
			if (write(peer[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
				return 2;
		for (int i = 0; i < n;) {
			if (m->leds[i]->brightness == (unsigned)v) {
				i++;
				continue;
			}
			if (sd_event_run(m->event, 1000000) <= 0)
				return 1;
			iterations++;
		}
	}
	printf("%s: %d LEDs x %d rounds: %.1f ms CPU per 10 000 changes, %.2f loop iterations "
	       "per 100 changes\n",
	       argv[3], n, rounds, (cpu_ms() - t0) * 10000 / ((double)n * rounds),
	       (double)iterations * 100 / ((double)n * rounds));
	manager_free(m);
	for (int i = 0; i < n; i++)
		close(peer[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : 2;
}
