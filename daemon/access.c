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
#include "uledsd-bus.h"
#include "macro.h"
#include "manager.h"
#include "policy.h"
#include "string-util.h"

#define USEC_PER_SEC 1000000ULL
/* polkitd missing or stuck means "no", soon; a person typing a password needs longer. */
#define POLKIT_TIMEOUT_USEC (5 * USEC_PER_SEC)
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (300 * USEC_PER_SEC)

/* An answered call normally runs again at once; one whose object went meanwhile (RemoveLED
 * during a polkit prompt) never does, sd-bus answers UnknownObject itself: swept after this. */
#define ANSWERED_KEEP_USEC (2 * USEC_PER_SEC)

struct access_query {
	struct manager *manager;
	struct access_query *next;
	sd_bus_message *msg; /* the method call; dispatched again once answered */
	sd_bus_slot *slot;   /* the question in flight */
	enum access_action action;
	uid_t uid;	  /* the caller's, for the pending_max_per_user count */
	bool interactive; /* polkit may ask for a password (never for CanManage) */
	bool done, allowed;
	uint64_t done_usec; /* CLOCK_MONOTONIC of the answer */
};

struct access {
	struct access_query *queries;
	sd_event_source *sweep;
};

static struct access *access_get(struct manager *m)
{
	if (!m->access)
		m->access = calloc(1, sizeof(struct access));
	return m->access;
}

static struct access_query *first_query(struct manager *m)
{
	return m->access ? m->access->queries : NULL;
}

static void query_free(struct manager *m, struct access_query *q)
{
	for (struct access_query **p = &m->access->queries; *p; p = &(*p)->next)
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
	if (!m->access)
		return;
	while (m->access->queries)
		query_free(m, m->access->queries);
	sd_event_source_disable_unref(m->access->sweep);
	free(m->access);
	m->access = NULL;
}

static int on_sweep(sd_event_source *s _unused_, uint64_t now, void *userdata)
{
	struct manager *m = userdata;
	struct access_query *q, *next;
	bool left = false;

	for (q = m->access->queries; q; q = next) {
		next = q->next;
		if (q->done && q->done_usec + ANSWERED_KEEP_USEC <= now) {
			log_debug("An answered call of uid %u never ran again (its object went "
				  "away); forgetting it.",
				  (unsigned)q->uid);
			query_free(m, q);
		} else if (q->done)
			left = true;
	}
	if (left)
		(void)sd_event_source_set_time_relative(m->access->sweep, ANSWERED_KEEP_USEC);
	return left ? sd_event_source_set_enabled(m->access->sweep, SD_EVENT_ONESHOT) : 0;
}

/* Some answered call may never be dispatched again: look in a while. */
static void sweep_arm(struct manager *m)
{
	struct access *a = m->access;
	int enabled = SD_EVENT_OFF, r = 0;

	if (!a->sweep) {
		r = sd_event_add_time_relative(m->event, &a->sweep, CLOCK_MONOTONIC,
					       ANSWERED_KEEP_USEC, 0, on_sweep, m);
		if (r >= 0)
			(void)sd_event_source_set_description(a->sweep, "access-sweep");
	} else if (sd_event_source_get_enabled(a->sweep, &enabled) >= 0 &&
		   enabled == SD_EVENT_OFF) {
		r = sd_event_source_set_time_relative(a->sweep, ANSWERED_KEEP_USEC);
		if (r >= 0)
			r = sd_event_source_set_enabled(a->sweep, SD_EVENT_ONESHOT);
	}
	if (r < 0)
		log_warning_errno(r, "Failed to schedule forgetting answered calls: %m");
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
static void query_answer(struct manager *m, struct access_query *q, bool allowed)
{
	int r;

	q->done = true;
	q->allowed = allowed;
	q->slot = sd_bus_slot_unref(q->slot);
	(void)sd_event_now(m->event, CLOCK_MONOTONIC, &q->done_usec);
	sweep_arm(m);
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
	query_answer(q->manager, q, authorized);
	return 0;
}

static const char *action_id(enum access_action action)
{
	return action == ACCESS_CREATE_HARDWARE ? ULEDSD_POLKIT_CREATE_HARDWARE
						: ULEDSD_POLKIT_MANAGE;
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
					  action_id(q->action), 0, (uint32_t)interactive, "");
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
	struct group *g = getgrnam(ULEDSD_GROUP);

	if (!sd_bus_message_is_method_error(reply, NULL) && g && gids_contain(reply, g->gr_gid)) {
		query_answer(q->manager, q, true);
		return 0;
	}
	q->slot = sd_bus_slot_unref(q->slot);
	if (ask_polkit(q) < 0)
		query_answer(q->manager, q, false);
	return 0;
}

uid_t access_caller_uid(sd_bus_message *msg)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	uid_t euid;

	if (sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds) < 0 ||
	    sd_bus_creds_get_euid(creds, &euid) < 0)
		return (uid_t)-1;
	return euid;
}

/* Calls waiting for an answer, or answered and not run again yet, pin their message: bounded
 * per uid and in all. -EUSERS, and *ret_key the key of the limit hit. */
static int pending_check(struct manager *m, uid_t uid, const char **ret_key)
{
	unsigned mine = 0, all = 0;

	for (struct access_query *q = first_query(m); q; q = q->next) {
		all++;
		mine += q->uid == uid;
	}
	if (mine >= m->policy.pending_max_per_user)
		*ret_key = "pending_max_per_user";
	else if (all >= m->policy.pending_max)
		*ret_key = "pending_max";
	else
		return 0;
	return -EUSERS;
}

static int access_ask(struct manager *m, sd_bus_message *msg, enum access_action action,
		      bool interactive, const char **ret_key)
{
	struct access_query *q;
	uid_t uid = access_caller_uid(msg);
	int r;

	if (!access_get(m))
		return -ENOMEM;
	r = pending_check(m, uid, ret_key);
	if (r < 0)
		return r;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (struct access_query){.manager = m, .msg = sd_bus_message_ref(msg), .action = action,
				   .uid = uid, .interactive = interactive, .next = m->access->queries};
	m->access->queries = q;
	/* The group grants the right to manage, never the hardware: polkit alone decides. */
	if (action == ACCESS_CREATE_HARDWARE)
		r = ask_polkit(q);
	else
		r = sd_bus_call_method_async(
		    sd_bus_message_get_bus(msg), &q->slot, "org.freedesktop.DBus",
		    "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
		    on_credentials, q, "s", sd_bus_message_get_sender(msg));
	if (r < 0)
		query_free(m, q);
	return r;
}

/* 1 allowed, 0 asked (call again later), -EACCES denied, -EUSERS too many waiting. */
static int access_verdict(struct manager *m, sd_bus_message *msg, enum access_action action,
			  bool interactive, const char **ret_key)
{
	int r;

	if (access_caller_is_root(msg))
		return 1;
	for (struct access_query *q = first_query(m); q; q = q->next)
		if (q->msg == msg && q->action == action) {
			bool allowed = q->allowed;

			if (!q->done)
				return 0; /* the same call again before the answer: wait */
			query_free(m, q);
			return allowed ? 1 : -EACCES;
		}
	r = access_ask(m, msg, action, interactive, ret_key);
	if (r == -EUSERS)
		return r;
	return r < 0 ? -EACCES : 0;
}

static int access_limits_error(struct manager *m, sd_bus_message *msg, const char *key,
			       sd_bus_error *error)
{
	unsigned limit = streq(key, "pending_max") ? m->policy.pending_max
						    : m->policy.pending_max_per_user;

	return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
				 "%s.%s(): %u calls %s wait for their authorization already (%s = %u "
				 "in [%s] of uledsd.conf(5)); retry when they are answered.",
				 sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg),
				 limit, streq(key, "pending_max") ? "of all users" : "of this user",
				 key, limit, POLICY_SECTION);
}

int access_check_action(struct manager *m, sd_bus_message *msg, enum access_action action,
			sd_bus_error *error)
{
	const char *key = NULL;
	int r = access_verdict(m, msg, action,
			       sd_bus_message_get_allow_interactive_authorization(msg) > 0, &key);

	if (r >= 0)
		return r;
	if (r == -EUSERS)
		return access_limits_error(m, msg, key, error);
	if (action == ACCESS_CREATE_HARDWARE)
		return sd_bus_error_setf(
		    error, SD_BUS_ERROR_ACCESS_DENIED,
		    "%s.%s(): an LED with a hardware backend (gpio, pwm) drives a line or channel "
		    "of the board, which uledsd allows for root and whom polkit admits for the "
		    "action %s (the group '%s' is not enough). Use the dbus or log backend, or "
		    "ask the administrator to configure the LED.",
		    sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg),
		    ULEDSD_POLKIT_CREATE_HARDWARE, ULEDSD_GROUP);
	return sd_bus_error_setf(
	    error, SD_BUS_ERROR_ACCESS_DENIED,
	    "%s.%s() changes state, which uledsd allows for root, members of the group '%s' and "
	    "whom polkit admits for the action %s.",
	    sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg), ULEDSD_GROUP,
	    ULEDSD_POLKIT_MANAGE);
}

int access_check(struct manager *m, sd_bus_message *msg, sd_bus_error *error)
{
	return access_check_action(m, msg, ACCESS_MANAGE, error);
}

/* Allowed now, without a password: a client that enables controls by this answer makes plain
 * calls, which polkit's "would ask" (auth_admin, the default for everyone) would refuse. */
int access_can_manage(struct manager *m, sd_bus_message *msg)
{
	const char *key = NULL;

	/* A question, not an attempt: no password prompt, whatever the call allows (busctl
	 * allows interactive authorization by default). Too many waiting: "no" for now. */
	int r = access_verdict(m, msg, ACCESS_MANAGE, false, &key);

	return r == -EUSERS ? -EACCES : r;
}
