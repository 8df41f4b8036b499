/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uleds-torture: races every path of a /dev/uleds driver against the LED core for a while.
 *
 * usage: uleds-torture SECONDS [DEVICE]   (root, in the test VM; default /dev/uleds)
 *
 * Owner threads open, set up (write or ioctl, colliding and distinct names, with and
 * without a default trigger) and close LEDs, closing while another thread blocks in read()
 * or poll(), after dup(), and with the fd inherited by a child. Other threads write
 * brightness, trigger and delay_on in sysfs, read every attribute, set triggers by ioctl,
 * and unload and reload trigger modules. A group thread makes LED groups (kmod/README,
 * "Groups") that owners' LEDs join, reads them in a thread of its own, walks and leaves
 * members, and closes each group while its reader blocks, after dup() or in a child; owners
 * close their fds while their LEDs are held by a group, or remove them. The kernel's verdict (no BUG, WARNING, Oops or
 * hung task) is read from dmesg by test-uleds-torture.sh; this program fails when a
 * thread stays stuck, when an operation fails in a way the ABI does not allow, or when an
 * LED is left behind. It prints the operations per second it reached.
 *
 * One known LED-core window is kept out on purpose (kmod/README, "Known LED core
 * window"): reading the trigger file while the LED is being registered. Trigger reads
 * take the write side of `registering`, every setup the read side.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/uleds-ext.h"

#define LEDS_DIR "/sys/class/leds"
#define PREFIX "tort-"
#define N_OWNERS 4
#define N_SLOTS N_OWNERS
#define N_COLLIDING 3

enum op {
	OP_SETUP,
	OP_EEXIST,
	OP_TRIGGER_IOCTL,
	OP_SYSFS_WRITE,
	OP_SYSFS_READ,
	OP_CLOSE_READING,
	OP_DUP,
	OP_FORK,
	OP_MODULE,
	OP_READ,
	OP_GROUP,
	OP_JOIN,
	OP_GROUP_RECORDS,
	OP_GROUP_WALK,
	OP_LEAVE,
	OP_REMOVE,
	_OP_MAX,
};

static const char *const op_names[_OP_MAX] = {
    [OP_SETUP] = "setups",
    [OP_EEXIST] = "name clashes (EEXIST)",
    [OP_TRIGGER_IOCTL] = "trigger ioctls",
    [OP_SYSFS_WRITE] = "sysfs writes",
    [OP_SYSFS_READ] = "sysfs reads",
    [OP_CLOSE_READING] = "closes under a blocked read/poll",
    [OP_DUP] = "dup+close rounds",
    [OP_FORK] = "fork rounds",
    [OP_MODULE] = "trigger module loads/unloads",
    [OP_READ] = "value reads",
    [OP_GROUP] = "groups made and closed",
    [OP_JOIN] = "group joins",
    [OP_GROUP_RECORDS] = "records read from groups",
    [OP_GROUP_WALK] = "fds handed back by GROUP_GET",
    [OP_LEAVE] = "group leaves",
    [OP_REMOVE] = "DEV_REMOVEs of members",
};

/* Triggers the threads pick from; the unknown ones make the core ask modprobe. */
static const char *const triggers[] = {
    "timer",	 "heartbeat", "oneshot",
    "transient", "pattern",   "none",
    "timer",	 "heartbeat", "hid-00:11:22:33:44:55-battery-charging"};
static const char *const modules[] = {"ledtrig-timer", "ledtrig-oneshot", "ledtrig-heartbeat"};

static const char *device = "/dev/uleds";
static atomic_bool stop;
static atomic_long ops[_OP_MAX];
static atomic_int failures;
/* Setups hold it for reading, trigger-file reads for writing (see the top comment). */
static pthread_rwlock_t registering;

/* What an owner publishes for the other threads: the name it has registered, if any. */
struct slot {
	pthread_mutex_t lock;
	char name[LED_MAX_NAME_SIZE];
	int fd;
};
static struct slot slots[N_SLOTS];

/* The group owners join now (-1: none), and the next member id. */
static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;
static int group_fd = -1;
static atomic_uint next_member_id;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("uleds-torture: FAIL: ");
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	atomic_fetch_add(&failures, 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_us(long us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static void count(enum op op)
{
	atomic_fetch_add_explicit(&ops[op], 1, memory_order_relaxed);
}

static int ioctl_trigger(int fd, const char *name)
{
	struct uleds_trigger t = {{0}};

	snprintf(t.name, sizeof(t.name), "%s", name);
	return ioctl(fd, ULEDS_IOC_SET_DEFAULT_TRIGGER, &t) < 0 ? -errno : 0;
}

static int setup(int fd, const char *name, bool by_ioctl)
{
	struct uleds_user_dev u = {.max_brightness = 255};
	int r;

	snprintf(u.name, sizeof(u.name), "%s", name);
	pthread_rwlock_rdlock(&registering);
	if (by_ioctl)
		r = ioctl(fd, ULEDS_IOC_DEV_SETUP, &u) < 0 ? -errno : 0;
	else
		r = write(fd, &u, sizeof(u)) == sizeof(u) ? 0 : -errno;
	pthread_rwlock_unlock(&registering);
	return r;
}

/* Errors a sysfs access may get while its LED comes and goes. */
static bool sysfs_error_expected(int e)
{
	return e == ENOENT || e == ENODEV || e == EBUSY || e == EINVAL || e == ENXIO;
}

static void sysfs_access(const char *led, const char *attr, const char *value)
{
	char path[192], buf[4096];
	bool is_trigger = !strcmp(attr, "trigger");
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), LEDS_DIR "/%s/%s", led, attr);
	if (!value && is_trigger)
		pthread_rwlock_wrlock(&registering);
	fd = open(path, (value ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd >= 0) {
		n = value ? write(fd, value, strlen(value)) : read(fd, buf, sizeof(buf));
		if (n < 0 && !sysfs_error_expected(errno))
			fail("%s %s: %s", value ? "write" : "read", path, strerror(errno));
		close(fd);
	} else if (!sysfs_error_expected(errno)) {
		fail("open %s: %s", path, strerror(errno));
	}
	if (!value && is_trigger)
		pthread_rwlock_unlock(&registering);
	count(value ? OP_SYSFS_WRITE : OP_SYSFS_READ);
}

/* A name some LED may have right now: an owner's, or one of the colliding ones. */
static void pick_name(unsigned int *seed, char name[LED_MAX_NAME_SIZE])
{
	struct slot *s = &slots[rnd(seed, N_SLOTS)];

	pthread_mutex_lock(&s->lock);
	strcpy(name, s->name);
	pthread_mutex_unlock(&s->lock);
	if (!name[0] || rnd(seed, 2))
		snprintf(name, LED_MAX_NAME_SIZE, PREFIX "c%u", rnd(seed, N_COLLIDING));
}

struct blocked {
	pthread_t thread;
	int fd;
	bool poll;
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;
	struct pollfd pfd = {.fd = b->fd, .events = POLLIN};
	int value;

	/* Both return on a change, on a signal, or (poll) after the timeout. */
	if (b->poll)
		poll(&pfd, 1, 300);
	else if (read(b->fd, &value, sizeof(value)) < 0 && errno != EINTR && errno != EAGAIN &&
		 /* closed before the read began; or the number went to a new, unset fd, or to a
		  * group (whose records do not fit an int: EINVAL) */
		 errno != EBADF && errno != ENODEV && errno != EINVAL)
		fail("a blocked read failed with %s", strerror(errno));
	return NULL;
}

static bool join_within(pthread_t thread, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return pthread_timedjoin_np(thread, NULL, &ts) == 0;
}

/* How an owner lets go of its fd: the interesting part of the torture. */
static void release(unsigned int *seed, int fd)
{
	struct blocked b = {.fd = fd};
	int dupfd;
	pid_t pid;

	switch (rnd(seed, 5)) {
	case 0: /* close while another thread blocks in read() or poll() on the fd */
		b.poll = rnd(seed, 2);
		pthread_create(&b.thread, NULL, blocked_main, &b);
		sleep_us(rnd(seed, 3000));
		close(fd);
		/* a signal sent before the read started is lost: repeat until it returns */
		do
			pthread_kill(b.thread, SIGUSR1);
		while (!join_within(b.thread, 10));
		count(OP_CLOSE_READING);
		break;
	case 1: /* the LED lives on in a dup for a moment */
		dupfd = dup(fd);
		close(fd);
		sleep_us(rnd(seed, 2000));
		close(dupfd);
		count(OP_DUP);
		break;
	case 2: /* ... or in a child that inherited it */
		pid = fork();
		if (pid == 0) {
			sleep_us(rnd(seed, 5000));
			_exit(0);
		}
		close(fd);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		count(OP_FORK);
		break;
	default:
		close(fd);
	}
}

/* The owner's LED joins the group of the moment, if any; the group may go at any time (its
 * own copy of the fd keeps it valid here). Returns whether it joined. */
static bool join_group(int fd)
{
	struct uleds_group_member m = {.fd = fd};
	int g, r;

	pthread_mutex_lock(&group_lock);
	g = group_fd < 0 ? -1 : fcntl(group_fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&group_lock);
	if (g < 0)
		return false;
	m.id = atomic_fetch_add(&next_member_id, 1);
	r = ioctl(g, ULEDS_IOC_GROUP_ADD, &m) < 0 ? -errno : 0;
	close(g);
	if (r)
		fail("GROUP_ADD: %s", strerror(-r));
	else
		count(OP_JOIN);
	return r == 0;
}

static void *owner_main(void *arg)
{
	long id = (long)arg;
	struct slot *s = &slots[id];
	unsigned int seed = 1000 + id;
	char name[LED_MAX_NAME_SIZE];
	unsigned long n = 0;
	int fd, r, value;

	while (!stop) {
		fd = open(device, O_RDWR | O_CLOEXEC | (rnd(&seed, 2) ? O_NONBLOCK : 0));
		if (fd < 0) {
			fail("open %s: %s", device, strerror(errno));
			break;
		}
		if (rnd(&seed, 10) < 4) {
			/* an unknown default trigger makes the core start modprobe: rarely */
			r = ioctl_trigger(fd, triggers[rnd(&seed, 8 + (rnd(&seed, 20) == 0))]);
			if (r)
				fail("trigger ioctl before setup: %s", strerror(-r));
			count(OP_TRIGGER_IOCTL);
		}
		if (rnd(&seed, 2))
			snprintf(name, sizeof(name), PREFIX "c%u", rnd(&seed, N_COLLIDING));
		else
			snprintf(name, sizeof(name), PREFIX "w%ld-%lu", id, n++);
		r = setup(fd, name, rnd(&seed, 2));
		if (r == -EEXIST) {
			count(OP_EEXIST);
			close(fd);
			continue;
		}
		if (r) {
			fail("setup of %s: %s", name, strerror(-r));
			close(fd);
			continue;
		}
		count(OP_SETUP);

		pthread_mutex_lock(&s->lock);
		strcpy(s->name, name);
		s->fd = fd;
		pthread_mutex_unlock(&s->lock);

		if (fcntl(fd, F_GETFL) & O_NONBLOCK) {
			while (read(fd, &value, sizeof(value)) == sizeof(value))
				count(OP_READ);
		}
		if (rnd(&seed, 3) == 0 && join_group(fd) && rnd(&seed, 4) == 0) {
			r = ioctl(fd, ULEDS_IOC_DEV_REMOVE) < 0 ? -errno : 0;
			if (r && r != -EINTR)
				fail("DEV_REMOVE of a member %s: %s", name, strerror(-r));
			count(OP_REMOVE);
		}
		if (rnd(&seed, 3) == 0) {
			r = ioctl_trigger(fd, triggers[rnd(&seed, 8)]);
			if (r && r != -EINTR)
				fail("trigger ioctl on %s: %s", name, strerror(-r));
			count(OP_TRIGGER_IOCTL);
		}
		sleep_us(rnd(&seed, 4000));

		pthread_mutex_lock(&s->lock);
		s->name[0] = '\0';
		s->fd = -1;
		pthread_mutex_unlock(&s->lock);
		release(&seed, fd);
	}
	return NULL;
}

struct group_reader {
	pthread_t thread;
	int fd; /* its own copy of the group: the last one, closed when it is done */
	atomic_bool done;
};

/* Reads a group, blocking, until done is set and a signal comes; then closes its copy, which
 * releases the group while members may be pushing records. */
static void *group_reader_main(void *arg)
{
	struct group_reader *rd = arg;
	struct uleds_event ev[32];
	ssize_t n;

	while (!rd->done) {
		n = read(rd->fd, ev, sizeof(ev));
		if (n > 0) {
			if (n % (ssize_t)sizeof(ev[0]))
				fail("a group read returned %zd bytes, not whole records", n);
			atomic_fetch_add_explicit(&ops[OP_GROUP_RECORDS], n / (ssize_t)sizeof(ev[0]),
						  memory_order_relaxed);
		} else if (n == 0 || errno != EINTR) {
			fail("a group read: %s", n ? strerror(errno) : "0 bytes");
			break;
		}
	}
	close(rd->fd);
	return NULL;
}

/* GROUP_GET over every member, closing each fd it hands back; and a few leaves. */
static void walk_group(unsigned int *seed, int g)
{
	struct uleds_group_member m = {0};

	while (ioctl(g, ULEDS_IOC_GROUP_GET, &m) == 0) {
		close(m.fd);
		count(OP_GROUP_WALK);
		if (rnd(seed, 4) == 0) {
			if (ioctl(g, ULEDS_IOC_GROUP_LEAVE, &m) < 0 && errno != ENOENT)
				fail("GROUP_LEAVE: %s", strerror(errno));
			count(OP_LEAVE);
		}
		m.id++;
	}
	if (errno != ENOENT)
		fail("GROUP_GET: %s", strerror(errno));
}

/* One group after another: made, joined by owners, read, walked, then closed in one of the
 * ways an owner closes an LED (under a blocked read, after dup(), in a child). */
static void *group_main(void *arg)
{
	struct uleds_event_mode mode = {0};
	unsigned int seed = 5000 + (long)arg;
	struct group_reader rd;
	int g, d;
	pid_t pid;

	while (!stop) {
		g = open(device, O_RDWR | O_CLOEXEC);
		mode.ring_size = rnd(&seed, 2) ? 0 : 1 + rnd(&seed, 16);
		if (g < 0 || ioctl(g, ULEDS_IOC_GROUP_CREATE, &mode) != sizeof(struct uleds_event)) {
			fail("GROUP_CREATE: %s", strerror(errno));
			break;
		}
		rd.fd = fcntl(g, F_DUPFD_CLOEXEC, 0);
		rd.done = false;
		pthread_create(&rd.thread, NULL, group_reader_main, &rd);
		pthread_mutex_lock(&group_lock);
		group_fd = g;
		pthread_mutex_unlock(&group_lock);
		for (int i = 0, n = 1 + rnd(&seed, 4); i < n && !stop; i++) {
			sleep_us(rnd(&seed, 8000));
			walk_group(&seed, g);
		}
		pthread_mutex_lock(&group_lock);
		group_fd = -1;
		pthread_mutex_unlock(&group_lock);

		switch (rnd(&seed, 3)) {
		case 0: /* a dup keeps the group for a moment */
			d = dup(g);
			close(g);
			sleep_us(rnd(&seed, 2000));
			close(d);
			break;
		case 1: /* ... or a child that inherited it */
			pid = fork();
			if (pid == 0) {
				sleep_us(rnd(&seed, 3000));
				_exit(0);
			}
			close(g);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			break;
		default:
			close(g);
		}
		/* the reader's copy is the last: it goes when the blocked read returns */
		rd.done = true;
		do
			pthread_kill(rd.thread, SIGUSR1);
		while (!join_within(rd.thread, 10));
		count(OP_GROUP);
	}
	return NULL;
}

static void *writer_main(void *arg)
{
	static const char *const values[] = {"0", "1", "128", "255", "1000"};
	unsigned int seed = 2000 + (long)arg;
	char name[LED_MAX_NAME_SIZE];

	while (!stop) {
		pick_name(&seed, name);
		switch (rnd(&seed, 5)) {
		case 0:
			sysfs_access(name, "brightness", values[rnd(&seed, 5)]);
			break;
		case 1:
			sysfs_access(name, "delay_on", rnd(&seed, 2) ? "10" : "50");
			break;
		case 2: /* oneshot's write-only attribute */
			sysfs_access(name, "shot", "1");
			break;
		default:
			sysfs_access(name, "trigger", triggers[rnd(&seed, 8)]);
		}
		sleep_us(rnd(&seed, 500));
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	static const char *const attrs[] = {"brightness", "max_brightness", "trigger", "delay_on",
					    "delay_off",  "uevent",	    "invert",  "repeat"};
	unsigned int seed = 3000 + (long)arg;
	char name[LED_MAX_NAME_SIZE];

	while (!stop) {
		pick_name(&seed, name);
		sysfs_access(name, attrs[rnd(&seed, 8)], NULL);
		sleep_us(rnd(&seed, 500));
	}
	return NULL;
}

/* Unloads and reloads trigger modules while LEDs use them and name them as default. */
static void *modules_main(void *arg)
{
	unsigned int seed = 4000 + (long)arg;
	char cmd[128];
	const char *m;

	while (!stop) {
		m = modules[rnd(&seed, 3)];
		snprintf(cmd, sizeof(cmd), "modprobe -r %s 2>/dev/null; modprobe %s", m, m);
		if (system(cmd) != 0)
			fail("%s failed", cmd);
		count(OP_MODULE);
		sleep_us(10000 + rnd(&seed, 40000));
	}
	return NULL;
}

static int count_leds(void)
{
	DIR *d = opendir(LEDS_DIR);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, PREFIX, strlen(PREFIX));
	closedir(d);
	return n;
}

static void on_signal(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	void *(*const kinds[])(void *) = {writer_main, writer_main, reader_main, modules_main,
					  group_main};
	pthread_t threads[N_OWNERS + 5];
	struct sigaction sa = {.sa_handler = on_signal};
	pthread_rwlockattr_t attr;
	int n_threads = 0, i, seconds, left;
	double start, elapsed;
	struct timespec deadline;

	if (argc < 2 || (seconds = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: uleds-torture SECONDS [DEVICE]\n");
		return 2;
	}
	if (argc > 2)
		device = argv[2];

	/* No SA_RESTART: SIGUSR1 must end a blocked read() with EINTR. */
	sigaction(SIGUSR1, &sa, NULL);
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&registering, &attr);
	for (i = 0; i < N_SLOTS; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].fd = -1;
	}

	start = now();
	for (i = 0; i < N_OWNERS; i++)
		pthread_create(&threads[n_threads++], NULL, owner_main, (void *)(long)i);
	for (i = 0; i < 5; i++)
		pthread_create(&threads[n_threads++], NULL, kinds[i], (void *)(long)i);

	sleep(seconds);
	stop = true;

	/* A thread the kernel keeps stuck is the failure this test exists for. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 30;
	for (i = 0, left = 0; i < n_threads; i++) {
		if (pthread_timedjoin_np(threads[i], NULL, &deadline)) {
			fail("thread %d is still stuck 30 s after the end (see the kernel log)", i);
			left++;
		}
	}
	elapsed = now() - start;
	if (left) {
		printf("uleds-torture: %d threads stuck; not checking the LEDs left\n", left);
		return 1;
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;

	printf("uleds-torture: %.1f s, %d threads\n", elapsed, n_threads);
	for (i = 0; i < _OP_MAX; i++)
		printf("uleds-torture: %8ld %-34s %8.1f/s\n", ops[i], op_names[i],
		       ops[i] / elapsed);
	if (ops[OP_SETUP] == 0 || ops[OP_SYSFS_WRITE] == 0 || ops[OP_MODULE] == 0 ||
	    ops[OP_GROUP] == 0 || ops[OP_JOIN] == 0 || ops[OP_GROUP_WALK] == 0 ||
	    ops[OP_GROUP_RECORDS] == 0)
		fail("an operation never ran: the torture tested nothing");
	if (count_leds() != 0)
		fail("%d " PREFIX "* LEDs are left with every fd closed", count_leds());

	printf("uleds-torture: %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
