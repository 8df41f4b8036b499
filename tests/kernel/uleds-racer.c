// SPDX-License-Identifier: MIT
/* Another uleds user racing uledsd for an LED name (test-rename-race.sh): it registers NAME
 * through /dev/uleds and reports every brightness its LEDs receive, which in the test only
 * uledsd could have written.
 *
 * usage: uleds-racer hold NAME
 *          register NAME now
 *        uleds-racer race NAME OPENS DELAY_US
 *          wait until someone else opened /dev/uleds OPENS times (inotify), spin DELAY_US
 *          microseconds, register NAME: about when uledsd registers its LED
 *        uleds-racer trace NAME WHEN LOG PROGRAM [ARG...]
 *          run PROGRAM (uledsd; its stderr to LOG) under ptrace and stop it at its write() of
 *          NAME's registration to /dev/uleds, the in-tree driver's way to register:
 *            before  register NAME first: the LED core renames uledsd's to NAME_1
 *            after   register NAME once uledsd's write returned: ours becomes NAME_1
 *            gone    register NAME first, remove it after: uledsd's is NAME_1, NAME is gone
 *            gap     register NAME and NAME_1 first, remove NAME_1 after: uledsd's is NAME_2
 *          then let PROGRAM run on untraced
 * The racer keeps its LEDs until SIGTERM or SIGINT. Lines on stdout:
 *   "armed"               race: watching /dev/uleds
 *   "pid N"               trace: PROGRAM's pid
 *   "intercepted"         trace: PROGRAM's write of NAME
 *   "registered NAME"     a registration succeeded (the LED core may have renamed it)
 *   "register failed: E"  one did not
 *   "exited N"            trace: PROGRAM exited with status N (or "killed by signal N")
 *   "foreign write: V"    an LED received brightness V (anything but its initial 0)
 *   "done: R registrations, F foreign writes"   at exit
 * Exit status 0, 1 if any foreign write was seen, 2 on a usage or setup error. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/uleds.h>

#define DEV "/dev/uleds"
#define MAX_LEDS 2

static volatile sig_atomic_t stop;
static unsigned long registrations, foreign;
static int fds[MAX_LEDS] = {-1, -1};
static pid_t child = -1;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Register name on a new fd in slot i (O_NONBLOCK: watch() drains it). */
static int register_name(int i, const char *name)
{
	struct uleds_user_dev dev = {.max_brightness = 255};

	if (fds[i] < 0)
		fds[i] = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fds[i] < 0) {
		printf("register failed: open: %s\n", strerror(errno));
		return -1;
	}
	snprintf(dev.name, sizeof(dev.name), "%s", name);
	if (write(fds[i], &dev, sizeof(dev)) != (ssize_t)sizeof(dev)) {
		printf("register failed: %s\n", strerror(errno));
		close(fds[i]);
		fds[i] = -1;
		return -1;
	}
	registrations++;
	printf("registered %s\n", name);
	return 0;
}

static void unregister(int i)
{
	if (fds[i] >= 0)
		close(fds[i]);
	fds[i] = -1;
}

/* What the LED core handed an LED: its first read is the initial 0, any other value was
 * written by someone. */
static void drain(int fd)
{
	int v;

	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		if (v != 0) {
			foreign++;
			printf("foreign write: %d\n", v);
		}
}

static void reap(int flags)
{
	int st;

	if (child <= 0 || waitpid(child, &st, flags) != child)
		return;
	if (WIFEXITED(st))
		printf("exited %d\n", WEXITSTATUS(st));
	else
		printf("killed by signal %d\n", WTERMSIG(st));
	child = -1;
}

/* Keep the LEDs until a signal, reporting what they receive and when the program exits. */
static void watch(void)
{
	struct pollfd p[MAX_LEDS];

	while (!stop) {
		for (int i = 0; i < MAX_LEDS; i++)
			p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		if (poll(p, MAX_LEDS, 50) > 0)
			for (int i = 0; i < MAX_LEDS; i++)
				if (p[i].revents & POLLIN)
					drain(fds[i]);
		reap(WNOHANG);
	}
	for (int i = 0; i < MAX_LEDS; i++)
		if (fds[i] >= 0)
			drain(fds[i]);
}

/* Spin until others opened DEV opens times: no wakeup latency. Our own fd is open before
 * the watch, so it does not count. */
static int wait_opens(int opens)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (in < 0 || inotify_add_watch(in, DEV, IN_OPEN) < 0)
		return -1;
	printf("armed\n");
	while (opens > 0 && !stop) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		for (char *p = buf; p < buf + n;
		     p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			if (((struct inotify_event *)p)->mask & IN_OPEN)
				opens--;
	}
	close(in);
	return 0;
}

/* The tracee's write(fd, buf, count) registers name on /dev/uleds. */
static bool is_registration(pid_t pid, const uint64_t *args, const char *name)
{
	struct uleds_user_dev dev;
	struct iovec local = {&dev, sizeof(dev)},
		     remote = {(void *)(uintptr_t)args[1], sizeof(dev)};
	char path[64], target[64] = "";

	if (args[2] != sizeof(dev))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%llu", (int)pid, (unsigned long long)args[0]);
	if (readlink(path, target, sizeof(target) - 1) < 0 || strcmp(target, DEV) != 0)
		return false;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(dev))
		return false;
	return strncmp(dev.name, name, sizeof(dev.name)) == 0;
}

/* Both LEDs' names: NAME and NAME_1. */
static void act(const char *name, const char *when, bool entry)
{
	char second[LED_MAX_NAME_SIZE + 8];

	snprintf(second, sizeof(second), "%s_1", name);
	if (entry && strcmp(when, "after") != 0)
		register_name(0, name);
	if (entry && !strcmp(when, "gap"))
		register_name(1, second);
	if (!entry && !strcmp(when, "after"))
		register_name(0, name);
	if (!entry && !strcmp(when, "gone"))
		unregister(0);
	if (!entry && !strcmp(when, "gap"))
		unregister(1);
}

/* Run argv traced until its write() of name returned, acting around it; then detach. */
static int trace(const char *name, const char *when, const char *log, char **argv)
{
	bool in_write = false;
	int st, sig = 0;

	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0 || ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	printf("pid %d\n", (int)child);
	/* The exec stops it with SIGTRAP. */
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, child, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) < 0)
		return -1;
	for (;;) {
		struct __ptrace_syscall_info si;

		if (ptrace(PTRACE_SYSCALL, child, NULL, (void *)(uintptr_t)sig) < 0 ||
		    waitpid(child, &st, 0) != child)
			return -1;
		sig = 0;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			printf("%s %d\n", WIFEXITED(st) ? "exited" : "killed by signal",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			child = -1;
			return 0;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st); /* a signal for the tracee: deliver it */
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, child, (void *)sizeof(si), &si) <= 0)
			return -1;
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == SYS_write &&
		    is_registration(child, si.entry.args, name)) {
			printf("intercepted\n");
			act(name, when, true);
			in_write = true;
		} else if (si.op == PTRACE_SYSCALL_INFO_EXIT && in_write) {
			act(name, when, false);
			return ptrace(PTRACE_DETACH, child, NULL, NULL) < 0 ? -1 : 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	const char *mode = argc > 2 ? argv[1] : "", *name = argc > 2 ? argv[2] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!strcmp(mode, "hold") && argc == 3) {
		if (register_name(0, name) < 0)
			return 2;
	} else if (!strcmp(mode, "race") && argc == 5) {
		long long delay = atoll(argv[4]), t;

		fds[0] = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fds[0] < 0 || wait_opens(atoi(argv[3])) < 0)
			return 2;
		for (t = now_us() + delay; now_us() < t;)
			;
		(void)register_name(0, name);
	} else if (!strcmp(mode, "trace") && argc >= 6) {
		if (strcmp(argv[3], "before") && strcmp(argv[3], "after") &&
		    strcmp(argv[3], "gone") && strcmp(argv[3], "gap"))
			return 2;
		if (trace(name, argv[3], argv[4], argv + 5) < 0) {
			perror("uleds-racer: trace");
			return 2;
		}
	} else {
		fprintf(stderr, "usage: uleds-racer hold NAME | race NAME OPENS DELAY_US | "
				"trace NAME before|after|gone|gap LOG PROGRAM [ARG...]\n");
		return 2;
	}
	watch();
	printf("done: %lu registrations, %lu foreign writes\n", registrations, foreign);
	return foreign ? 1 : 0;
}
