/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uleds-abi: conformance test of a /dev/uleds driver against the ABI of issue 5
 * (mainline <linux/uleds.h> plus the ioctls of kmod/uleds-ext.h).
 *
 * usage: uleds-abi [DEVICE]    (default /dev/uleds; run as root in the test VM,
 *                               with ledtrig-timer loaded)
 * Prints "ok N - what" or "not ok N - what: what differed" per check, then
 * "N passed, N failed"; exits 1 when any check failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/uleds-ext.h"
#include "uleds-abi.h"

#define MANY_LEDS 1000

const char *device = "/dev/uleds";
static int n_checks, n_failed;

/* check(cond, what, fmt, ...): one result line; fmt says what differed. */
bool check(bool cond, const char *what, const char *fmt, ...)
{
	va_list ap;

	n_checks++;
	if (cond) {
		printf("ok %d - %s\n", n_checks, what);
	} else {
		n_failed++;
		printf("not ok %d - %s: ", n_checks, what);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
	return cond;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

const char *err_name(int r)
{
	static char buf[64];

	if (r >= 0) {
		snprintf(buf, sizeof(buf), "success (%d)", r);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s",
		 strerrorname_np(-r) ? strerrorname_np(-r) : "unknown errno");
	return buf;
}

/* Fills a 64-byte name field: NUL-padded, unterminated only when SRC is 64+ long. */
void copy_name(char dst[LED_MAX_NAME_SIZE], const char *src)
{
	size_t n = 0;

	/* Not strnlen(): gcc's -Wstringop-overread takes the bound for the source's size when
	 * src is a short literal (seen in the -Db_sanitize build). */
	while (n < LED_MAX_NAME_SIZE && src[n])
		n++;
	memset(dst, 0, LED_MAX_NAME_SIZE);
	memcpy(dst, src, n);
}

int open_dev(int flags)
{
	int fd = open(device, O_RDWR | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

/* Registers through write(); returns the byte count or -errno. */
int setup_write(int fd, const char *name, int max_brightness)
{
	struct uleds_user_dev u = {.max_brightness = max_brightness};
	ssize_t n;

	copy_name(u.name, name);
	n = write(fd, &u, sizeof(u));
	return n < 0 ? -errno : (int)n;
}

int ioctl_setup(int fd, const char *name, int max_brightness)
{
	struct uleds_user_dev u = {.max_brightness = max_brightness};

	copy_name(u.name, name);
	return ioctl(fd, ULEDS_IOC_DEV_SETUP, &u) < 0 ? -errno : 0;
}

static int ioctl_trigger(int fd, const char *name)
{
	struct uleds_trigger t = {{0}};

	copy_name(t.name, name);
	return ioctl(fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 ? -errno : 0;
}

/* Opens and registers NAME; returns the fd or -errno. */
int new_led(const char *name, int max_brightness, int flags)
{
	int fd = open_dev(flags);
	int r;

	if (fd < 0)
		return fd;
	r = setup_write(fd, name, max_brightness);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* Reads one brightness; returns the byte count or -errno, the value in *value. */
int read_value(int fd, int *value)
{
	ssize_t n = read(fd, value, sizeof(*value));

	return n < 0 ? -errno : (int)n;
}

bool led_exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), LEDS_DIR "/%s", name);
	return access(path, F_OK) == 0;
}

int sysfs_write(const char *name, const char *attr, const char *value)
{
	char path[256];
	int fd, r = 0;

	snprintf(path, sizeof(path), LEDS_DIR "/%s/%s", name, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		r = -errno;
	close(fd);
	return r;
}

int sysfs_read(const char *name, const char *attr, char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), LEDS_DIR "/%s/%s", name, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Counts entries of /sys/class/leds starting with PREFIX ("" for all). */
int count_leds(const char *prefix)
{
	DIR *d = opendir(LEDS_DIR);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* --- a reader thread, for blocking reads ------------------------------------------- */

struct reader {
	pthread_t thread;
	int fd;
	int ret;
	int value;
	volatile bool done;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;

	rd->ret = read_value(rd->fd, &rd->value);
	rd->done = true;
	return NULL;
}

static void reader_start(struct reader *rd, int fd)
{
	*rd = (struct reader){.fd = fd};
	pthread_create(&rd->thread, NULL, reader_main, rd);
}

/* Waits up to MS for the reader; cancels it on timeout. Returns whether it finished. */
static bool reader_join(struct reader *rd, int ms)
{
	double end = now() + ms / 1000.0;

	while (!rd->done && now() < end)
		sleep_ms(5);
	if (!rd->done)
		pthread_cancel(rd->thread);
	pthread_join(rd->thread, NULL);
	return rd->done;
}

/* --- the checks ------------------------------------------------------------------- */

static void test_struct_and_ioctl_numbers(void)
{
	check(sizeof(struct uleds_user_dev) == 68, "struct uleds_user_dev is 68 bytes",
	      "sizeof is %zu", sizeof(struct uleds_user_dev));
	check(sizeof(struct uleds_trigger) == 64, "struct uleds_trigger is 64 bytes",
	      "sizeof is %zu", sizeof(struct uleds_trigger));
	check(ULEDS_IOC_DEV_SETUP == 0x40446c01, "ULEDS_IOC_DEV_SETUP is _IOW('l', 1, 68 bytes)",
	      "it is %#lx", (unsigned long)ULEDS_IOC_DEV_SETUP);
	check(ULEDS_IOC_SET_DEFAULT_TRIGGER == 0x40406c02,
	      "ULEDS_IOC_SET_DEFAULT_TRIGGER is _IOW('l', 2, 64 bytes)", "it is %#lx",
	      (unsigned long)ULEDS_IOC_SET_DEFAULT_TRIGGER);
}

static void test_open_and_bad_setup(void)
{
	char buf[sizeof(struct uleds_user_dev) + 1] = "abi-size";
	int before = count_leds(""), fd, value;
	ssize_t n;

	fd = open_dev(0);
	if (!check(fd >= 0, "open the device", "open(%s): %s", device, err_name(fd)))
		exit(1);
	check(count_leds("") == before, "open creates no LED", "%d LEDs before, %d after", before,
	      count_leds(""));

	n = read(fd, &value, sizeof(value));
	check(n < 0 && errno == ENODEV, "read before setup fails with ENODEV", "read gave %s",
	      err_name(n < 0 ? -errno : (int)n));

	n = write(fd, buf, sizeof(struct uleds_user_dev) - 1);
	check(n < 0 && errno == EINVAL, "write of sizeof-1 bytes fails with EINVAL", "got %s",
	      err_name(n < 0 ? -errno : (int)n));
	n = write(fd, buf, sizeof(buf));
	check(n < 0 && errno == EINVAL, "write of sizeof+1 bytes fails with EINVAL", "got %s",
	      err_name(n < 0 ? -errno : (int)n));

	n = setup_write(fd, "abi-max0", 0);
	check(n == -EINVAL, "max_brightness 0 fails with EINVAL", "got %s", err_name(n));
	n = setup_write(fd, "abi-maxneg", -1);
	check(n == -EINVAL, "max_brightness -1 fails with EINVAL", "got %s", err_name(n));
	check(!led_exists("abi-max0") && !led_exists("abi-maxneg"),
	      "a refused setup creates no LED", "an abi-max* LED exists");
	close(fd);
}

static void test_names(void)
{
	static const char *const bad[] = {"", ".", "..", "a/b", "/", "abi/"};
	struct uleds_user_dev u = {.max_brightness = 1};
	char name[LED_MAX_NAME_SIZE], what[128];
	int fd, r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fd = open_dev(0);
		r = setup_write(fd, bad[i], 1);
		snprintf(what, sizeof(what), "name \"%s\" fails with EINVAL", bad[i]);
		check(r == -EINVAL, what, "got %s", err_name(r));
		close(fd);
	}

	/* 64 bytes without a NUL: mainline accepts and truncates, the ABI refuses. */
	fd = open_dev(0);
	memset(u.name, 'n', sizeof(u.name));
	r = write(fd, &u, sizeof(u)) < 0 ? -errno : 0;
	check(r == -EINVAL, "name without NUL in 64 bytes fails with EINVAL", "got %s",
	      err_name(r));
	check(count_leds("nnnnnnnn") == 0, "the unterminated name created no LED",
	      "%d nnnn... LEDs exist", count_leds("nnnnnnnn"));
	close(fd);

	memset(name, 'm', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	fd = new_led(name, 1, 0);
	check(fd >= 0 && led_exists(name), "a 63-character name registers", "got %s", err_name(fd));
	if (fd >= 0)
		close(fd);

	fd = new_led("abi-dev:green:status", 1, 0);
	check(fd >= 0 && led_exists("abi-dev:green:status"),
	      "a devicename:color:function name registers", "got %s", err_name(fd));
	if (fd >= 0)
		close(fd);
}

static void test_setup_and_ebusy(void)
{
	char buf[64];
	int fd, r;

	fd = open_dev(0);
	r = setup_write(fd, "abi-busy", 42);
	check(r == (int)sizeof(struct uleds_user_dev), "write registers and returns sizeof",
	      "got %s", err_name(r));
	check(led_exists("abi-busy"), "the LED appears in " LEDS_DIR,
	      LEDS_DIR "/abi-busy is missing");
	r = sysfs_read("abi-busy", "max_brightness", buf, sizeof(buf));
	check(r == 0 && !strcmp(buf, "42"), "max_brightness is the one written",
	      "sysfs says \"%s\" (%s)", r ? "" : buf, err_name(r));

	r = setup_write(fd, "abi-busy2", 1);
	check(r == -EBUSY, "a second write on the same fd fails with EBUSY", "got %s", err_name(r));
	r = ioctl_setup(fd, "abi-busy3", 1);
	check(r == -EBUSY, "ULEDS_IOC_DEV_SETUP after setup fails with EBUSY", "got %s",
	      err_name(r));
	check(!led_exists("abi-busy2") && !led_exists("abi-busy3"),
	      "the refused setups created no LED", "abi-busy2 or abi-busy3 exists");

	check(lseek(fd, 0, SEEK_SET) < 0 && errno == ESPIPE, "lseek fails with ESPIPE",
	      "lseek gave %s", lseek(fd, 0, SEEK_SET) < 0 ? strerrorname_np(errno) : "success");

	close(fd);
	check(!led_exists("abi-busy"), "close removes the LED", LEDS_DIR "/abi-busy still exists");
}

static void test_name_clash(void)
{
	int a, b, r;

	a = new_led("abi-clash", 1, 0);
	check(a >= 0, "register abi-clash", "got %s", err_name(a));
	b = open_dev(0);
	r = setup_write(b, "abi-clash", 1);
	check(r == -EEXIST, "the same name on another fd fails with EEXIST", "got %s", err_name(r));
	check(!led_exists("abi-clash_1") && count_leds("abi-clash") == 1, "no abi-clash_1 appears",
	      "%d abi-clash* LEDs exist", count_leds("abi-clash"));
	r = setup_write(b, "abi-clash-other", 1);
	check(r == (int)sizeof(struct uleds_user_dev),
	      "the fd refused with EEXIST registers another name", "got %s", err_name(r));
	close(b);
	close(a);

	/* The name is free again once its LED is gone. */
	a = new_led("abi-clash", 1, 0);
	check(a >= 0, "a name is reusable after its fd is closed", "got %s", err_name(a));
	if (a >= 0)
		close(a);
}

struct racer {
	pthread_barrier_t *barrier;
	int fd;
	int ret;
};

static void *racer_main(void *arg)
{
	struct racer *rc = arg;

	pthread_barrier_wait(rc->barrier);
	rc->ret = setup_write(rc->fd, "abi-race", 1);
	return NULL;
}

/* Threads registering one name at once: exactly one wins, the others get EEXIST. */
static void test_name_race(void)
{
	enum { RACERS = 8, ROUNDS = 20 };
	struct racer racers[RACERS];
	pthread_t threads[RACERS];
	pthread_barrier_t barrier;
	int round, i, wins, clashes, other = 0, bad_rounds = 0, renamed = 0;

	pthread_barrier_init(&barrier, NULL, RACERS);
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < RACERS; i++) {
			racers[i] = (struct racer){.barrier = &barrier, .fd = open_dev(0)};
			pthread_create(&threads[i], NULL, racer_main, &racers[i]);
		}
		wins = clashes = 0;
		for (i = 0; i < RACERS; i++) {
			pthread_join(threads[i], NULL);
			if (racers[i].ret == (int)sizeof(struct uleds_user_dev))
				wins++;
			else if (racers[i].ret == -EEXIST)
				clashes++;
			else if (!other)
				other = racers[i].ret;
		}
		if (wins != 1 || clashes != RACERS - 1)
			bad_rounds++;
		if (count_leds("abi-race") != 1)
			renamed++;
		for (i = 0; i < RACERS; i++)
			close(racers[i].fd);
	}
	pthread_barrier_destroy(&barrier);
	check(!bad_rounds, "8 threads racing for one name: one wins, 7 get EEXIST",
	      "%d of %d rounds differed (first other result: %s)", bad_rounds, ROUNDS,
	      err_name(other));
	check(!renamed, "the name race leaves exactly one abi-race LED",
	      "%d of %d rounds had another count", renamed, ROUNDS);
}

static void test_reads(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	struct pollfd pfd;
	struct reader rd;
	char small[2];
	double t;
	int fd, ep, value = -1, r;

	fd = new_led("abi-read", 10, O_NONBLOCK);
	if (!check(fd >= 0, "register abi-read", "got %s", err_name(fd)))
		return;

	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	r = poll(&pfd, 1, 0);
	check(r == 1 && (pfd.revents & POLLIN), "poll reports the initial value at once",
	      "poll returned %d, revents %#x", r, pfd.revents);
	r = read_value(fd, &value);
	check(r == sizeof(int) && value == 0, "the first read returns 0 at once",
	      "read gave %s, value %d", err_name(r), value);
	r = read_value(fd, &value);
	check(r == -EAGAIN, "a second read with O_NONBLOCK fails with EAGAIN", "got %s",
	      err_name(r));
	r = read(fd, small, sizeof(small)) < 0 ? -errno : 0;
	check(r == -EINVAL, "a read into fewer than sizeof(int) bytes fails with EINVAL", "got %s",
	      err_name(r));

	r = poll(&pfd, 1, 0);
	check(r == 0, "poll reports nothing without a change", "poll returned %d, revents %#x", r,
	      pfd.revents);
	sysfs_write("abi-read", "brightness", "5");
	r = poll(&pfd, 1, 2000);
	check(r == 1 && (pfd.revents & POLLIN), "poll wakes up on a sysfs brightness write",
	      "poll returned %d, revents %#x", r, pfd.revents);
	r = read_value(fd, &value);
	check(r == sizeof(int) && value == 5, "the read after the wakeup returns 5",
	      "read gave %s, value %d", err_name(r), value);

	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	sysfs_write("abi-read", "brightness", "1000");
	r = epoll_wait(ep, &out, 1, 2000);
	check(r == 1 && (out.events & EPOLLIN), "epoll wakes up on a sysfs brightness write",
	      "epoll_wait returned %d", r);
	close(ep);
	r = read_value(fd, &value);
	check(r == sizeof(int) && value == 10, "brightness 1000 is clamped to max_brightness 10",
	      "read gave %s, value %d", err_name(r), value);
	close(fd);

	/* Blocking read: the thread sleeps until sysfs changes the brightness. */
	fd = new_led("abi-block", 255, 0);
	read_value(fd, &value);
	reader_start(&rd, fd);
	sleep_ms(200);
	check(!rd.done, "a blocking read waits while nothing changes", "read returned %s",
	      err_name(rd.ret));
	t = now();
	sysfs_write("abi-block", "brightness", "7");
	reader_join(&rd, 2000);
	check(rd.done && rd.ret == sizeof(int) && rd.value == 7,
	      "the blocked read returns 7 after the sysfs write", "done %d, read gave %s, value %d",
	      rd.done, err_name(rd.ret), rd.value);
	printf("# blocked read woke after %.1f ms\n", (now() - t) * 1000);

	/* Writing the same value again is no change: nothing to read. */
	sysfs_write("abi-block", "brightness", "7");
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	r = poll(&pfd, 1, 100);
	check(r == 0, "rewriting the same brightness wakes nobody", "poll returned %d", r);
	close(fd);
}

static void test_close_while_reading(void)
{
	struct reader rd;
	double t;
	int fd, value;

	fd = new_led("abi-closing", 1, 0);
	if (!check(fd >= 0, "register abi-closing", "got %s", err_name(fd)))
		return;
	read_value(fd, &value);
	reader_start(&rd, fd);
	sleep_ms(100);

	t = now();
	close(fd);
	check(now() - t < 1.0, "close from another thread returns while a read blocks",
	      "close took %.2f s", now() - t);

	/*
	 * The blocked read() holds its own reference to the file: the LED lives until
	 * it returns. A change wakes it; then the last reference goes and the LED too.
	 */
	sleep_ms(100);
	if (!rd.done)
		sysfs_write("abi-closing", "brightness", "1");
	reader_join(&rd, 2000);
	check(rd.done, "the reader of a closed fd returns", "still blocked after 2 s");
	for (t = now(); led_exists("abi-closing") && now() - t < 2.0;)
		sleep_ms(10);
	check(!led_exists("abi-closing"), "the LED is gone once the reader returned",
	      LEDS_DIR "/abi-closing still exists");
}

static void test_many(void)
{
	struct rlimit rl = {MANY_LEDS + 64, MANY_LEDS + 64};
	static int fds[MANY_LEDS];
	char name[32];
	int i, failed = 0, first_err = 0, n, value;
	double t;

	if (!check(setrlimit(RLIMIT_NOFILE, &rl) == 0, "raise RLIMIT_NOFILE", "setrlimit: %s",
		   strerrorname_np(errno)))
		return;

	t = now();
	for (i = 0; i < MANY_LEDS; i++) {
		snprintf(name, sizeof(name), "abi-many-%d", i);
		fds[i] = new_led(name, 1, O_NONBLOCK);
		if (fds[i] < 0 && !failed++)
			first_err = fds[i];
	}
	printf("# registered %d LEDs in %.2f s\n", MANY_LEDS - failed, now() - t);
	check(!failed, "1000 LEDs register at once", "%d failed, first with %s", failed,
	      err_name(first_err));
	n = count_leds("abi-many-");
	check(n == MANY_LEDS, "1000 LEDs appear in " LEDS_DIR, "%d appear", n);

	for (i = 0, failed = 0; i < MANY_LEDS; i++)
		if (fds[i] >= 0 && read_value(fds[i], &value) != sizeof(int))
			failed++;
	check(!failed, "each of the 1000 fds reads its first value", "%d did not", failed);

	t = now();
	for (i = 0; i < MANY_LEDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("# removed them in %.2f s\n", now() - t);
	n = count_leds("abi-many-");
	check(n == 0, "closing the 1000 fds removes the 1000 LEDs", "%d remain", n);
}

/* Reads until COUNT changes arrived or MS passed; returns the changes seen. */
static int read_changes(int fd, int count, int ms, int *zeros, int *nonzeros)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	double end = now() + ms / 1000.0;
	int seen = 0, value;

	*zeros = *nonzeros = 0;
	while (seen < count && now() < end) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		if (read_value(fd, &value) != sizeof(int))
			break;
		seen++;
		if (value)
			(*nonzeros)++;
		else
			(*zeros)++;
	}
	return seen;
}

static bool trigger_is(const char *led, const char *trigger)
{
	char buf[4096], want[80];

	snprintf(want, sizeof(want), "[%s]", trigger);
	return sysfs_read(led, "trigger", buf, sizeof(buf)) == 0 && strstr(buf, want);
}

static const char *current_trigger(const char *led)
{
	static char buf[4096];
	char *s, *e;

	if (sysfs_read(led, "trigger", buf, sizeof(buf)))
		return "(unreadable)";
	s = strchr(buf, '[');
	e = s ? strchr(s, ']') : NULL;
	if (!e)
		return "(none marked)";
	e[1] = '\0';
	return s;
}

static void test_timer_trigger(void)
{
	int fd, value, n, zeros, nonzeros, r;

	fd = new_led("abi-timer", 3, O_NONBLOCK);
	if (!check(fd >= 0, "register abi-timer", "got %s", err_name(fd)))
		return;
	read_value(fd, &value);
	r = sysfs_write("abi-timer", "trigger", "timer");
	check(r == 0 && trigger_is("abi-timer", "timer"), "the timer trigger attaches via sysfs",
	      "write gave %s, trigger is %s (is ledtrig-timer loaded?)", err_name(r),
	      current_trigger("abi-timer"));
	sysfs_write("abi-timer", "delay_on", "20");
	sysfs_write("abi-timer", "delay_off", "20");
	n = read_changes(fd, 6, 3000, &zeros, &nonzeros);
	check(n == 6 && zeros >= 2 && nonzeros >= 2, "the timer trigger's blinking is read",
	      "%d changes in 3 s (%d off, %d on)", n, zeros, nonzeros);
	close(fd);
}

static void test_ioctls(void)
{
	static const char *const bad[] = {"", "default"};
	static const char *const shown[] = {"", "default"};
	char what[128], buf[64];
	int fd, r, value, zeros, nonzeros, n;
	size_t i;
	double t;

	fd = open_dev(0);
	r = ioctl_setup(fd, "abi-ioctl", 9);
	check(r == 0, "ULEDS_IOC_DEV_SETUP registers and returns 0", "got %s", err_name(r));
	r = sysfs_read("abi-ioctl", "max_brightness", buf, sizeof(buf));
	check(r == 0 && !strcmp(buf, "9"), "the ioctl-registered LED has max_brightness 9",
	      "sysfs says \"%s\" (%s)", r ? "" : buf, err_name(r));
	r = read_value(fd, &value);
	check(r == sizeof(int) && value == 0, "the ioctl-registered LED reads 0 at first",
	      "read gave %s, value %d", err_name(r), value);
	close(fd);
	check(!led_exists("abi-ioctl"), "close removes the ioctl-registered LED",
	      "abi-ioctl still exists");

	fd = open_dev(0);
	r = ioctl_setup(fd, "..", 9);
	check(r == -EINVAL, "ULEDS_IOC_DEV_SETUP validates names like write()", "got %s",
	      err_name(r));
	r = ioctl_setup(fd, "abi-ioctl0", 0);
	check(r == -EINVAL, "ULEDS_IOC_DEV_SETUP refuses max_brightness 0", "got %s", err_name(r));

	r = ioctl(fd, _IO('l', 3)) < 0 ? -errno : 0;
	check(r == -ENOTTY, "an unknown ioctl fails with ENOTTY", "got %s", err_name(r));
	r = ioctl(fd, _IOW('l', 1, int), &value) < 0 ? -errno : 0;
	check(r == -ENOTTY, "ioctl 1 with a wrong size fails with ENOTTY", "got %s", err_name(r));
	r = ioctl(fd, _IOR('l', 2, struct uleds_trigger), buf) < 0 ? -errno : 0;
	check(r == -ENOTTY, "ioctl 2 with a wrong direction fails with ENOTTY", "got %s",
	      err_name(r));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = ioctl_trigger(fd, bad[i]);
		snprintf(what, sizeof(what), "trigger name \"%s\" fails with EINVAL", shown[i]);
		check(r == -EINVAL, what, "got %s", err_name(r));
	}
	{
		struct uleds_trigger tr;

		memset(tr.name, 't', sizeof(tr.name));
		r = ioctl(fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &tr) < 0 ? -errno : 0;
		check(r == -EINVAL, "a trigger name without NUL fails with EINVAL", "got %s",
		      err_name(r));
	}

	/* Before the setup: the default trigger, there from the first moment. */
	r = ioctl_trigger(fd, "timer");
	check(r == 0, "SET_DEFAULT_TRIGGER before setup succeeds", "got %s", err_name(r));
	r = setup_write(fd, "abi-deftrig", 1);
	check(r == (int)sizeof(struct uleds_user_dev), "register abi-deftrig", "got %s",
	      err_name(r));
	check(trigger_is("abi-deftrig", "timer"),
	      "the trigger file shows [timer] right after registration", "trigger is %s",
	      current_trigger("abi-deftrig"));
	sysfs_write("abi-deftrig", "delay_on", "20");
	sysfs_write("abi-deftrig", "delay_off", "20");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	n = read_changes(fd, 5, 3000, &zeros, &nonzeros);
	check(n == 5 && nonzeros >= 1 && zeros >= 1, "the default timer trigger blinks",
	      "%d changes in 3 s (%d off, %d on)", n, zeros, nonzeros);

	/* After the setup: set at once. */
	r = ioctl_trigger(fd, "none");
	check(r == 0 && trigger_is("abi-deftrig", "none"),
	      "SET_DEFAULT_TRIGGER \"none\" after setup detaches at once",
	      "ioctl gave %s, trigger is %s", err_name(r), current_trigger("abi-deftrig"));
	close(fd);

	fd = new_led("abi-latetrig", 1, 0);
	check(trigger_is("abi-latetrig", "none"), "a new LED without default trigger has none",
	      "trigger is %s", current_trigger("abi-latetrig"));
	r = ioctl_trigger(fd, "timer");
	check(r == 0 && trigger_is("abi-latetrig", "timer"),
	      "SET_DEFAULT_TRIGGER after setup attaches timer at once",
	      "ioctl gave %s, trigger is %s", err_name(r), current_trigger("abi-latetrig"));
	r = ioctl_trigger(fd, "default");
	check(r == -EINVAL && trigger_is("abi-latetrig", "timer"),
	      "\"default\" after setup fails with EINVAL and keeps the trigger",
	      "ioctl gave %s, trigger is %s", err_name(r), current_trigger("abi-latetrig"));
	close(fd);

	/*
	 * A trigger whose module is not loaded yet is attached when it registers.
	 * ledtrig-camera (triggers "flash" and "torch") has no module alias: nothing
	 * loads it before we do.
	 */
	if (access("/sys/module/ledtrig_camera", F_OK) == 0)
		printf("# ledtrig-camera is already loaded: the next check is not a late attach\n");
	fd = open_dev(0);
	ioctl_trigger(fd, "torch");
	r = setup_write(fd, "abi-latemod", 1);
	check(r == (int)sizeof(struct uleds_user_dev), "register abi-latemod", "got %s",
	      err_name(r));
	r = system("modprobe ledtrig-camera");
	for (t = now(); !trigger_is("abi-latemod", "torch") && now() - t < 3.0;)
		sleep_ms(20);
	check(trigger_is("abi-latemod", "torch"),
	      "a default trigger is attached when its module registers later",
	      "trigger is %s (modprobe ledtrig-camera exited %d)", current_trigger("abi-latemod"),
	      r);
	close(fd);
}

static int module_refcnt(void)
{
	char buf[32];
	FILE *f = fopen("/sys/module/uleds/refcnt", "re");
	int n = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		n = atoi(buf);
	fclose(f);
	return n;
}

/* Real trigger names contain ':' and '.': every name the LED core can register is accepted. */
static void test_trigger_names(void)
{
	static const char *const good[] = {"hid-00:11:22:33:44:55-battery-charging",
					   "BAT0-charging-or-full",
					   "mmc0",
					   "a.b:c",
					   "ti mer",
					   "tïmer"};
	char what[160], long_name[LED_MAX_NAME_SIZE];
	size_t i;
	int fd, r;

	fd = open_dev(0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		r = ioctl_trigger(fd, good[i]);
		snprintf(what, sizeof(what), "trigger name \"%s\" is accepted before setup",
			 good[i]);
		check(r == 0, what, "got %s", err_name(r));
	}
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	r = ioctl_trigger(fd, long_name);
	check(r == 0, "a 63-byte trigger name is accepted", "got %s", err_name(r));

	r = ioctl_trigger(fd, "hid-00:11:22:33:44:55-battery-charging");
	r = r ? r : ioctl_setup(fd, "abi-hidtrig", 1);
	check(r == 0 && trigger_is("abi-hidtrig", "none"),
	      "an LED whose default trigger is not registered has none",
	      "setup gave %s, trigger is %s", err_name(r), current_trigger("abi-hidtrig"));
	r = ioctl_trigger(fd, "a.b:c");
	check(r == 0, "a name with '.' and ':' is accepted after setup", "got %s", err_name(r));
	close(fd);
}

/*
 * The core tries NAME_1 on a clash, which does not fit after a name of 62 or 63 bytes:
 * the answer must still be EEXIST, never ENOMEM.
 */
static void test_long_name_clash(void)
{
	char name[LED_MAX_NAME_SIZE], what[128];
	size_t len;
	int a, b;

	for (len = 61; len <= 63; len++) {
		memset(name, 0, sizeof(name));
		memcpy(name, "abi-long-", 9);
		memset(name + 9, 'n', len - 9);
		a = new_led(name, 1, 0);
		b = new_led(name, 1, 0);
		snprintf(what, sizeof(what), "a clashing %zu-byte name fails with EEXIST", len);
		check(a >= 0 && b == -EEXIST, what, "first %s, second %s", err_name(a),
		      err_name(b));
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
	}
	check(count_leds("abi-long-") == 0, "the long-name clashes leave no LED",
	      "%d abi-long-* LEDs remain", count_leds("abi-long-"));
}

/*
 * After setup the ioctl replaces the trigger in one step: whatever was attached (by the
 * ioctl, by sysfs, by a module registering) is gone and the new one is there.
 */
static void test_trigger_replace(void)
{
	int fd, r, i, bad = 0;

	fd = new_led("abi-replace", 1, 0);
	if (!check(fd >= 0, "register abi-replace", "got %s", err_name(fd)))
		return;
	for (i = 0; i < 20; i++) {
		r = ioctl_trigger(fd, i % 2 ? "heartbeat" : "timer");
		if (r || !trigger_is("abi-replace", i % 2 ? "heartbeat" : "timer"))
			bad++;
		sysfs_write("abi-replace", "trigger", i % 2 ? "timer" : "heartbeat");
		r = ioctl_trigger(fd, "none");
		if (r || !trigger_is("abi-replace", "none"))
			bad++;
	}
	check(!bad, "trigger ioctls after setup always leave exactly the trigger asked for",
	      "%d of 40 ioctls left another trigger", bad);
	close(fd);
}

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * An ioctl naming a trigger that is not registered must not start a modprobe each time.
 * The guest script points /proc/sys/kernel/modprobe at a wrapper that logs each call to
 * $ULEDS_ABI_MODPROBE_LOG.
 */
static void test_missing_trigger_modprobe(void)
{
	const char *log = getenv("ULEDS_ABI_MODPROBE_LOG");
	long before, after;
	int fd, i, r, fails = 0;

	if (!log) {
		check(false, "modprobe log for the missing-trigger check",
		      "ULEDS_ABI_MODPROBE_LOG "
		      "is not set: run uleds-abi through test-uleds-abi.sh");
		return;
	}
	fd = new_led("abi-missing", 1, 0);
	if (!check(fd >= 0, "register abi-missing", "got %s", err_name(fd)))
		return;
	before = count_lines(log);
	for (i = 0; i < 50; i++) {
		r = ioctl_trigger(fd, "uleds-abi-no-such-trigger");
		fails += r != 0;
	}
	sleep_ms(1500); /* request_module_nowait() runs modprobe asynchronously */
	after = count_lines(log);
	check(!fails && before >= 0 && after - before <= 2,
	      "50 ioctls naming a missing trigger start at most 2 modprobes",
	      "%d ioctls failed, %ld modprobe calls", fails, after - before);
	close(fd);
}

/* --- event mode (ULEDS_IOC_SET_EVENT_MODE) ----------------------------------------------- */

int event_mode(int fd, unsigned int ring_size, unsigned int flags)
{
	struct uleds_event_mode m = {.ring_size = ring_size, .flags = flags};
	int r = ioctl(fd, ULEDS_IOC_SET_EVENT_MODE, &m);

	return r < 0 ? -errno : r;
}

/* Reads every record waiting (the fd is O_NONBLOCK) into ev[], at most max. */
int read_events(int fd, struct uleds_event *ev, int max)
{
	int n = 0;
	ssize_t r;

	while (n < max) {
		r = read(fd, ev + n, (size_t)(max - n) * sizeof(*ev));
		if (r <= 0)
			break;
		n += r / sizeof(*ev);
	}
	return n;
}

/* Opens an LED in event mode with a ring of RING records; returns the fd or -errno. */
int new_event_led(const char *name, unsigned int ring, unsigned int flags)
{
	int fd = open_dev(O_NONBLOCK), r;

	if (fd < 0)
		return fd;
	r = event_mode(fd, ring, flags);
	if (r != (int)sizeof(struct uleds_event)) {
		close(fd);
		return r < 0 ? r : -EPROTO;
	}
	r = ioctl_setup(fd, name, 255);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static void test_event_mode_basics(void)
{
	struct uleds_event ev[4];
	int fd, r;
	char small[sizeof(struct uleds_event) - 1];

	check(sizeof(struct uleds_event) == 80 && sizeof(struct uleds_event_mode) == 8,
	      "struct uleds_event is 80 bytes, uleds_event_mode 8 (same on 32 and 64 bit)",
	      "%zu and %zu bytes", sizeof(struct uleds_event), sizeof(struct uleds_event_mode));
	check(ULEDS_IOC_SET_EVENT_MODE == 0x40086c03, "ULEDS_IOC_SET_EVENT_MODE is _IOW('l', 3, 8)",
	      "it is %#lx", (unsigned long)ULEDS_IOC_SET_EVENT_MODE);

	fd = open_dev(O_NONBLOCK);
	r = event_mode(fd, 65537, 0);
	check(r == -EINVAL, "a ring of 65537 records fails with EINVAL", "got %s", err_name(r));
	r = event_mode(fd, 16, 0x80);
	check(r == -EINVAL, "unknown event-mode flags fail with EINVAL", "got %s", err_name(r));
	r = event_mode(fd, 0, 0);
	check(r == (int)sizeof(struct uleds_event), "event mode returns the record size", "got %s",
	      err_name(r));
	r = read(fd, ev, sizeof(ev)) < 0 ? -errno : 0;
	check(r == -ENODEV, "an event-mode read before setup fails with ENODEV", "got %s",
	      err_name(r));
	r = ioctl_setup(fd, "abi-ev-basic", 255);
	check(r == 0, "register abi-ev-basic in event mode", "got %s", err_name(r));
	r = read(fd, ev, sizeof(ev)) < 0 ? -errno : 0;
	check(r == -EAGAIN, "an event-mode LED has no record before the first change", "got %s",
	      err_name(r));
	sysfs_write("abi-ev-basic", "brightness", "7");
	sysfs_write("abi-ev-basic", "brightness", "7");
	r = read(fd, small, sizeof(small)) < 0 ? -errno : 0;
	check(r == -EINVAL, "a read into less than one record fails with EINVAL", "got %s",
	      err_name(r));
	r = read_events(fd, ev, 4);
	check(r == 2 && ev[0].type == ULEDS_EVENT_BRIGHTNESS && ev[0].brightness == 7 &&
		  ev[1].brightness == 7 && ev[1].seq == ev[0].seq + 1,
	      "an equal value written twice gives two records", "%d records", r);
	r = event_mode(fd, 16, ULEDS_EVENT_F_BLINK);
	check(r == -EBUSY, "blink offload after setup fails with EBUSY", "got %s", err_name(r));
	close(fd);

	/* Latest-value mode first, event mode after setup. */
	fd = new_led("abi-ev-late", 255, O_NONBLOCK);
	read_value(fd, &r);
	r = event_mode(fd, 8, 0);
	sysfs_write("abi-ev-late", "brightness", "9");
	r = read_events(fd, ev, 4);
	check(r == 1 && ev[0].brightness == 9, "event mode switched on after setup records",
	      "%d records, first %d", r, r > 0 ? ev[0].brightness : -1);
	close(fd);
}

/* 10 000 changes, all kept in order with consecutive sequence numbers. */
static void test_event_burst(void)
{
	enum { N = 10000 };
	struct uleds_event *ev = calloc(N + 16, sizeof(*ev));
	int fd, i, n, bad_order = 0, bad_value = 0;
	char val[16];

	fd = new_event_led("abi-ev-burst", N + 100, 0);
	if (!check(fd >= 0 && ev, "register abi-ev-burst in event mode", "got %s", err_name(fd)))
		goto out;
	for (i = 0; i < N; i++) {
		snprintf(val, sizeof(val), "%d", 1 + i % 250);
		sysfs_write("abi-ev-burst", "brightness", val);
	}
	n = read_events(fd, ev, N + 16);
	for (i = 0; i < n; i++) {
		if (ev[i].brightness != 1 + i % 250 || ev[i].lost || ev[i].type != 1)
			bad_value++;
		if (i && (ev[i].seq != ev[i - 1].seq + 1 ||
			  ev[i].timestamp_ns < ev[i - 1].timestamp_ns ||
			  ev[i].boottime_ns < ev[i - 1].boottime_ns))
			bad_order++;
	}
	check(n == N && !bad_value && !bad_order,
	      "a burst of 10000 changes arrives whole, in order, timestamps monotonic",
	      "%d records, %d wrong values, %d out of order", n, bad_value, bad_order);
	close(fd);
out:
	free(ev);
}

/* A ring of 16 after 100 changes: the newest 16, the first telling 84 were lost. */
static void test_event_overflow(void)
{
	struct uleds_event ev[32];
	char val[16];
	int fd, i, n;

	fd = new_event_led("abi-ev-over", 16, 0);
	if (!check(fd >= 0, "register abi-ev-over", "got %s", err_name(fd)))
		return;
	for (i = 1; i <= 100; i++) {
		snprintf(val, sizeof(val), "%d", i);
		sysfs_write("abi-ev-over", "brightness", val);
	}
	n = read_events(fd, ev, 32);
	check(n == 16 && ev[0].lost == 84 && ev[0].brightness == 85 && ev[15].brightness == 100 &&
		  ev[1].lost == 0 && ev[0].seq == 85,
	      "overflow keeps the newest records and the next one counts the lost",
	      "%d records, first: lost %u, value %d, seq %llu", n, n ? ev[0].lost : 0,
	      n ? ev[0].brightness : -1, n ? (unsigned long long)ev[0].seq : 0ULL);

	/* dup'd fds share the ring: what one reads, the other does not see. */
	{
		int d = dup(fd), a, b;

		for (i = 1; i <= 6; i++)
			sysfs_write("abi-ev-over", "brightness", i % 2 ? "1" : "2");
		a = (int)(read(fd, ev, 3 * sizeof(*ev)) / (ssize_t)sizeof(*ev));
		b = read_events(d, ev + 3, 8);
		check(a == 3 && b == 3 && ev[3].seq == ev[2].seq + 1,
		      "a dup'd fd shares one ring: its read continues where the other stopped",
		      "read %d and %d records", a, b);
		close(d);
	}
	close(fd);
}

/* Blink offload: the timer trigger hands over its delays instead of toggling. */
static void test_event_blink(void)
{
	struct uleds_event ev[64];
	int fd, n, i, blinks = 0, toggles = 0;
	char buf[32];

	fd = new_event_led("abi-ev-blink", 64, ULEDS_EVENT_F_BLINK);
	if (!check(fd >= 0, "register abi-ev-blink with blink offload", "got %s", err_name(fd)))
		return;
	sysfs_write("abi-ev-blink", "trigger", "timer");
	sleep_ms(300);
	n = read_events(fd, ev, 64);
	for (i = 0; i < n; i++) {
		if (ev[i].type == ULEDS_EVENT_BLINK)
			blinks++;
		else if (ev[i].brightness)
			toggles++;
	}
	check(blinks >= 1 && ev[n - 1].type == ULEDS_EVENT_BLINK && ev[n - 1].delay_on_ms == 500 &&
		  ev[n - 1].delay_off_ms == 500 && ev[n - 1].brightness == 255 && !toggles,
	      "the timer trigger hands over one blink record, 500/500 ms by default",
	      "%d records, %d blink, %d on-toggles", n, blinks, toggles);
	check(sysfs_read("abi-ev-blink", "delay_on", buf, sizeof(buf)) == 0 && !strcmp(buf, "500"),
	      "the driver's default delays are written back to delay_on", "delay_on is %s", buf);
	sysfs_write("abi-ev-blink", "delay_on", "100");
	n = read_events(fd, ev, 64);
	check(n >= 1 && ev[n - 1].type == ULEDS_EVENT_BLINK && ev[n - 1].delay_on_ms == 100 &&
		  ev[n - 1].delay_off_ms == 500,
	      "a delay_on write gives a new blink record 100/500", "%d records, last type %d %u/%u",
	      n, n ? ev[n - 1].type : 0, n ? ev[n - 1].delay_on_ms : 0,
	      n ? ev[n - 1].delay_off_ms : 0);
	sysfs_write("abi-ev-blink", "brightness", "0");
	n = read_events(fd, ev, 64);
	check(n >= 1 && ev[n - 1].type == ULEDS_EVENT_BRIGHTNESS && ev[n - 1].brightness == 0,
	      "brightness 0 ends the blinking with a brightness record", "%d records", n);
	close(fd);
}

/* --- multicolour (ULEDS_IOC_SET_MULTICOLOR) ----------------------------------------------- */

static int set_multicolor(int fd, unsigned int n, const unsigned int *colors)
{
	struct uleds_multicolor m = {.n_channels = n};
	unsigned int i;

	for (i = 0; i < n && i < ULEDS_MAX_CHANNELS; i++)
		m.color[i] = colors[i];
	return ioctl(fd, ULEDS_IOC_SET_MULTICOLOR, &m) < 0 ? -errno : 0;
}

static void test_multicolor(void)
{
	static const unsigned int rgb[] = {ULEDS_COLOR_RED, ULEDS_COLOR_GREEN, ULEDS_COLOR_BLUE};
	static const unsigned int bad[] = {ULEDS_COLOR_RED, ULEDS_COLOR_MAX};
	int v[4], fd, r, n;
	struct uleds_event ev[8];
	char buf[128];

	check(sizeof(struct uleds_multicolor) == 36 && ULEDS_IOC_SET_MULTICOLOR == 0x40246c04,
	      "struct uleds_multicolor is 36 bytes, ULEDS_IOC_SET_MULTICOLOR _IOW('l', 4, 36)",
	      "%zu bytes, %#lx", sizeof(struct uleds_multicolor),
	      (unsigned long)ULEDS_IOC_SET_MULTICOLOR);

	fd = open_dev(O_NONBLOCK);
	r = set_multicolor(fd, 0, rgb);
	check(r == -EINVAL, "a multicolour LED of 0 channels fails with EINVAL", "got %s",
	      err_name(r));
	r = set_multicolor(fd, ULEDS_MAX_CHANNELS + 1, rgb);
	check(r == -EINVAL, "more than ULEDS_MAX_CHANNELS channels fail with EINVAL", "got %s",
	      err_name(r));
	r = set_multicolor(fd, 2, bad);
	check(r == -EINVAL, "a colour id >= ULEDS_COLOR_MAX fails with EINVAL", "got %s",
	      err_name(r));
	r = set_multicolor(fd, 3, rgb);
	check(r == 0, "a red-green-blue LED is accepted before setup", "got %s", err_name(r));
	r = ioctl_setup(fd, "abi-mc:rgb:status", 255);
	check(r == 0, "register the multicolour LED", "got %s", err_name(r));
	r = sysfs_read("abi-mc:rgb:status", "multi_index", buf, sizeof(buf));
	check(r == 0 && !strcmp(buf, "red green blue"), "multi_index says red green blue",
	      "it says \"%s\" (%s)", r ? "" : buf, err_name(r));
	r = sysfs_read("abi-mc:rgb:status", "multi_intensity", buf, sizeof(buf));
	check(r == 0 && !strcmp(buf, "255 255 255"), "every channel starts at max_brightness",
	      "multi_intensity is \"%s\"", r ? "" : buf);
	r = read(fd, v, sizeof(v));
	check(r == 16 && v[0] == 0 && v[1] == 255 && v[3] == 255,
	      "the first read returns brightness and 3 intensities (16 bytes)",
	      "read gave %d bytes: %d %d %d %d", r, v[0], v[1], v[2], v[3]);

	sysfs_write("abi-mc:rgb:status", "multi_intensity", "10 20 300");
	r = read(fd, v, sizeof(v));
	check(r == 16 && v[0] == 0 && v[1] == 10 && v[2] == 20 && v[3] == 255,
	      "an intensity-only change is reported, clamped to max_brightness",
	      "read gave %d bytes: %d %d %d %d", r, v[0], v[1], v[2], v[3]);
	sysfs_write("abi-mc:rgb:status", "multi_intensity", "10 20 300");
	r = read(fd, v, sizeof(v)) < 0 ? -errno : 0;
	check(r == -EAGAIN, "rewriting the same intensities is no change", "got %s", err_name(r));
	sysfs_write("abi-mc:rgb:status", "brightness", "128");
	r = read(fd, v, sizeof(int));
	check(r == 4 && v[0] == 128, "an int-sized read gets the brightness alone (mainline)",
	      "read gave %d bytes, %d", r, v[0]);
	r = set_multicolor(fd, 3, rgb);
	check(r == -EBUSY, "making an LED multicolour after setup fails with EBUSY", "got %s",
	      err_name(r));
	close(fd);

	/* Event mode: the intensities travel in the record. */
	fd = open_dev(O_NONBLOCK);
	set_multicolor(fd, 3, rgb);
	fd = fd >= 0 && event_mode(fd, 16, 0) > 0 && ioctl_setup(fd, "abi-mc-ev", 100) == 0 ? fd
											    : -1;
	if (!check(fd >= 0, "register a multicolour LED in event mode", "failed"))
		return;
	sysfs_write("abi-mc-ev", "multi_intensity", "1 2 3");
	sysfs_write("abi-mc-ev", "brightness", "50");
	n = read_events(fd, ev, 8);
	check(n == 2 && ev[0].n_channels == 3 && ev[0].brightness == 0 && ev[0].intensity[2] == 3 &&
		  ev[1].brightness == 50 && ev[1].intensity[0] == 1,
	      "event records carry the channel intensities",
	      "%d records, first: %u channels, brightness %d", n, n ? ev[0].n_channels : 0,
	      n ? ev[0].brightness : -1);
	close(fd);
}
/* --- identify and remove (ULEDS_IOC_GET_DEV, ULEDS_IOC_DEV_REMOVE) ------------------------ */

int get_dev(int fd, struct uleds_user_dev *u)
{
	memset(u, 0xff, sizeof(*u));
	return ioctl(fd, ULEDS_IOC_GET_DEV, u) < 0 ? -errno : 0;
}

int dev_remove(int fd)
{
	return ioctl(fd, ULEDS_IOC_DEV_REMOVE) < 0 ? -errno : 0;
}

/* A thread blocked in epoll_wait() on an item with no events asked for, as systemd watches a
 * stored fd (it wants only HUP and ERR, which epoll always reports). */
struct hup_waiter {
	pthread_t thread;
	int ep;
	pid_t tid;
	volatile bool started, done;
	uint32_t revents;
};

static void *hup_waiter_main(void *arg)
{
	struct hup_waiter *w = arg;
	struct epoll_event ev;

	w->tid = gettid();
	w->started = true;
	if (epoll_wait(w->ep, &ev, 1, 5000) == 1)
		w->revents = ev.events;
	w->done = true;
	return NULL;
}

static long thread_switches(pid_t tid)
{
	char path[64], line[128];
	long v = -1, nv = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %ld", &v);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", &nv);
	}
	if (f)
		fclose(f);
	return v < 0 || nv < 0 ? -1 : v + nv;
}

static void test_get_dev_and_remove(void)
{
	struct uleds_user_dev u;
	struct epoll_event ev = {.events = 0};
	struct pollfd pfd;
	struct hup_waiter w = {0};
	struct reader rd;
	long before, after;
	int fd, copy, fd2, r, value;
	char v[8];

	check(ULEDS_IOC_GET_DEV == 0x80446c10 && ULEDS_IOC_DEV_REMOVE == 0x6c11,
	      "ULEDS_IOC_GET_DEV is _IOR('l', 16, 68 bytes), ULEDS_IOC_DEV_REMOVE _IO('l', 17)",
	      "they are %#lx, %#lx", (unsigned long)ULEDS_IOC_GET_DEV,
	      (unsigned long)ULEDS_IOC_DEV_REMOVE);
	fd = open_dev(O_NONBLOCK);
	r = get_dev(fd, &u);
	check(r == -ENODEV, "ULEDS_IOC_GET_DEV before the setup fails with ENODEV", "got %s",
	      err_name(r));
	r = dev_remove(fd);
	check(r == -ENODEV, "ULEDS_IOC_DEV_REMOVE before the setup fails with ENODEV", "got %s",
	      err_name(r));
	r = setup_write(fd, "abi-id", 77);
	r = r < 0 ? r : get_dev(fd, &u);
	check(r == 0 && !strcmp(u.name, "abi-id") && u.max_brightness == 77,
	      "ULEDS_IOC_GET_DEV tells the LED's name and max_brightness",
	      "got %s, '%.64s', %d", err_name(r), u.name, u.max_brightness);
	check(r == 0 && !memchr(u.name + 7, 0xff, sizeof(u.name) - 7),
	      "ULEDS_IOC_GET_DEV clears the rest of the name", "stale bytes after the name");
	read_value(fd, &value); /* the first value */

	/* systemd's copy: a dup watched by a sleeping epoll waiter with no events asked for. */
	copy = dup(fd);
	w.ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(w.ep, EPOLL_CTL_ADD, copy, &ev);
	pthread_create(&w.thread, NULL, hup_waiter_main, &w);
	while (!w.started)
		sleep_ms(5);
	sleep_ms(100); /* asleep in epoll_wait */
	before = thread_switches(w.tid);
	for (int i = 0; i < 100; i++) {
		snprintf(v, sizeof(v), "%d", i % 2 ? 0 : 50);
		sysfs_write("abi-id", "brightness", v);
		read_value(fd, &value);
	}
	sleep_ms(100);
	after = thread_switches(w.tid);
	check(before >= 0 && after == before && !w.done,
	      "100 changes do not wake a waiter that watches only for HUP (wake-up with a mask)",
	      "its context switches went from %ld to %ld", before, after);

	r = dev_remove(fd);
	check(r == 0, "ULEDS_IOC_DEV_REMOVE returns 0", "got %s", err_name(r));
	check(!led_exists("abi-id"), "the LED is gone when ULEDS_IOC_DEV_REMOVE returns",
	      LEDS_DIR "/abi-id still exists");
	for (int i = 0; i < 100 && !w.done; i++)
		sleep_ms(10);
	check(w.done && (w.revents & EPOLLHUP), "the HUP waiter on a copy wakes with EPOLLHUP",
	      "done %d, revents %#x", w.done, w.revents);
	pthread_join(w.thread, NULL);
	close(w.ep);
	pfd = (struct pollfd){.fd = copy, .events = POLLIN};
	r = poll(&pfd, 1, 0);
	check(r == 1 && (pfd.revents & POLLHUP), "poll reports POLLHUP after the removal",
	      "poll %d, revents %#x", r, pfd.revents);
	r = read_value(fd, &value);
	check(r == -ENODEV, "read after ULEDS_IOC_DEV_REMOVE fails with ENODEV", "got %s",
	      err_name(r));
	r = dev_remove(copy);
	check(r == -ENODEV, "a second ULEDS_IOC_DEV_REMOVE fails with ENODEV", "got %s",
	      err_name(r));
	r = get_dev(fd, &u);
	check(r == -ENODEV, "ULEDS_IOC_GET_DEV after the removal fails with ENODEV", "got %s",
	      err_name(r));
	r = ioctl_setup(fd, "abi-id-again", 1);
	check(r == -ENODEV && !led_exists("abi-id-again"),
	      "a removed LED's fd cannot set up another LED (ENODEV)", "got %s", err_name(r));
	fd2 = new_led("abi-id", 1, 0);
	check(fd2 >= 0, "the name is free at once, while the old fd and its copy stay open",
	      "a new abi-id: %s", err_name(fd2));
	close(fd);
	close(copy);

	/* A read blocked in another thread is woken by the removal. */
	close(fd2);
	fd2 = new_led("abi-id", 1, 0);
	if (fd2 >= 0) {
		read_value(fd2, &value);
		reader_start(&rd, fd2);
		sleep_ms(100);
		r = dev_remove(fd2);
		check(r == 0 && reader_join(&rd, 2000) && rd.ret == -ENODEV,
		      "a read blocked in another thread returns ENODEV on the removal",
		      "remove %s, reader done %d with %s", err_name(r), rd.done, err_name(rd.ret));
		close(fd2);
	}
	check(!led_exists("abi-id"), "no abi-id LED left", "it exists");

	/* poll agrees with read: nothing readable once drained, in either mode (event mode
	 * reported POLLIN forever after the setup, a busy loop for a level-triggered epoll). */
	for (int mode = 0; mode < 2; mode++) {
		struct uleds_event_mode em = {.ring_size = 16};
		struct uleds_event e;
		int n = 0;

		fd = open_dev(O_NONBLOCK);
		if (mode)
			ioctl(fd, ULEDS_IOC_SET_EVENT_MODE, &em);
		setup_write(fd, "abi-poll", 255);
		while (read(fd, &e, sizeof(e)) > 0 && n < 100)
			n++;
		pfd = (struct pollfd){.fd = fd, .events = POLLIN};
		r = poll(&pfd, 1, 0);
		check(r == 0, mode ? "event mode: poll reports nothing once read dry"
							   : "latest-value mode: poll reports nothing once read dry",
		      "poll %d, revents %#x", r, pfd.revents);
		sysfs_write("abi-poll", "brightness", "9");
		r = poll(&pfd, 1, 1000);
		check(r == 1 && (pfd.revents & POLLIN), mode ? "event mode: POLLIN after a change"
							    : "latest-value mode: POLLIN after a change",
		      "poll %d, revents %#x", r, pfd.revents);
		close(fd);
	}
}

static void test_module_refcount(void)
{
	int before, during, after, fd;

	before = module_refcnt();
	if (!check(before >= 0, "/sys/module/uleds/refcnt is readable (uleds is a module)",
		   "cannot read it"))
		return;
	fd = open_dev(0);
	during = module_refcnt();
	close(fd);
	after = module_refcnt();
	check(during == before + 1 && after == before, "an open fd holds a module reference",
	      "refcnt %d before open, %d while open, %d after close", before, during, after);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		device = argv[1];

	test_struct_and_ioctl_numbers();
	test_open_and_bad_setup();
	test_names();
	test_setup_and_ebusy();
	test_name_clash();
	test_name_race();
	test_reads();
	test_close_while_reading();
	test_timer_trigger();
	test_ioctls();
	test_trigger_names();
	test_long_name_clash();
	test_trigger_replace();
	test_missing_trigger_modprobe();
	test_event_mode_basics();
	test_event_burst();
	test_event_overflow();
	test_event_blink();
	test_multicolor();
	test_get_dev_and_remove();
	test_module_refcount();
	test_many();
	test_groups();

	check(count_leds("abi-") == 0, "no test LED is left behind", "%d abi-* LEDs remain",
	      count_leds("abi-"));

	printf("%d passed, %d failed\n", n_checks - n_failed, n_failed);
	return n_failed ? 1 : 0;
}
