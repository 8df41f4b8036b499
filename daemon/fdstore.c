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
#include "led.h"
#include "log.h"
#include "manager.h"
#include "string-util.h"
#include "uleds-ext.h"

/* systemd rejects FDNAMEs with ':' or control characters (and the fd then comes back named
 * "stored"): escape those, '%' itself and anything outside printable ASCII as %XX. */
static bool fdname_char_ok(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != ':' && c != '%';
}

int fdstore_name_escape(const char *name, char **ret)
{
	char *s = malloc(strlen(name) * 3 + 1), *p = s;

	if (!s)
		return -ENOMEM;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (fdname_char_ok(*c))
			*p++ = (char)*c;
		else
			p += sprintf(p, "%%%02X", *c);
	*p = 0;
	*ret = s;
	return 0;
}

int fdstore_name_unescape(const char *fdname, char **ret)
{
	char *s = malloc(strlen(fdname) + 1), *p = s;

	if (!s)
		return -ENOMEM;
	for (const char *c = fdname; *c; c++) {
		unsigned v;

		if (*c != '%') {
			*p++ = *c;
			continue;
		}
		/* Only what fdstore_name_escape() writes: two hex digits, not NUL. */
		if (!isxdigit((unsigned char)c[1]) || !isxdigit((unsigned char)c[2]) ||
		    sscanf(c + 1, "%2x", &v) != 1 || v == 0) {
			free(s);
			return -EINVAL;
		}
		*p++ = (char)v;
		c += 2;
	}
	*p = 0;
	*ret = s;
	return 0;
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

static void notify_warn(struct manager *m, int r, const char *name, const char *what)
{
	/* Once: with 1000 LEDs a dead notify socket would flood the log. */
	if (r < 0 && !m->notify_warned) {
		log_warning_errno(r, "%s: failed to tell systemd %s, ignoring (reported once): %m",
				  name, what);
		m->notify_warned = true;
	}
}

static void notify_fd(struct manager *m, const char *what, const char *name, int fd)
{
	_cleanup_free_ char *esc = NULL, *msg = NULL;

	if (!m->notify || fdstore_name_escape(name, &esc) < 0)
		return;
	if (asprintf(&msg, "%s=1\nFDNAME=%s", what, esc) < 0)
		return;
	notify_warn(m, notify_send(msg, &fd, fd >= 0 ? 1 : 0), name, what);
}

/* Which LED a stored fd carries, from uledsd's kmod; NULL from any other driver. */
static char *stored_led_name(int fd)
{
	struct uleds_user_dev u = {0};

	if (ioctl(fd, ULEDS_IOC_GET_DEV, &u) < 0)
		return NULL;
	return strndup(u.name, sizeof(u.name));
}

int fdstore_collect(struct manager *m)
{
	char **names = NULL;
	int n;

	n = sd_listen_fds_with_names(true, &names);
	if (n <= 0)
		return n;
	m->stored_fds = calloc((size_t)n, sizeof(int));
	m->stored_names = calloc((size_t)n, sizeof(char *));
	if (!m->stored_fds || !m->stored_names) {
		/* Not kept open unowned: systemd still has its copies for the next start. */
		for (int i = 0; i < n; i++)
			safe_close(SD_LISTEN_FDS_START + i);
		free(m->stored_fds);
		free(m->stored_names);
		m->stored_fds = NULL;
		m->stored_names = NULL;
		strv_free(names);
		return log_oom();
	}
	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		char *name = stored_led_name(fd);

		/* A batch's fds share one FDNAME: the kmod tells each one's LED. */
		if (!name && names && names[i] && streq(names[i], FDSTORE_BATCH_NAME)) {
			log_warning("fd store: fd %d of a batch carries no LED any more; closing it.",
				    fd);
			safe_close(fd);
			continue;
		}
		if (!name &&
		    (!names || !names[i] || fdstore_name_unescape(names[i], &name) < 0)) {
			log_warning("fd store: fd %d has an unusable name '%s'; closing it.", fd,
				    names && names[i] ? names[i] : "");
			safe_close(fd);
			continue;
		}
		m->stored_fds[m->n_stored] = fd;
		m->stored_names[m->n_stored++] = name;
	}
	strv_free(names);
	log_info("fd store: %zu LED%s kept by systemd.", m->n_stored, m->n_stored == 1 ? "" : "s");
	return 0;
}

int fdstore_take(struct manager *m, const char *name)
{
	for (size_t i = 0; i < m->n_stored; i++)
		if (m->stored_names[i] && streq(m->stored_names[i], name)) {
			free(m->stored_names[i]);
			m->stored_names[i] = NULL;
			return TAKE_FD(m->stored_fds[i]);
		}
	return -ENOENT;
}

void fdstore_release_unused(struct manager *m, const struct conf *c)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->n_stored; i++) {
		if (!m->stored_names[i])
			continue;
		if (c && conf_is_failed(c, m->stored_names[i])) {
			/* As a reload keeps the old LED of a broken definition: the fd store's LED
			 * is that old LED. */
			if (!m->keep_logged)
				log_warning(
				    "%s: its definition has errors; keeping the LED as it "
				    "was before the restart (its trigger runs, no backends) "
				    "until a reload with the errors fixed.",
				    m->stored_names[i]);
			m->stored_fds[kept] = m->stored_fds[i];
			m->stored_names[kept++] = m->stored_names[i];
			continue;
		}
		log_info("%s: no longer configured; releasing the LED kept by systemd.",
			 m->stored_names[i]);
		fdstore_forget(m, m->stored_names[i], m->stored_fds[i]);
		safe_close(m->stored_fds[i]);
		free(m->stored_names[i]);
		m->stored_names[i] = NULL;
	}
	m->n_stored = kept;
	m->keep_logged = true;
}

/* With uledsd's kmod, fds go to systemd in batches of up to NOTIFY_FDS_MAX under one FDNAME:
 * one datagram (one wakeup of PID 1) per batch instead of per LED. Adoption tells them apart
 * with ULEDS_IOC_GET_DEV, and one LED leaves the store by ULEDS_IOC_DEV_REMOVE (systemd drops
 * a stored fd that reports HUP), since FDSTOREREMOVE=1 would drop the whole batch. */
void fdstore_flush(struct manager *m)
{
	int fds[NOTIFY_FDS_MAX];

	m->store_flush = sd_event_source_disable_unref(m->store_flush);
	for (size_t i = 0; i < m->n_store_queue;) {
		size_t n = 0;

		for (; i < m->n_store_queue && n < NOTIFY_FDS_MAX; i++) {
			m->store_queue[i]->store_queued = false;
			fds[n++] = m->store_queue[i]->fd;
		}
		notify_warn(m, notify_send("FDSTORE=1\nFDNAME=" FDSTORE_BATCH_NAME, fds, n),
			    m->store_queue[i - 1]->name, "FDSTORE");
	}
	m->n_store_queue = 0;
}

static int on_store_flush(sd_event_source *s _unused_, void *userdata)
{
	fdstore_flush(userdata);
	return 0;
}

void fdstore_add(struct led *l)
{
	struct manager *m = l->manager;
	struct led **q;

	if (!m->notify)
		return;
	/* The in-tree driver cannot say which LED an fd carries: one FDNAME per LED. */
	if (m->uleds_ext != 1 || l->store_queued) {
		if (!l->store_queued)
			notify_fd(m, "FDSTORE", l->name, l->fd);
		return;
	}
	q = realloc(m->store_queue, (m->n_store_queue + 1) * sizeof(*q));
	if (!q) {
		notify_fd(m, "FDSTORE", l->name, l->fd);
		return;
	}
	m->store_queue = q;
	m->store_queue[m->n_store_queue++] = l;
	l->store_queued = true;
	/* Sent in the next loop iteration, so LEDs made by one reload or call go together. */
	if (!m->store_flush &&
	    sd_event_add_defer(m->event, &m->store_flush, on_store_flush, m) >= 0)
		(void)sd_event_source_set_description(m->store_flush, "fdstore-flush");
}

void fdstore_unqueue(struct led *l)
{
	struct manager *m = l->manager;

	if (!l->store_queued)
		return;
	for (size_t i = 0; i < m->n_store_queue; i++)
		if (m->store_queue[i] == l) {
			memmove(m->store_queue + i, m->store_queue + i + 1,
				(m->n_store_queue - i - 1) * sizeof(*m->store_queue));
			m->n_store_queue--;
			break;
		}
	l->store_queued = false;
}

void fdstore_remove(struct led *l)
{
	if (l->store_queued) {
		fdstore_unqueue(l); /* never sent: closing the fd removes it */
		return;
	}
	fdstore_forget(l->manager, l->name, l->fd);
}

void fdstore_forget(struct manager *m, const char *name, int fd)
{
	if (!m->notify)
		return;
	/* uledsd's kmod: the LED goes now and systemd drops its copy on the HUP, however it
	 * was named; the in-tree driver (ENOTTY): by its name. */
	if (fd >= 0 && ioctl(fd, ULEDS_IOC_DEV_REMOVE) == 0)
		return;
	notify_fd(m, "FDSTOREREMOVE", name, -1);
}
