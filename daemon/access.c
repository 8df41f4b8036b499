// SPDX-License-Identifier: MIT
/* Who may change state over D-Bus (uledsd-dbus(7), SECURITY): root; members of the group
 * uledsd, as dbus-daemon reports them (sd-bus 252 would read /proc, which ProtectProc hides);
 * whom polkit admits for io.uledsd1.manage. Both questions are asked asynchronously: the
 * method call waits, the bus does not. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>

#include "access.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "string-util.h"

#define USEC_PER_SEC 1000000ULL
/* polkitd missing or stuck means "no", soon; a person typing a password needs longer. */
#define POLKIT_TIMEOUT_USEC (5 * USEC_PER_SEC)
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (300 * USEC_PER_SEC)

struct access_query {
	struct access_query *next;
	sd_bus_message *msg; /* the method call; dispatched again once answered */
	sd_bus_slot *slot;   /* the question in flight */
	bool interactive;    /* polkit may ask for a password (never for CanManage) */
	bool done, allowed;
};

static struct access_query **queries(struct manager *m)
{
	return (struct access_query **)&m->access;
}

static void query_free(struct manager *m, struct access_query *q)
{
	for (struct access_query **p = queries(m); *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			break;
		}
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->msg);
	free(q);
}

void access_free_all(struct manager *m)
{
	while (*queries(m))
		query_free(m, *queries(m));
}

/* The caller's effective uid as dbus-daemon saw it on the socket (never the racy /proc). */
bool access_caller_is_root(sd_bus_message *msg)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	uid_t euid;

	return sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds) >= 0 &&
	       !(sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID) &&
	       sd_bus_creds_get_euid(creds, &euid) >= 0 && euid == 0;
}

/* The answer is in: run the method again, it finds the verdict. */
static void query_answer(struct access_query *q, bool allowed)
{
	int r;

	q->done = true;
	q->allowed = allowed;
	q->slot = sd_bus_slot_unref(q->slot);
	r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->msg), q->msg);
	if (r < 0)
		log_warning_errno(r, "Failed to dispatch a method call again: %m");
}

static int on_polkit(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error _unused_)
{
	struct access_query *q = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	int authorized = 0, challenge = 0;

	if (e)
		log_debug("polkit did not answer (%s): denied.", e->message);
	else if (sd_bus_message_enter_container(reply, 'r', "bba{ss}") < 0 ||
		 sd_bus_message_read(reply, "bb", &authorized, &challenge) < 0)
		authorized = challenge = 0;
	/* challenge: polkit would ask for a password, which only an interactive call does. */
	query_answer(q, authorized);
	return 0;
}

static int ask_polkit(struct access_query *q)
{
	sd_bus *bus = sd_bus_message_get_bus(q->msg);
	bool interactive = q->interactive;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
	int r;

	r = sd_bus_message_new_method_call(
	    bus, &call, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
	    "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
	if (r >= 0)
		r = sd_bus_message_append(call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name",
					  "s", sd_bus_message_get_sender(q->msg),
					  ACCESS_POLKIT_ACTION, 0, (uint32_t)interactive, "");
	if (r >= 0)
		r = sd_bus_call_async(bus, &q->slot, call, on_polkit, q,
				      interactive ? POLKIT_INTERACTIVE_TIMEOUT_USEC
						  : POLKIT_TIMEOUT_USEC);
	return r;
}

static bool gids_contain(sd_bus_message *reply, gid_t gid)
{
	const char *key;
	bool found = false;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r > 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		uint32_t *v;
		size_t n = 0;

		r = sd_bus_message_read(reply, "s", &key);
		if (r > 0 && streq(key, "UnixGroupIDs") &&
		    sd_bus_message_enter_container(reply, 'v', "au") > 0 &&
		    sd_bus_message_read_array(reply, 'u', (const void **)&v, &n) > 0) {
			for (size_t i = 0; i < n / sizeof(uint32_t); i++)
				found = found || v[i] == gid;
			return found;
		}
		r = r > 0 ? sd_bus_message_skip(reply, "v") : r;
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	return false;
}

static int on_credentials(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error _unused_)
{
	struct access_query *q = userdata;
	struct group *g = getgrnam(ACCESS_GROUP);

	if (!sd_bus_message_is_method_error(reply, NULL) && g && gids_contain(reply, g->gr_gid)) {
		query_answer(q, true);
		return 0;
	}
	q->slot = sd_bus_slot_unref(q->slot);
	if (ask_polkit(q) < 0)
		query_answer(q, false);
	return 0;
}

static int access_ask(struct manager *m, sd_bus_message *msg, bool interactive)
{
	struct access_query *q = calloc(1, sizeof(*q));
	int r;

	if (!q)
		return -ENOMEM;
	q->msg = sd_bus_message_ref(msg);
	q->interactive = interactive;
	q->next = *queries(m);
	*queries(m) = q;
	r = sd_bus_call_method_async(sd_bus_message_get_bus(msg), &q->slot, "org.freedesktop.DBus",
				     "/org/freedesktop/DBus", "org.freedesktop.DBus",
				     "GetConnectionCredentials", on_credentials, q, "s",
				     sd_bus_message_get_sender(msg));
	if (r < 0)
		query_free(m, q);
	return r;
}

/* 1 allowed, 0 asked (call again later), -EACCES denied. */
static int access_verdict(struct manager *m, sd_bus_message *msg, bool interactive)
{
	int r;

	if (access_caller_is_root(msg))
		return 1;
	for (struct access_query *q = *queries(m); q; q = q->next)
		if (q->msg == msg) {
			bool allowed = q->allowed;

			if (!q->done)
				return 0; /* the same call again before the answer: wait */
			query_free(m, q);
			return allowed ? 1 : -EACCES;
		}
	r = access_ask(m, msg, interactive);
	return r < 0 ? -EACCES : 0;
}

int access_check(struct manager *m, sd_bus_message *msg, sd_bus_error *error)
{
	int r = access_verdict(m, msg, sd_bus_message_get_allow_interactive_authorization(msg) > 0);

	if (r >= 0)
		return r;
	return sd_bus_error_setf(
	    error, SD_BUS_ERROR_ACCESS_DENIED,
	    "%s.%s() changes state, which uledsd allows for root, members of the group '%s' and "
	    "whom polkit admits for the action %s.",
	    sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg), ACCESS_GROUP,
	    ACCESS_POLKIT_ACTION);
}

/* Allowed now, without a password: a client that enables controls by this answer makes plain
 * calls, which polkit's "would ask" (auth_admin, the default for everyone) would refuse. */
int access_can_manage(struct manager *m, sd_bus_message *msg)
{
	/* A question, not an attempt: no password prompt, whatever the call allows (busctl
	 * allows interactive authorization by default). */
	return access_verdict(m, msg, false);
}
