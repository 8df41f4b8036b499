// SPDX-License-Identifier: MIT
/* The forwarder a user would write instead of uledsd: uleds brightness -> one GPIO line. */
#include <errno.h>
#include <fcntl.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/uleds.h>
#include <systemd/sd-daemon.h>

/*
 * usage: bench-baseline CHIP NAME OFFSET [COUNT]
 *   CHIP    GPIO chip path (/dev/gpiochipN)
 *   NAME    LED name; with COUNT > 1 the LEDs are NAME0 .. NAME{COUNT-1}
 *   OFFSET  first line; LED i drives line OFFSET + i
 * One LED: a blocking read loop, the simplest program there is. COUNT > 1: epoll over the
 * uleds fds, one line request per LED (a request may hold at most 64 lines; a user writing
 * this by hand requests each LED's line on its own). READY=1 goes to $NOTIFY_SOCKET once
 * every LED exists, so start-up can be timed like uledsd's.
 */

struct fwd {
	int fd;
	struct gpiod_line_request *req;
	unsigned int offset;
};

static struct gpiod_line_request *request_line(struct gpiod_chip *chip, unsigned int offset)
{
	struct gpiod_line_settings *s = gpiod_line_settings_new();
	struct gpiod_line_config *lc = gpiod_line_config_new();
	struct gpiod_request_config *rc = gpiod_request_config_new();
	struct gpiod_line_request *req = NULL;

	if (s && lc && rc) {
		gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
		gpiod_request_config_set_consumer(rc, "bench-baseline");
		if (gpiod_line_config_add_line_settings(lc, &offset, 1, s) == 0)
			req = gpiod_chip_request_lines(chip, rc, lc);
	}
	gpiod_request_config_free(rc);
	gpiod_line_config_free(lc);
	gpiod_line_settings_free(s);
	return req;
}

static int fwd_open(struct fwd *f, struct gpiod_chip *chip, const char *name, unsigned int offset,
		    int flags)
{
	struct uleds_user_dev dev = { .max_brightness = 255 };

	snprintf(dev.name, sizeof(dev.name), "%s", name);
	f->offset = offset;
	f->fd = open("/dev/uleds", O_RDWR | O_CLOEXEC | flags);
	if (f->fd < 0 || write(f->fd, &dev, sizeof(dev)) != (ssize_t)sizeof(dev)) {
		fprintf(stderr, "bench-baseline: cannot create LED %s: %m\n", name);
		return -1;
	}
	f->req = request_line(chip, offset);
	if (!f->req) {
		fprintf(stderr, "bench-baseline: cannot request line %u: %m\n", offset);
		return -1;
	}
	return 0;
}

/* Returns -1 when the fd has nothing more to give (EAGAIN) or failed. */
static int fwd_forward(struct fwd *f)
{
	int v;

	if (read(f->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	gpiod_line_request_set_value(f->req, f->offset,
				     v > 0 ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
	return 0;
}

int main(int argc, char **argv)
{
	struct gpiod_chip *chip;
	struct rlimit rl;
	struct fwd *fwds;
	unsigned int count = 1, offset;
	int ep;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: bench-baseline CHIP NAME OFFSET [COUNT]\n");
		return 2;
	}
	offset = (unsigned int)strtoul(argv[3], NULL, 10);
	if (argc == 5)
		count = (unsigned int)strtoul(argv[4], NULL, 10);
	if (count < 1)
		return 2;
	chip = gpiod_chip_open(argv[1]);
	if (!chip) {
		fprintf(stderr, "bench-baseline: cannot open %s: %m\n", argv[1]);
		return 1;
	}
	fwds = calloc(count, sizeof(*fwds));
	if (!fwds)
		return 1;

	if (count == 1) {
		if (fwd_open(&fwds[0], chip, argv[2], offset, 0) < 0)
			return 1;
		sd_notify(0, "READY=1");
		for (;;)
			if (fwd_forward(&fwds[0]) < 0 && errno != EINTR)
				return 1;
	}

	/* Two fds per LED. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return 1;
	for (unsigned int i = 0; i < count; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &fwds[i] };
		char name[64];

		snprintf(name, sizeof(name), "%s%u", argv[2], i);
		if (fwd_open(&fwds[i], chip, name, offset + i, O_NONBLOCK) < 0)
			return 1;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fwds[i].fd, &ev) < 0)
			return 1;
	}
	sd_notify(0, "READY=1");
	for (;;) {
		struct epoll_event evs[64];
		int n = epoll_wait(ep, evs, 64, -1);

		if (n < 0 && errno != EINTR)
			return 1;
		for (int i = 0; i < n; i++)
			while (fwd_forward(evs[i].data.ptr) == 0)
				;
	}
}
