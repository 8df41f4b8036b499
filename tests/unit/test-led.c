// SPDX-License-Identifier: MIT
/* LED core without a kernel: socketpairs stand in for adopted uleds fds, a temporary directory
 * for /sys/class/leds, a recording backend for GPIO/D-Bus. Covers forwarding and reload. */
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "conf-load.h"
#include "conf.h"
#include "fdstore.h"
#include "log.h"
#include "led.h"
#include "led-watch.h"
#include "macro.h"
#include "string-util.h"
#include "manager.h"
#include "recording.h"
#include "test.h"
#include "uleds-ext.h"

static char tmpdir[64];

static unsigned rec_calls, rec_last, rec_attached, rec_detached;

static int rec_attach(struct led_backend *b)
{
	rec_attached++;
	return 0;
}

/* test_many: the backend whose set() removes rec_victim from rec_manager, as a dispatch that
 * frees another LED of the same batch would. */
static struct led_backend *rec_killer;
static struct led *rec_victim;
static struct manager *rec_manager;

static int rec_set(struct led_backend *b, unsigned v)
{
	rec_calls++;
	rec_last = v;
	for (size_t i = 0; b == rec_killer && rec_victim && i < rec_manager->n_leds; i++)
		if (rec_manager->leds[i] == rec_victim) {
			manager_remove_led(rec_manager, i, false);
			rec_victim = NULL;
			break;
		}
	return 0;
}

static void rec_detach(struct led_backend *b)
{
	rec_detached++;
}

static unsigned rec_blinks, rec_on_ms, rec_off_ms;

static int rec_blink(struct led_backend *b, unsigned v, unsigned on_ms, unsigned off_ms)
{
	rec_blinks++;
	rec_last = v;
	rec_on_ms = on_ms;
	rec_off_ms = off_ms;
	return 0;
}

static const struct backend_ops rec_ops = {
    .name = "rec",
    .attach = rec_attach,
    .set = rec_set,
    .blink = rec_blink,
    .detach = rec_detach,
};

static void write_path(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* A fake sysfs LED directory with a brightness file. */
static void fake_sysfs(const char *name, unsigned brightness, unsigned max)
{
	char path[256], v[16];

	snprintf(path, sizeof(path), "%s/sys/%s", tmpdir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/%s/brightness", tmpdir, name);
	snprintf(v, sizeof(v), "%u\n", brightness);
	write_path(path, v);
	snprintf(path, sizeof(path), "%s/sys/%s/max_brightness", tmpdir, name);
	snprintf(v, sizeof(v), "%u\n", max);
	write_path(path, v);
}

static void write_conf(const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/conf/leds.conf", tmpdir);
	write_path(path, text);
}

static struct manager *new_manager(void)
{
	struct manager *m;
	char p[256];

	if (manager_new(&m) < 0)
		exit(2);
	m->bus_kind = BUS_KIND_NONE;
	m->notify = false;
	fdstore_set_notify(m->fdstore, false);
	/* As main.c wires the daemon: recordings follow the LEDs. */
	if (manager_listen(
		m, &(struct led_listener){.event = recording_on_led_event, .userdata = m}) < 0)
		exit(2);
	free(m->led_ctx.sysfs_leds);
	snprintf(p, sizeof(p), "%s/sys", tmpdir);
	m->led_ctx.sysfs_leds = strdup(p);
	free(m->led_ctx.uleds_path);
	/* A directory: stat() works, open(O_RDWR) fails, so only adopted LEDs can exist. */
	snprintf(p, sizeof(p), "%s/uleds", tmpdir);
	m->led_ctx.uleds_path = strdup(p);
	m->config_dirs = calloc(2, sizeof(char *));
	snprintf(p, sizeof(p), "%s/conf", tmpdir);
	m->config_dirs[0] = strdup(p);
	return m;
}

/* Hand the manager an fd for name as if systemd's fd store had kept it; returns our end. */
static int store_fd(struct manager *m, const char *name, unsigned brightness, unsigned max)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		exit(2);
	if (fdstore_put(m->fdstore, name, sv[0]) < 0)
		exit(2);
	fake_sysfs(name, brightness, max);
	return sv[1];
}

/* The fd the store holds for name, not taken yet. */
static int peer_fd_of(struct manager *m, const char *name)
{
	for (size_t i = 0; i < fdstore_n_kept(m->fdstore); i++) {
		const char *n;
		int fd;

		fdstore_kept(m->fdstore, i, &n, &fd);
		if (n && strcmp(n, name) == 0)
			return fd;
	}
	exit(2);
}

static void send_value(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		perror("write");
}

static void run_loop(struct manager *m)
{
	for (int i = 0; i < 10; i++)
		if (sd_event_run(m->event, 20000) <= 0)
			break;
}

static bool peer_closed(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char c;

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP || read(fd, &c, 1) == 0);
}

static void test_forwarding(void)
{
	struct manager *m = new_manager();
	struct conf *c;
	struct led_conf *lc;
	struct led_backend *b;
	struct led *l;
	char *err = NULL;
	int peer, r;

	/* An LED with a recording backend, built the way conf.c builds one. */
	write_conf("[rec:led]\nmax_brightness = 100\n");
	CHECK_INT(conf_load((const char *const *)m->config_dirs, &c), 0, "conf_load");
	lc = c->leds[0];
	c->n_leds = 0;
	conf_free(c);
	CHECK_INT(led_backend_new(&rec_ops, "t.conf", 1, &b), 0, "backend");
	lc->backends = calloc(1, sizeof(*lc->backends));
	lc->backends[0] = b;
	lc->n_backends = 1;

	peer = store_fd(m, "rec:led", 7, 100);
	rec_calls = rec_attached = 0;
	r = led_new(&m->led_ctx, lc, fdstore_take(m->fdstore, "rec:led"), &l, &err);
	CHECK_INT(r, 0, "led_new");
	if (r < 0) {
		fprintf(stderr, "  %s\n", err ? err : "");
		return;
	}
	CHECK_INT(l->brightness, 7, "adopted LED reads its brightness from sysfs");
	CHECK_INT(rec_attached, 1, "backend attached");
	CHECK(rec_calls == 1 && rec_last == 7, "backend driven to the current value at attach");
	CHECK(l->conf->backends[0]->ok && l->conf->backends[0]->status &&
		  strcmp(l->conf->backends[0]->status, "attached") == 0,
	      "backend state 'attached'");

	/* Two changes before the loop runs: the latest wins, nothing is lost at the end. */
	send_value(peer, 42);
	send_value(peer, 43);
	run_loop(m);
	CHECK_INT(rec_last, 43, "latest value forwarded");
	CHECK_INT(l->brightness, 43, "LED brightness");
	send_value(peer, 0);
	run_loop(m);
	CHECK_INT(rec_last, 0, "brightness 0 forwarded");

	/* No change, no call: nothing polls, and the loop has nothing to dispatch. */
	unsigned calls = rec_calls;
	run_loop(m);
	CHECK_INT(rec_calls, calls, "no backend call without a change");
	CHECK_INT(sd_event_run(m->event, 0), 0, "the loop is idle once the change is read");

	led_free(l);
	CHECK_INT(rec_detached, 1, "backend detached on free");
	CHECK(peer_closed(peer), "LED fd closed on free");
	close(peer);
	free(err);
	manager_free(m);
}

static void test_reload(void)
{
	struct manager *m = new_manager();
	struct led *keep, *change, *broken;
	struct led_backend *keep_b, *change_b;
	char **errors = NULL;
	int p_keep, p_gone, p_change, p_broken, p_recreate, p_mismatch;
	int keep_fd;

	write_conf("[keep]\nbackends = log\n"
		   "[gone]\n"
		   "[change]\nbackends = log\n"
		   "[broken]\nmax_brightness = 3\n"
		   "[recreate]\nmax_brightness = 3\n"
		   "[mismatch]\nmax_brightness = 9\n");
	p_keep = store_fd(m, "keep", 1, 255);
	p_gone = store_fd(m, "gone", 0, 255);
	p_change = store_fd(m, "change", 0, 255);
	p_broken = store_fd(m, "broken", 2, 3);
	p_recreate = store_fd(m, "recreate", 0, 3);
	/* Its max_brightness changed while uledsd was down: not adopted, a new device. */
	p_mismatch = store_fd(m, "mismatch", 0, 255);
	CHECK_INT(manager_start(m), 0, "manager_start");
	CHECK_INT(m->n_leds, 5, "all adopted LEDs exist");
	CHECK(!manager_find_led(m, "mismatch") && peer_closed(p_mismatch),
	      "stored LED with another max_brightness is let go, not adopted");
	close(p_mismatch);
	keep = manager_find_led(m, "keep");
	change = manager_find_led(m, "change");
	broken = manager_find_led(m, "broken");
	if (!keep || !change || !broken)
		return;
	keep_fd = keep->fd;
	keep_b = keep->conf->backends[0];
	struct led_conf *keep_conf = keep->conf;
	change_b = change->conf->backends[0];

	write_conf("[keep]\nbackends = log\n"
		   "[change]\nbackends = log\nlog.level = debug\n"
		   "[broken]\nmax_brightness = nope\n"
		   "[recreate]\nmax_brightness = 4\n"
		   "[new]\n");
	CHECK_INT(manager_reload(m, &errors), 0, "manager_reload");

	CHECK(manager_find_led(m, "keep") == keep && keep->fd == keep_fd &&
		  keep->conf->backends[0] == keep_b,
	      "unchanged LED untouched: same object, fd and backend");
	CHECK(!peer_closed(p_keep), "unchanged LED's fd still open");
	CHECK(keep->conf == keep_conf, "unchanged LED with a backend is not updated at all");
	CHECK(!manager_find_led(m, "gone") && peer_closed(p_gone), "removed LED closed");
	CHECK(manager_find_led(m, "change") == change && !peer_closed(p_change),
	      "changed backend settings: LED kept");
	CHECK(change->conf->n_backends == 1 && change->conf->backends[0] != change_b,
	      "changed backend re-attached");
	CHECK(manager_find_led(m, "broken") == broken && !peer_closed(p_broken),
	      "LED with a broken new definition keeps running");
	CHECK(peer_closed(p_recreate), "max_brightness change closes the old device");
	/* Registering needs a kernel, so [new] and the recreated LED fail here, with errors. */
	size_t n = 0;
	bool saw_nope = false, saw_uleds = false;
	for (; errors && errors[n]; n++) {
		saw_nope |= !!strstr(errors[n], ":7: max_brightness = 'nope'");
		saw_uleds |= !!strstr(errors[n], "uleds");
	}
	CHECK(saw_nope, "reload reports the broken definition with FILE:LINE");
	CHECK(saw_uleds, "reload reports the LED it could not create");
	CHECK_INT(n, 3, "errors returned by reload");
	strv_free(errors);

	manager_free(m);
	CHECK(peer_closed(p_keep) && peer_closed(p_change) && peer_closed(p_broken),
	      "stopping closes every LED");
	close(p_keep);
	close(p_gone);
	close(p_change);
	close(p_broken);
	close(p_recreate);
}

static size_t reload_errors(struct manager *m, const char *want)
{
	char **errors = NULL;
	size_t n = 0;
	bool saw = !want;

	CHECK_INT(manager_reload(m, &errors), 0, "manager_reload");
	for (; errors && errors[n]; n++)
		saw |= want && !!strstr(errors[n], want);
	CHECK(saw, "reload error: %s", want ? want : "(none expected)");
	strv_free(errors);
	return n;
}

static bool timer_armed(sd_event_source *s)
{
	int enabled = SD_EVENT_OFF;

	return s && sd_event_source_get_enabled(s, &enabled) >= 0 && enabled != SD_EVENT_OFF;
}

/* A trigger setting that failed to apply on reload is retried by the next reload, even though
 * the configuration did not change again. */
static void test_retry(void)
{
	struct manager *m = new_manager();
	char path[256];
	struct led *l;
	int peer;

	write_conf("[retry]\n");
	peer = store_fd(m, "retry", 0, 255);
	snprintf(path, sizeof(path), "%s/sys/retry/trigger", tmpdir);
	write_path(path, "none [timer] oneshot\n");
	CHECK_INT(manager_start(m), 0, "manager_start (retry)");
	l = manager_find_led(m, "retry");
	if (!l)
		return;
	CHECK(!timer_armed(m->trigger_retry), "nothing waits for a trigger: no retry timer (idle)");
	write_conf("[retry]\ntrigger = timer\ntrigger.delay_on = 10\n");
	CHECK_INT(reload_errors(m, "has no attribute 'delay_on'"), 1, "missing attribute reported");
	CHECK(l->apply_failed, "the failure is remembered");
	CHECK(timer_armed(m->trigger_retry), "and the retry timer runs");
	CHECK_INT(reload_errors(m, "has no attribute 'delay_on'"), 1,
		  "an unchanged definition that failed is applied again, and fails again");
	snprintf(path, sizeof(path), "%s/sys/retry/delay_on", tmpdir);
	write_path(path, "5\n"); /* two bytes: the daemon writes without O_TRUNC, as sysfs wants */
	CHECK_INT(reload_errors(m, NULL), 0, "the retry succeeds once the attribute exists");
	CHECK(!l->apply_failed && manager_find_led(m, "retry") == l, "same LED, no failure left");
	CHECK_INT(sd_event_run(m->event, 3000000), 1, "the pending retry runs once more");
	CHECK(!timer_armed(m->trigger_retry), "then nothing is pending: the timer stops");
	FILE *f = fopen(path, "re");
	char v[16] = "";
	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = 0;
		fclose(f);
	}
	CHECK(streq(v, "10"), "delay_on written by the retry");
	write_path(path, "10\n"); /* as the kernel shows it */
	CHECK_INT(reload_errors(m, NULL), 0, "after success an unchanged LED is left alone");
	manager_free(m);
	close(peer);
}

static void send_event(int fd, uint16_t type, int v, unsigned on, unsigned off, unsigned lost)
{
	static uint64_t t = 1000000000;
	struct uleds_event ev = {.timestamp_ns = t += 1000000,
				 .type = type,
				 .brightness = v,
				 .delay_on_ms = on,
				 .delay_off_ms = off,
				 .lost = lost};

	if (write(fd, &ev, sizeof(ev)) != sizeof(ev))
		perror("write");
}

/* Event mode: records in order, an offloaded blink, a level during it, 0 ending it, and a
 * recording that sees every record. */
static void test_event_mode(void)
{
	struct manager *m = new_manager();
	struct led_conf *lc;
	struct led_backend *b;
	struct led *l;
	char *err = NULL, buf[1024] = "";
	const char *unknown;
	int peer, rfd = -1;

	if (led_conf_new("ev:led", 6, "t.conf", 1, &lc) < 0 ||
	    led_backend_new(&rec_ops, "t.conf", 1, &b) < 0)
		exit(2);
	lc->max_brightness = 100;
	lc->backends = calloc(1, sizeof(*lc->backends));
	lc->backends[0] = b;
	lc->n_backends = 1;
	peer = store_fd(m, "ev:led", 0, 100);
	CHECK_INT(led_new(&m->led_ctx, lc, fdstore_take(m->fdstore, "ev:led"), &l, &err), 0,
		  "led_new");
	CHECK_INT(l->mode, LED_MODE_LATEST, "a socket answers ENOTTY: latest-value mode");
	l->mode = LED_MODE_EVENT_OFFLOAD; /* as the module's ioctl would have it */
	l->event_size = sizeof(struct uleds_event);
	CHECK_INT(recording_start(m, 0, NULL, &rfd, &unknown), 0, "recording_start");
	rec_calls = rec_blinks = 0;

	send_event(peer, ULEDS_EVENT_BLINK, 100, 20, 30, 0);
	run_loop(m);
	CHECK(rec_blinks == 1 && rec_on_ms == 20 && rec_off_ms == 30 && rec_last == 100,
	      "BLINK reaches the backend's blink()");
	CHECK(l->blink_on_ms == 20 && l->blink_off_ms == 30, "the LED blinks (D-Bus Blink)");
	send_event(peer, ULEDS_EVENT_BRIGHTNESS, 50, 0, 0, 0);
	send_event(peer, ULEDS_EVENT_BRIGHTNESS, 50, 0, 0, 0);
	run_loop(m);
	CHECK(rec_blinks == 2 && rec_last == 50 && rec_calls == 0,
	      "a level during a blink: blinks on at it; an equal value reaches no backend");
	send_event(peer, ULEDS_EVENT_BRIGHTNESS, 0, 0, 0, 3);
	run_loop(m);
	CHECK(rec_calls == 1 && rec_last == 0 && !l->blink_on_ms, "brightness 0 ends the blink");
	CHECK_INT(l->lost, 3, "lost records counted");

	CHECK(read(rfd, buf, sizeof(buf) - 1) > 0, "the recording has lines");
	CHECK(strstr(buf, "uledsd-record 1\n") == buf, "header first");
	CHECK(strstr(buf, "1001000000\tev:led\tblink\t100\t20\t30\n") != NULL, "blink line");
	CHECK(strstr(buf, "1003000000\tev:led\tbrightness\t50\n") != NULL, "equal values recorded");
	CHECK(strstr(buf, "1004000000\tev:led\tlost\t3\n1004000000\tev:led\tbrightness\t0\n") !=
		  NULL,
	      "lost before the record that carries it");
	close(rfd);
	run_loop(m);
	CHECK(!m->recorders, "a closed pipe ends the recording");
	led_free(l);
	close(peer);
	free(err);
	manager_free(m);
}

static size_t count_brightness(struct manager *m, unsigned v)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_leds; i++)
		n += m->leds[i]->brightness == v;
	return n;
}

/* One adopted LED with a recording backend, in m's LED list as manager_add_led puts it. */
static struct led *add_rec_led(struct manager *m, const char *name, int *ret_peer)
{
	struct led_conf *lc;
	struct led_backend *b;
	struct led *l;
	char *err = NULL;

	*ret_peer = store_fd(m, name, 0, 255);
	if (led_conf_new(name, strlen(name), "t.conf", 1, &lc) < 0 ||
	    led_backend_new(&rec_ops, "t.conf", 1, &b) < 0)
		exit(2);
	lc->max_brightness = 255;
	lc->backends = calloc(1, sizeof(*lc->backends));
	lc->backends[0] = b;
	lc->n_backends = 1;
	if (led_new(&m->led_ctx, lc, fdstore_take(m->fdstore, name), &l, &err) < 0) {
		fprintf(stderr, "led_new %s: %s\n", name, err ? err : "");
		exit(2);
	}
	free(err);
	m->leds = realloc(m->leds, (m->n_leds + 1) * sizeof(*m->leds));
	m->leds[m->n_leds++] = l;
	return l;
}

/* The only LED is watched on its own; a second one moves it into the set, and a change that
 * waits on it then is not lost. */
static void test_direct_to_set(void)
{
	struct manager *m = new_manager();
	struct led *a, *b;
	int pa, pb;

	a = add_rec_led(m, "one", &pa);
	send_value(pa, 5);
	run_loop(m);
	CHECK_INT(a->brightness, 5, "the only LED forwards");
	send_value(pa, 6);
	b = add_rec_led(m, "two", &pb);
	run_loop(m);
	CHECK_INT(a->brightness, 6, "a change waiting while the LED moves into the set arrives");
	send_value(pa, 7);
	send_value(pb, 8);
	run_loop(m);
	CHECK(a->brightness == 7 && b->brightness == 8, "both forward from the set: %u, %u",
	      a->brightness, b->brightness);
	CHECK_INT(sd_event_run(m->event, 0), 0, "the loop is idle once both are read");
	manager_free(m);
	close(pa);
	close(pb);
}

/* Many LEDs share one sd-event source (led-watch.c): a wakeup reads a whole batch, bounded by
 * LED_WATCH_BATCH; an LED removed by an earlier dispatch of the same batch, or by a reload, is
 * not dispatched, even though the fd store's copy (a dup here) keeps its file and data alive;
 * the last LED left forwards on the one-LED path. Run under valgrind too (meson.build). */
#define N_MANY 300
static void test_many(void)
{
	struct manager *m = new_manager();
	int peers[N_MANY], copies[N_MANY], peer_a, peer_b, copy_b;
	size_t done = 0, max_step = 0, iterations = 0;
	struct led *a, *b;
	char *text = NULL, *p;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	for (int i = 0; i < N_MANY; i++)
		fprintf(f, "[many%03d]\n", i);
	fclose(f);
	write_conf(text);
	for (int i = 0; i < N_MANY; i++) {
		char name[16];

		snprintf(name, sizeof(name), "many%03d", i);
		peers[i] = store_fd(m, name, 0, 255);
		copies[i] = dup(peer_fd_of(m, name)); /* systemd's copy */
	}
	CHECK_INT(manager_start(m), 0, "manager_start (many)");
	CHECK_INT(m->n_leds, N_MANY, "every LED adopted");

	for (int i = 0; i < N_MANY; i++)
		send_value(peers[i], 5);
	while (done < N_MANY && iterations < 50) {
		size_t now;

		if (sd_event_run(m->event, 100000) <= 0)
			break;
		iterations++;
		now = count_brightness(m, 5);
		if (now - done > max_step)
			max_step = now - done;
		done = now;
	}
	CHECK_INT(done, N_MANY, "a change of every LED forwarded");
	CHECK(max_step > 1 && max_step <= LED_WATCH_BATCH,
	      "one wakeup reads several LEDs, at most a batch: up to %zu read at once", max_step);
	CHECK(iterations <= N_MANY / LED_WATCH_BATCH + 3,
	      "%d changes in a few loop iterations, not one each: took %zu", N_MANY, iterations);

	/* A's backend removes B while B's change waits in the same batch. */
	a = add_rec_led(m, "a", &peer_a);
	b = add_rec_led(m, "b", &peer_b);
	copy_b = dup(b->fd);
	rec_killer = a->conf->backends[0];
	rec_victim = b;
	rec_manager = m;
	rec_calls = 0;
	send_value(peer_a, 9);
	send_value(peer_b, 9);
	run_loop(m);
	CHECK(!rec_victim && !manager_find_led(m, "b"), "B removed during A's dispatch");
	CHECK_INT(rec_calls, 1, "only A's change reached a backend; B's event was dropped");
	send_value(peer_b, 10); /* B's file lives on in copy_b: no stale event */
	run_loop(m);
	CHECK_INT(rec_calls, 1, "a removed LED whose fd is still stored is not dispatched");
	rec_killer = NULL;

	/* A reload that removes every odd LED while all have a change pending. */
	free(text);
	f = open_memstream(&text, &size);
	for (int i = 0; i < N_MANY; i += 2)
		fprintf(f, "[many%03d]\n", i);
	fclose(f);
	write_conf(text);
	for (int i = 0; i < N_MANY; i++)
		send_value(peers[i], 7);
	CHECK_INT(reload_errors(m, NULL), 0, "reload to the even LEDs");
	CHECK_INT(m->n_leds, N_MANY / 2, "odd LEDs and A removed by the reload");
	for (int i = 0; i < 10; i++)
		if (sd_event_run(m->event, 100000) <= 0)
			break;
	CHECK_INT(count_brightness(m, 7), N_MANY / 2, "every LED kept by the reload forwards");

	/* Down to one LED: it is found without a batch, and keeps forwarding. */
	while (m->n_leds > 1)
		manager_remove_led(m, m->n_leds - 1, false);
	p = m->leds[0]->name;
	CHECK(streq(p, "many000"), "many000 left");
	for (int v = 20; v < 23; v++) {
		send_value(peers[0], v);
		run_loop(m);
		CHECK_INT(m->leds[0]->brightness, v, "the last LED forwards");
	}
	manager_free(m);
	for (int i = 0; i < N_MANY; i++) {
		close(peers[i]);
		close(copies[i]);
	}
	close(peer_a);
	close(peer_b);
	close(copy_b);
	free(text);
}

/* Receives one datagram from the fake notify socket: its text and how many fds it carried
 * (closed). -1 when none waits. */
static int recv_notify(int sock, char *text, size_t size)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 512)];
	} control;
	struct iovec iov = {.iov_base = text, .iov_len = size - 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = control.buf,
			    .msg_controllen = sizeof(control.buf)};
	ssize_t n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int n_fds = 0;

	if (n < 0)
		return -1;
	text[n] = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_type == SCM_RIGHTS) {
			n_fds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			for (int i = 0; i < n_fds; i++)
				close(((int *)CMSG_DATA(c))[i]);
		}
	return n_fds;
}

/* With uledsd's kmod (uleds_ext 1) fds go to systemd in batches of at most 253 (SCM_MAX_FD)
 * under one FDNAME, sent before READY=1 or in the next loop iteration; a queued LED freed before
 * that is not sent; an LED removed is dropped by name when its fd is no kmod fd (ENOTTY). */
#define N_STORE 300
static void test_store_batches(void)
{
	struct manager *m = new_manager();
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int peers[N_STORE + 1], sock, n1, n2, n3;
	struct led *leds[N_STORE + 1];
	char text[256], t1[256] = "", t2[256] = "";

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", tmpdir);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		exit(2);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	for (int i = 0; i <= N_STORE; i++) {
		char name[16];

		snprintf(name, sizeof(name), "st%03d", i);
		leds[i] = add_rec_led(m, name, &peers[i]);
	}
	fdstore_set_notify(m->fdstore, true);
	m->led_ctx.uleds_ext = 1;
	for (int i = 0; i < N_STORE; i++)
		fdstore_add(m->fdstore, leds[i]);
	CHECK_INT(recv_notify(sock, text, sizeof(text)), -1, "nothing sent before the flush");
	manager_remove_led(m, 0, true); /* st000: queued, never sent */
	fdstore_flush(m->fdstore);
	n1 = recv_notify(sock, t1, sizeof(t1));
	n2 = recv_notify(sock, t2, sizeof(t2));
	n3 = recv_notify(sock, text, sizeof(text));
	CHECK(n1 == 253 && n2 == N_STORE - 1 - 253 && n3 == -1,
	      "%d fds in two datagrams of 253 and %d: got %d, %d, %d", N_STORE - 1,
	      N_STORE - 1 - 253, n1, n2, n3);
	CHECK_STR(t1, "FDSTORE=1\nFDNAME=" FDSTORE_BATCH_NAME, "a batch's message");
	CHECK_STR(t2, "FDSTORE=1\nFDNAME=" FDSTORE_BATCH_NAME, "the second batch's message");

	fdstore_add(m->fdstore,
		    leds[N_STORE]); /* made later (CreateLED): sent by the next loop iteration */
	sd_event_run(m->event, 0);
	CHECK_INT(recv_notify(sock, text, sizeof(text)), 1, "a later LED's fd sent by the loop");

	/* A socketpair answers ULEDS_IOC_DEV_REMOVE with ENOTTY, as the in-tree driver does. */
	manager_remove_led(m, 0, true);
	CHECK_INT(recv_notify(sock, text, sizeof(text)), 0, "removal without the kmod: a message");
	CHECK_STR(text, "FDSTOREREMOVE=1\nFDNAME=st001", "FDSTOREREMOVE by the LED's name");

	m->led_ctx.uleds_ext = 0; /* in-tree uleds: each fd at once, under its LED's name */
	fdstore_add(m->fdstore, m->leds[0]);
	CHECK_INT(recv_notify(sock, text, sizeof(text)), 1, "in-tree: one fd a message, at once");
	CHECK_STR(text, "FDSTORE=1\nFDNAME=st002", "in-tree: FDNAME is the LED's name");

	fdstore_set_notify(m->fdstore, false);
	manager_free(m);
	unsetenv("NOTIFY_SOCKET");
	close(sock);
	for (int i = 0; i <= N_STORE; i++)
		close(peers[i]);
}

/* A backend whose status is described: no text kept, made again when asked, news only when
 * the text changes. */
static unsigned desc_line, desc_changes;

static int desc_attach(struct led_backend *b)
{
	led_backend_describe(b, LOG_DEBUG);
	return 0;
}

static void desc_text(const struct led_backend *b, char *buf, size_t size)
{
	snprintf(buf, size, "attached to line %u", desc_line);
}

static void desc_changed(struct led_backend *b, void *userdata)
{
	desc_changes++;
}

static const struct backend_ops desc_ops = {
    .name = "desc",
    .attach = desc_attach,
    .set = rec_set,
    .detach = rec_detach,
    .describe = desc_text,
};

static void test_described_status(void)
{
	const struct backend_context ctx = {.led_name = "d", .status_changed = desc_changed};
	_cleanup_(led_backend_freep) struct led_backend *b = NULL;
	char buf[64];

	CHECK_INT(led_backend_new(&desc_ops, "x.conf", 3, &b), 0, "a backend");
	desc_line = 5;
	CHECK_INT(led_backend_attach(b, &ctx), 0, "attached");
	CHECK(b->ok && !b->status, "working, and no text kept");
	CHECK_STR(led_backend_status(b, buf, sizeof(buf)), "attached to line 5", "made when asked");
	CHECK_INT(desc_changes, 1, "one piece of news");
	led_backend_describe(b, LOG_DEBUG);
	CHECK_INT(desc_changes, 1, "the same text again is no news");
	desc_line = 6;
	led_backend_describe(b, LOG_DEBUG);
	CHECK_INT(desc_changes, 2, "another text is");
	CHECK_STR(led_backend_status(b, buf, sizeof(buf)), "attached to line 6", "the new text");
	led_backend_report(b, false, LOG_DEBUG, NULL, "waiting for gpiochip3");
	CHECK(!b->ok, "a failure is kept as text");
	CHECK_STR(led_backend_status(b, buf, sizeof(buf)), "waiting for gpiochip3", "its text");
	led_backend_describe(b, LOG_DEBUG);
	CHECK(b->ok && !b->status && desc_changes == 4, "described again after it: news, no text");
}

int main(void)
{
	char p[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-led-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 2;
	snprintf(p, sizeof(p), "%s/sys", tmpdir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/conf", tmpdir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/uleds", tmpdir);
	mkdir(p, 0755);
	log_set_max_level(LOG_WARNING);
	TEST_CASE(test_forwarding);
	TEST_CASE(test_event_mode);
	TEST_CASE(test_reload);
	TEST_CASE(test_retry);
	TEST_CASE(test_direct_to_set);
	TEST_CASE(test_many);
	TEST_CASE(test_store_batches);
	TEST_CASE(test_described_status);
	snprintf(p, sizeof(p), "rm -rf %s", tmpdir);
	if (system(p) != 0)
		return 2;
	return test_finish("test-led");
}
