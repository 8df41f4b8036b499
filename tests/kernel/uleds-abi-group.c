/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The group part of the uleds ABI conformance test (kmod/README, "Groups"): a group fd reads
 * the records of many LEDs tagged with their ids, many per read; it holds its members alive
 * after their own fds are closed and hands fds back; leave, remove and closing the group end
 * that. Run from uleds-abi's main().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uleds-abi.h"

#define GROUP_MANY 200

static int group_create(int fd, unsigned int ring_size, unsigned int flags)
{
	struct uleds_event_mode m = {.ring_size = ring_size, .flags = flags};
	int r = ioctl(fd, ULEDS_IOC_GROUP_CREATE, &m);

	return r < 0 ? -errno : r;
}

/* A new group (O_NONBLOCK) with a ring of RING records; the fd or -errno. */
static int new_group(unsigned int ring)
{
	int fd = open_dev(O_NONBLOCK), r;

	if (fd < 0)
		return fd;
	r = group_create(fd, ring, 0);
	if (r != (int)sizeof(struct uleds_event)) {
		close(fd);
		return r < 0 ? r : -EPROTO;
	}
	return fd;
}

static int group_add(int g, int fd, uint32_t id)
{
	struct uleds_group_member m = {.id = id, .fd = fd};

	return ioctl(g, ULEDS_IOC_GROUP_ADD, &m) < 0 ? -errno : 0;
}

static int group_leave(int g, uint32_t id)
{
	struct uleds_group_member m = {.id = id};

	return ioctl(g, ULEDS_IOC_GROUP_LEAVE, &m) < 0 ? -errno : 0;
}

/* The member with the lowest id >= *id: *id set to it, its new fd returned, or -errno. */
static int group_get(int g, uint32_t *id)
{
	struct uleds_group_member m = {.id = *id, .fd = -1};

	if (ioctl(g, ULEDS_IOC_GROUP_GET, &m) < 0)
		return -errno;
	*id = m.id;
	return m.fd;
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_group_create(void)
{
	int fd = open_dev(0), led, g, r;
	struct uleds_user_dev u;

	check(sizeof(struct uleds_group_member) == 8, "struct uleds_group_member is 8 bytes",
	      "sizeof is %zu", sizeof(struct uleds_group_member));
	check(ULEDS_IOC_GROUP_CREATE == _IOW('l', 18, struct uleds_event_mode) &&
		  ULEDS_IOC_GROUP_ADD == _IOWR('l', 19, struct uleds_group_member) &&
		  ULEDS_IOC_GROUP_GET == _IOWR('l', 21, struct uleds_group_member),
	      "group ioctl numbers", "GROUP_CREATE %#lx", (unsigned long)ULEDS_IOC_GROUP_CREATE);
	r = group_create(fd, 262145, 0);
	check(r == -EINVAL, "GROUP_CREATE: ring_size above 262144 is EINVAL", "got %s",
	      err_name(r));
	r = group_create(fd, 0, 1);
	check(r == -EINVAL, "GROUP_CREATE: unknown flags are EINVAL", "got %s", err_name(r));
	r = group_create(fd, 0, 0);
	check(r == (int)sizeof(struct uleds_event), "GROUP_CREATE on a fresh fd returns 80",
	      "got %s", err_name(r));
	r = group_create(fd, 0, 0);
	check(r == -EBUSY, "GROUP_CREATE on a group is EBUSY", "got %s", err_name(r));
	r = setup_write(fd, "abi-g-nope", 1);
	check(r == -EINVAL, "a group's write() registers no LED (EINVAL)", "got %s", err_name(r));
	r = ioctl_setup(fd, "abi-g-nope", 1);
	check(r == -ENOTTY && !led_exists("abi-g-nope"), "LED ioctls on a group are ENOTTY",
	      "DEV_SETUP gave %s", err_name(r));
	r = get_dev(fd, &u);
	check(r == -ENOTTY, "GET_DEV on a group is ENOTTY", "got %s", err_name(r));
	close(fd);

	led = new_led("abi-g-led", 1, 0);
	r = group_create(led, 0, 0);
	check(r == -EBUSY, "GROUP_CREATE on a set-up LED is EBUSY", "got %s", err_name(r));
	r = group_add(led, led, 1);
	check(r == -ENOTTY, "GROUP_ADD on an LED fd is ENOTTY", "got %s", err_name(r));
	close(led);
	fd = open_dev(0);
	event_mode(fd, 4, 0);
	r = group_create(fd, 0, 0);
	check(r == -EBUSY, "GROUP_CREATE on an fd in event mode is EBUSY", "got %s", err_name(r));
	close(fd);

	g = new_group(0);
	fd = open_dev(0);
	r = group_add(g, fd, 1);
	check(r == 0, "an fd joins before its setup", "got %s", err_name(r));
	r = group_add(g, g, 2);
	check(r == -EINVAL, "a group cannot join itself (EINVAL)", "got %s", err_name(r));
	r = group_add(g, -1, 3);
	check(r == -EBADF, "GROUP_ADD of a bad fd is EBADF", "got %s", err_name(r));
	led = open("/dev/null", O_RDONLY | O_CLOEXEC);
	r = group_add(g, led, 3);
	check(r == -EINVAL, "GROUP_ADD of another file (/dev/null) is EINVAL", "got %s",
	      err_name(r));
	close(led);
	close(fd);
	close(g);
}

/* Records of three LEDs, latest-value and event mode, interleaved, many in one read. */
static void test_group_records(void)
{
	int g = new_group(0), a = new_event_led("abi-g-a", 0, 0), b = new_led("abi-g-b", 9, O_NONBLOCK);
	int c = new_event_led("abi-g-c", 0, 0), other = new_group(0), n, r;
	struct uleds_group_member m;
	struct uleds_event ev[16];
	bool ok;

	sysfs_write("abi-g-a", "brightness", "7"); /* waits on a's own ring */
	check(!readable(g), "an empty group is not readable", "poll said POLLIN");
	r = group_add(g, a, 10);
	check(r == 0, "GROUP_ADD of an event-mode LED", "got %s", err_name(r));
	r = group_add(g, b, 11);
	check(r == 0, "GROUP_ADD of a latest-value LED", "got %s", err_name(r));
	r = group_add(g, c, 10);
	check(r == -EEXIST, "GROUP_ADD of a taken id is EEXIST", "got %s", err_name(r));
	m.fd = a;
	m.id = 12;
	r = ioctl(g, ULEDS_IOC_GROUP_ADD, &m) < 0 ? -errno : 0;
	check(r == -EALREADY && m.id == 10, "GROUP_ADD of a member, again: EALREADY and its id",
	      "got %s, id %u", err_name(r), m.id);
	r = group_add(other, a, 12);
	check(r == -EBUSY, "GROUP_ADD of another group's member is EBUSY", "got %s", err_name(r));
	r = group_add(g, c, 12);
	check(r == 0 && readable(g), "a group with records is readable", "add %s",
	      err_name(r));
	n = read_events(g, ev, 16);
	ok = n == 2 && ev[0].id == 10 && ev[0].brightness == 7 && ev[0].seq == 1 &&
	     ev[1].id == 11 && ev[1].brightness == 0;
	check(ok, "what waited on a joining LED moved to the group, tagged with its id",
	      "%d records: id %u value %d, id %u value %d", n, n > 0 ? ev[0].id : 0,
	      n > 0 ? ev[0].brightness : -1, n > 1 ? ev[1].id : 0, n > 1 ? ev[1].brightness : -1);

	sysfs_write("abi-g-c", "brightness", "3");
	sysfs_write("abi-g-a", "brightness", "1");
	sysfs_write("abi-g-b", "brightness", "9");
	sysfs_write("abi-g-a", "brightness", "1"); /* an equal value is a call too */
	r = (int)read(g, ev, sizeof(ev));
	n = r > 0 ? r / (int)sizeof(ev[0]) : r;
	ok = n == 4 && ev[0].id == 12 && ev[0].brightness == 3 && ev[1].id == 10 &&
	     ev[1].brightness == 1 && ev[1].seq == 2 && ev[2].id == 11 &&
	     ev[2].brightness == 9 && ev[3].id == 10 && ev[3].seq == 3 &&
	     ev[0].timestamp_ns <= ev[3].timestamp_ns;
	check(ok, "one read: four records of three LEDs, in order, with ids and per-LED seq",
	      "read gave %d records (first id %u)", n, n > 0 ? ev[0].id : 0);
	check(read_events(a, ev, 16) == 0 && read(b, ev, sizeof(int)) < 0 && errno == EAGAIN,
	      "a member's own fd gets nothing while in a group", "it had records");
	close(a);
	close(b);
	close(c);
	close(other);
	close(g);
}

struct group_reader {
	pthread_t thread;
	int fd;
	ssize_t ret;
	volatile bool done;
};

static void *group_reader_main(void *arg)
{
	struct group_reader *rd = arg;
	struct uleds_event ev[4];

	rd->ret = read(rd->fd, ev, sizeof(ev));
	rd->done = true;
	return NULL;
}

static void test_group_blocking_read(void)
{
	int g = new_group(0), a = new_event_led("abi-g-block", 0, 0), fl;
	struct group_reader rd = {0};
	double end;

	group_add(g, a, 1);
	fl = fcntl(g, F_GETFL);
	fcntl(g, F_SETFL, fl & ~O_NONBLOCK);
	rd.fd = g;
	pthread_create(&rd.thread, NULL, group_reader_main, &rd);
	sleep_ms(100);
	check(!rd.done, "a blocking read of an empty group waits", "it returned %zd", rd.ret);
	sysfs_write("abi-g-block", "brightness", "5");
	for (end = now() + 2; !rd.done && now() < end;)
		sleep_ms(5);
	check(rd.done && rd.ret == (ssize_t)sizeof(struct uleds_event),
	      "a change wakes a reader blocked on the group", "done %d ret %zd", rd.done, rd.ret);
	if (!rd.done)
		pthread_cancel(rd.thread);
	pthread_join(rd.thread, NULL);
	close(a);
	close(g);
}

/* The group holds its LEDs: closed fds, GROUP_GET, GROUP_LEAVE, DEV_REMOVE, closing it. */
static void test_group_holds(void)
{
	int g = new_group(0), fd, got, r, n;
	const uint32_t ids[] = {5, 7, 100};
	char name[32], value[16];
	struct uleds_user_dev u;
	struct uleds_event ev[8];
	uint32_t id;
	bool ok = true;

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "abi-g-hold%u", ids[i]);
		fd = new_event_led(name, 0, 0);
		ok &= group_add(g, fd, ids[i]) == 0;
		close(fd);
	}
	check(ok && count_leds("abi-g-hold") == 3, "members live on after their fds are closed",
	      "%d of 3 LEDs exist", count_leds("abi-g-hold"));
	sysfs_write("abi-g-hold7", "brightness", "4");
	n = read_events(g, ev, 8);
	check(n == 1 && ev[0].id == 7 && ev[0].brightness == 4,
	      "a held LED's changes still come to the group", "%d records", n);

	ok = true;
	id = 0;
	for (int i = 0; i < 3; i++, id++) {
		got = group_get(g, &id);
		ok &= got >= 0 && id == ids[i] && get_dev(got, &u) == 0;
		snprintf(name, sizeof(name), "abi-g-hold%u", ids[i]);
		ok &= got >= 0 && !strcmp(u.name, name);
		ok &= got >= 0 && (fcntl(got, F_GETFD) & FD_CLOEXEC);
		if (got >= 0)
			close(got);
	}
	got = group_get(g, &id);
	check(ok && got == -ENOENT, "GROUP_GET walks the members (5, 7, 100) and hands back fds",
	      "the walk ended with %s", err_name(got));

	r = group_leave(g, 5);
	check(r == 0 && !led_exists("abi-g-hold5"),
	      "GROUP_LEAVE of a member with no fd left removes it at once", "leave %s, exists %d",
	      err_name(r), led_exists("abi-g-hold5"));
	r = group_leave(g, 5);
	check(r == -ENOENT, "GROUP_LEAVE of no member is ENOENT", "got %s", err_name(r));

	id = 7;
	fd = group_get(g, &id);
	r = dev_remove(fd);
	n = read_events(g, ev, 8);
	/* the LED core turns it off on the way out: a BRIGHTNESS 0 record may come first */
	check(r == 0 && n >= 1 && ev[n - 1].type == ULEDS_EVENT_REMOVED && ev[n - 1].id == 7 &&
		  !led_exists("abi-g-hold7"),
	      "DEV_REMOVE of a member: gone, and a REMOVED record last in the group",
	      "remove %s, %d records, last type %u", err_name(r), n, n ? ev[n - 1].type : 0);
	id = 7;
	got = group_get(g, &id);
	check(got >= 0 && id == 100, "a removed member has left the group", "next is %u", id);
	if (got >= 0)
		close(got);
	close(fd);

	/* A member that leaves with its fd open reads on its own again. */
	fd = new_led("abi-g-back", 9, O_NONBLOCK);
	read_value(fd, &n);
	group_add(g, fd, 1);
	sysfs_write("abi-g-back", "brightness", "6");
	read_events(g, ev, 8);
	group_leave(g, 1);
	r = read_value(fd, &n);
	check(r == (int)sizeof(int) && n == 6 && led_exists("abi-g-back"),
	      "after leaving, a latest-value fd reads the current value", "read %s value %d",
	      err_name(r), n);

	group_add(g, fd, 1);
	close(g);
	sysfs_read("abi-g-back", "brightness", value, sizeof(value));
	r = read_value(fd, &n);
	check(!led_exists("abi-g-hold100") && led_exists("abi-g-back") && r == (int)sizeof(int),
	      "closing the group removes the LEDs it alone held, not the others",
	      "hold100 exists %d, back exists %d, read %s", led_exists("abi-g-hold100"),
	      led_exists("abi-g-back"), err_name(r));
	close(fd);
}

static void test_group_overflow_and_blink(void)
{
	int g = new_group(4), a = new_event_led("abi-g-over", 0, 0), n, lost = 0;
	int b = new_event_led("abi-g-blink", 0, ULEDS_EVENT_F_BLINK);
	struct uleds_event ev[16];
	char v[8];
	bool blink = false;

	group_add(g, a, 1);
	for (int i = 1; i <= 10; i++) {
		snprintf(v, sizeof(v), "%d", i);
		sysfs_write("abi-g-over", "brightness", v);
	}
	n = read_events(g, ev, 16);
	for (int i = 0; i < n; i++)
		lost += (int)ev[i].lost;
	check(n == 4 && ev[0].lost == 6 && lost == 6 && ev[0].brightness == 7 &&
		  ev[0].seq == 7,
	      "a full group ring drops the oldest and says so on the oldest kept",
	      "%d records, lost %d, first value %d", n, lost, n ? ev[0].brightness : -1);

	group_add(g, b, 2);
	sysfs_write("abi-g-blink", "trigger", "timer");
	sleep_ms(50);
	n = read_events(g, ev, 16);
	for (int i = 0; i < n; i++)
		blink |= ev[i].id == 2 && ev[i].type == ULEDS_EVENT_BLINK;
	check(blink, "a member's offloaded blink comes to the group as a BLINK record",
	      "%d records, none BLINK of id 2", n);
	sysfs_write("abi-g-blink", "trigger", "none");
	close(a);
	close(b);
	close(g);
}

/* Many LEDs, one read: what uledsd's wakeup gets. */
static void test_group_many(void)
{
	static struct uleds_event ev[GROUP_MANY + 8];
	int g = new_group(0), fds[GROUP_MANY], n, r;
	char name[32];
	bool ok = true;

	for (int i = 0; i < GROUP_MANY; i++) {
		snprintf(name, sizeof(name), "abi-g-many%d", i);
		fds[i] = new_led(name, 1, O_NONBLOCK);
		ok &= fds[i] >= 0 && group_add(g, fds[i], (uint32_t)i + 1000) == 0;
	}
	read_events(g, ev, GROUP_MANY + 8); /* the initial values */
	for (int i = 0; i < GROUP_MANY; i++) {
		snprintf(name, sizeof(name), "abi-g-many%d", i);
		sysfs_write(name, "brightness", "1");
	}
	r = (int)read(g, ev, sizeof(ev));
	n = r > 0 ? r / (int)sizeof(ev[0]) : r;
	for (int i = 0; ok && i < n; i++)
		ok = ev[i].id == (uint32_t)i + 1000 && ev[i].brightness == 1;
	check(ok && n == GROUP_MANY, "one read returns the changes of 200 LEDs, in order",
	      "%d records", n);
	for (int i = 0; i < GROUP_MANY; i++)
		close(fds[i]);
	close(g);
	check(count_leds("abi-g-many") == 0, "closing the group and the fds removes all 200",
	      "%d left", count_leds("abi-g-many"));
}

void test_groups(void)
{
	test_group_create();
	test_group_records();
	test_group_blocking_read();
	test_group_holds();
	test_group_overflow_and_blink();
	test_group_many();
}
