// SPDX-License-Identifier: MIT
/* systemd's fd store keeps every uleds fd open across a crash, so the LEDs never disappear. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>

#include "conf.h"
#include "fdstore.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "string-util.h"

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

static int notify_send(const char *msg, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = {0};
	struct iovec iov = {.iov_base = (char *)msg, .iov_len = strlen(msg)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &fd, sizeof(int));
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

static void notify_fd(struct manager *m, const char *what, const char *name, int fd)
{
	_cleanup_free_ char *esc = NULL, *msg = NULL;
	int r;

	if (!m->notify || fdstore_name_escape(name, &esc) < 0)
		return;
	if (asprintf(&msg, "%s=1\nFDNAME=%s", what, esc) < 0)
		return;
	r = notify_send(msg, fd);
	if (r < 0 && !m->notify_warned) {
		/* Once: with 1000 LEDs a dead notify socket would flood the log. */
		log_warning_errno(r, "%s: failed to tell systemd %s, ignoring (reported once): %m",
				  name, what);
		m->notify_warned = true;
	}
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
		char *name = NULL;

		if (!names || !names[i] || fdstore_name_unescape(names[i], &name) < 0) {
			log_warning("fd store: fd %d has an unusable name '%s'; closing it.",
				    SD_LISTEN_FDS_START + i, names && names[i] ? names[i] : "");
			safe_close(SD_LISTEN_FDS_START + i);
			continue;
		}
		m->stored_fds[m->n_stored] = SD_LISTEN_FDS_START + i;
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
		notify_fd(m, "FDSTOREREMOVE", m->stored_names[i], -1);
		safe_close(m->stored_fds[i]);
		free(m->stored_names[i]);
		m->stored_names[i] = NULL;
	}
	m->n_stored = kept;
	m->keep_logged = true;
}

void fdstore_add(struct led *l)
{
	notify_fd(l->manager, "FDSTORE", l->name, l->fd);
}

void fdstore_remove(struct led *l)
{
	fdstore_forget(l->manager, l->name);
}

void fdstore_forget(struct manager *m, const char *name)
{
	notify_fd(m, "FDSTOREREMOVE", name, -1);
}
