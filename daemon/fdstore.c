// SPDX-License-Identifier: MIT
/* systemd's fd store keeps every uleds fd open across a crash, so the LEDs never disappear. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>

#include "conf.h"
#include "fdstore.h"
#include "led-name.h"
#include "led.h"
#include "log.h"
#include "string-util.h"
#include "uleds-ext.h"

struct fdstore {
	sd_event *event;
	bool notify; /* NOTIFY_SOCKET is set: there is a store */
	bool notify_warned;
	bool keep_logged;  /* fd store LEDs of broken definitions: said once */
	bool group_stored; /* the uleds group's fd is in systemd's store, or was handed over */
	/* fds handed back by systemd's fd store at start */
	int *stored_fds;
	char **stored_names;
	size_t n_stored, n_alloc;
	/* LEDs whose fds go to the fd store in the next batch */
	struct led **store_queue;
	size_t n_store_queue;
	sd_event_source *store_flush;
};

int fdstore_new(sd_event *event, struct fdstore **ret)
{
	struct fdstore *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return -ENOMEM;
	fs->event = event;
	fs->notify = !!getenv("NOTIFY_SOCKET");
	*ret = fs;
	return 0;
}

struct fdstore *fdstore_free(struct fdstore *fs)
{
	if (!fs)
		return NULL;
	fdstore_release_unused(fs, NULL);
	free(fs->store_queue);
	sd_event_source_disable_unref(fs->store_flush);
	free(fs->stored_fds);
	free(fs->stored_names);
	free(fs);
	return NULL;
}

void fdstore_set_notify(struct fdstore *fs, bool notify)
{
	fs->notify = notify;
}

int fdstore_put(struct fdstore *fs, const char *name, int fd)
{
	char *copy;

	/* Doubling: a stored group hands over every LED, 10 000 of them one by one. */
	if (fs->n_stored == fs->n_alloc) {
		size_t n = fs->n_alloc ? fs->n_alloc * 2 : 16;
		int *nf = realloc(fs->stored_fds, n * sizeof(int));
		char **nn;

		if (nf)
			fs->stored_fds = nf;
		nn = nf ? realloc(fs->stored_names, n * sizeof(char *)) : NULL;
		if (!nn)
			return -ENOMEM;
		fs->stored_names = nn;
		fs->n_alloc = n;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	fs->stored_fds[fs->n_stored] = fd;
	fs->stored_names[fs->n_stored++] = copy;
	return 0;
}

bool fdstore_stored(const struct fdstore *fs, const char *name)
{
	for (size_t i = 0; i < fs->n_stored; i++)
		if (fs->stored_names[i] && streq(fs->stored_names[i], name))
			return true;
	return false;
}

size_t fdstore_n_kept(const struct fdstore *fs)
{
	return fs->n_stored;
}

void fdstore_kept(const struct fdstore *fs, size_t i, const char **ret_name, int *ret_fd)
{
	*ret_name = fs->stored_names[i];
	*ret_fd = fs->stored_fds[i];
}

/* One connected datagram socket to $NOTIFY_SOCKET for all fd store messages:
 * sd_pid_notify_with_fds() opens and closes a socket per call, three syscalls an LED. */
static int notify_socket = -1;

static int notify_connect(void)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n;
	int fd;

	if (!e || (e[0] != '/' && e[0] != '@') || (n = strlen(e)) >= sizeof(sa.sun_path))
		return -EAFNOSUPPORT;
	memcpy(sa.sun_path, e, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = 0; /* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0) {
		safe_close(fd);
		return -errno;
	}
	return fd;
}

/* SCM_MAX_FD: the kernel passes at most 253 fds in one message. */
#define NOTIFY_FDS_MAX 253

static int notify_send(const char *msg, const int *fds, size_t n_fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * NOTIFY_FDS_MAX)];
	} control = {0};
	struct iovec iov = {.iov_base = (char *)msg, .iov_len = strlen(msg)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (n_fds > 0) {
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), fds, sizeof(int) * n_fds);
	}
	/* A second try on a fresh socket: systemd may have re-executed since we connected. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (notify_socket < 0)
			notify_socket = notify_connect();
		if (notify_socket < 0)
			return notify_socket;
		if (sendmsg(notify_socket, &mh, MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno != ECONNREFUSED && errno != ENOTCONN && errno != ENOENT)
			return -errno;
		notify_socket = safe_close(notify_socket);
	}
	return -ECONNREFUSED;
}

static void notify_warn(struct fdstore *fs, int r, const char *name, const char *what)
{
	/* Once: with 1000 LEDs a dead notify socket would flood the log. */
	if (r < 0 && !fs->notify_warned) {
		log_warning_errno(r, "%s: failed to tell systemd %s, ignoring (reported once): %m",
				  name, what);
		fs->notify_warned = true;
	}
}

static void notify_fd(struct fdstore *fs, const char *what, const char *name, int fd)
{
	_cleanup_free_ char *esc = NULL, *msg = NULL;

	if (!fs->notify || led_name_escape(name, &esc) < 0)
		return;
	if (asprintf(&msg, "%s=1\nFDNAME=%s", what, esc) < 0)
		return;
	notify_warn(fs, notify_send(msg, &fd, fd >= 0 ? 1 : 0), name, what);
}

/* Which LED a stored fd carries, from uledsd's kmod; NULL from any other driver. */
static char *stored_led_name(int fd)
{
	struct uleds_user_dev u = {0};

	if (ioctl(fd, ULEDS_IOC_GET_DEV, &u) < 0)
		return NULL;
	return strndup(u.name, sizeof(u.name));
}

/* A member of the stored uleds group: kept as an fd of the LED it carries (the group's members
 * have distinct names: LED names are unique). */
static int collect_member(int fd, void *userdata)
{
	struct fdstore *fs = userdata;
	_cleanup_free_ char *name = stored_led_name(fd);
	int r;

	if (!name) {
		safe_close(fd);
		return 0;
	}
	r = fdstore_put(fs, name, fd);
	if (r < 0)
		safe_close(fd); /* the group still holds the LED */
	return r;
}

static bool is_group(char **names, int i)
{
	return names && names[i] && streq(names[i], FDSTORE_GROUP_NAME);
}

/* The members of a uleds group among the stored fds (it holds their LEDs): ctx's group now. */
static void collect_group(struct fdstore *fs, struct led_context *ctx, int n, char **names)
{
	for (int i = 0; i < n; i++) {
		if (!is_group(names, i))
			continue;
		if (led_watch_adopt_group(ctx->event, &ctx->watch, SD_LISTEN_FDS_START + i,
					  collect_member, fs) >= 0) {
			fs->group_stored = true;
			ctx->uleds_ext = 1;
		}
	}
}

/* One stored fd passed alone, under the FDNAME fdname. */
static void collect_one(struct fdstore *fs, int fd, const char *fdname)
{
	char *name = stored_led_name(fd);

	/* Two fds of one LED, the group's and one passed alone (a re-execution passes the LEDs
	 * kept for broken definitions too), are one: LED names are unique. */
	if (name && fs->group_stored && fdstore_stored(fs, name)) {
		free(name);
		safe_close(fd);
		return;
	}
	/* A batch's fds share one FDNAME: the kmod tells each one's LED. */
	if (!name && fdname && streq(fdname, FDSTORE_BATCH_NAME)) {
		log_warning("fd store: fd %d of a batch carries no LED any more; closing it.", fd);
		safe_close(fd);
		return;
	}
	if (!name && (!fdname || led_name_unescape(fdname, &name) < 0)) {
		log_warning("fd store: fd %d has an unusable name '%s'; closing it.", fd,
			    fdname ? fdname : "");
		safe_close(fd);
		return;
	}
	if (fdstore_put(fs, name, fd) < 0) {
		/* Not kept open unowned: systemd still has its copy for the next start. */
		log_oom();
		safe_close(fd);
	}
	free(name);
}

int fdstore_collect(struct fdstore *fs, struct led_context *ctx)
{
	char **names = NULL;
	int n;

	n = sd_listen_fds_with_names(true, &names);
	if (n <= 0)
		return n;
	collect_group(fs, ctx, n, names);
	for (int i = 0; i < n; i++)
		if (!is_group(names, i))
			collect_one(fs, SD_LISTEN_FDS_START + i, names ? names[i] : NULL);
	strv_free(names);
	log_info("fd store: %zu LED%s kept by systemd%s.", fs->n_stored,
		 fs->n_stored == 1 ? "" : "s", fs->group_stored ? " in a uleds group" : "");
	return 0;
}

int fdstore_take(struct fdstore *fs, const char *name)
{
	for (size_t i = 0; i < fs->n_stored; i++)
		if (fs->stored_names[i] && streq(fs->stored_names[i], name)) {
			free(fs->stored_names[i]);
			fs->stored_names[i] = NULL;
			return TAKE_FD(fs->stored_fds[i]);
		}
	return -ENOENT;
}

void fdstore_release_unused(struct fdstore *fs, const struct conf *c)
{
	size_t kept = 0;

	for (size_t i = 0; i < fs->n_stored; i++) {
		if (!fs->stored_names[i])
			continue;
		if (c && conf_is_failed(c, fs->stored_names[i])) {
			/* As a reload keeps the old LED of a broken definition: the fd store's LED
			 * is that old LED. */
			if (!fs->keep_logged)
				log_warning(
				    "%s: its definition has errors; keeping the LED as it "
				    "was before the restart (its trigger runs, no backends) "
				    "until a reload with the errors fixed.",
				    fs->stored_names[i]);
			fs->stored_fds[kept] = fs->stored_fds[i];
			fs->stored_names[kept++] = fs->stored_names[i];
			continue;
		}
		log_info("%s: no longer configured; releasing the LED kept by systemd.",
			 fs->stored_names[i]);
		fdstore_forget(fs, fs->stored_names[i], fs->stored_fds[i]);
		safe_close(fs->stored_fds[i]);
		free(fs->stored_names[i]);
		fs->stored_names[i] = NULL;
	}
	fs->n_stored = kept;
	fs->keep_logged = true;
}

/* With uledsd's kmod, fds go to systemd in batches of up to NOTIFY_FDS_MAX under one FDNAME:
 * one datagram (one wakeup of PID 1) per batch instead of per LED. Adoption tells them apart
 * with ULEDS_IOC_GET_DEV, and one LED leaves the store by ULEDS_IOC_DEV_REMOVE (systemd drops
 * a stored fd that reports HUP), since FDSTOREREMOVE=1 would drop the whole batch. */
void fdstore_flush(struct fdstore *fs)
{
	int fds[NOTIFY_FDS_MAX];

	fs->store_flush = sd_event_source_disable_unref(fs->store_flush);
	for (size_t i = 0; i < fs->n_store_queue;) {
		size_t n = 0;

		for (; i < fs->n_store_queue && n < NOTIFY_FDS_MAX; i++) {
			fs->store_queue[i]->store_queued = false;
			fds[n++] = fs->store_queue[i]->fd;
		}
		notify_warn(fs, notify_send("FDSTORE=1\nFDNAME=" FDSTORE_BATCH_NAME, fds, n),
			    fs->store_queue[i - 1]->name, "FDSTORE");
	}
	fs->n_store_queue = 0;
}

static int on_store_flush(sd_event_source *s _unused_, void *userdata)
{
	fdstore_flush(userdata);
	return 0;
}

void fdstore_add(struct fdstore *fs, struct led *l)
{
	struct led **q;

	if (!fs->notify)
		return;
	/* The in-tree driver cannot say which LED an fd carries: one FDNAME per LED. */
	if (l->ctx->uleds_ext != 1 || l->store_queued) {
		if (!l->store_queued)
			notify_fd(fs, "FDSTORE", l->name, l->fd);
		return;
	}
	q = realloc(fs->store_queue, (fs->n_store_queue + 1) * sizeof(*q));
	if (!q) {
		notify_fd(fs, "FDSTORE", l->name, l->fd);
		return;
	}
	fs->store_queue = q;
	fs->store_queue[fs->n_store_queue++] = l;
	l->store_queued = true;
	/* Sent in the next loop iteration, so LEDs made by one reload or call go together. */
	if (!fs->store_flush &&
	    sd_event_add_defer(fs->event, &fs->store_flush, on_store_flush, fs) >= 0)
		(void)sd_event_source_set_description(fs->store_flush, "fdstore-flush");
}

static void fdstore_unqueue(struct fdstore *fs, struct led *l)
{
	if (!l->store_queued)
		return;
	for (size_t i = 0; i < fs->n_store_queue; i++)
		if (fs->store_queue[i] == l) {
			memmove(fs->store_queue + i, fs->store_queue + i + 1,
				(fs->n_store_queue - i - 1) * sizeof(*fs->store_queue));
			fs->n_store_queue--;
			break;
		}
	l->store_queued = false;
}

void fdstore_remove(struct fdstore *fs, struct led *l)
{
	if (l->store_queued) {
		fdstore_unqueue(fs, l); /* never sent: closing the fd removes it */
		return;
	}
	fdstore_forget(fs, l->name, l->fd);
}

void fdstore_forget(struct fdstore *fs, const char *name, int fd)
{
	/* A uleds group holds the LED whether or not there is a store (a re-execution without
	 * systemd hands it over too): closing our fd would leave it there. */
	if (!fs->notify && !fs->group_stored)
		return;
	/* uledsd's kmod: the LED goes now (and leaves its group), and systemd drops a stored
	 * copy on the HUP, however it was named; the in-tree driver (ENOTTY): by its name. */
	if (fd >= 0 && ioctl(fd, ULEDS_IOC_DEV_REMOVE) == 0)
		return;
	if (fs->notify)
		notify_fd(fs, "FDSTOREREMOVE", name, -1);
}

/* uledsd's kmod with groups: the one group fd holds every LED, stored once, before READY=1
 * (the first LED is added before it). */
static void fdstore_add_group(struct fdstore *fs, struct led *l)
{
	int fd = led_watch_group_fd(l->ctx->watch), r;

	if (fs->group_stored || !fs->notify || fd < 0)
		return;
	r = notify_send("FDSTORE=1\nFDNAME=" FDSTORE_GROUP_NAME, &fd, 1);
	notify_warn(fs, r, l->name, "FDSTORE of the uleds group");
	if (r >= 0)
		log_info("fd store: the uleds group (one fd for every LED) is kept by systemd.");
	fs->group_stored = true;
}

void fdstore_on_led_event(struct led *l, const struct led_event *ev, void *userdata)
{
	struct fdstore *fs = userdata;

	if (ev->type == LED_EVENT_ADDED && l->watch.group_id)
		fdstore_add_group(fs, l); /* the group holds it: its own fd is not stored */
	else if (ev->type == LED_EVENT_ADDED && !l->adopted)
		fdstore_add(fs, l);
	else if (ev->type == LED_EVENT_REMOVED)
		fdstore_unqueue(fs, l);
	/* systemd's copy would keep an adopted LED alive: remove it (kmod) before the caller's
	 * FDSTOREREMOVE by name, which misses an fd stored in a batch. */
	else if (ev->type == LED_EVENT_ADOPT_FAILED)
		fdstore_forget(fs, l->name, l->fd);
}
