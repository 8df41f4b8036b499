/* SPDX-License-Identifier: MIT */
/* At most N events a second, the last one of a burst always delivered: the log and dbus backends.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* Called when the interval after a burst is over; folded: changes of the burst that were
 * never delivered (the one delivered now not counted). */
typedef void (*ratelimit_fire_t)(void *userdata, unsigned folded);

struct ratelimit {
	uint64_t interval_usec; /* 0: no limit */
	uint64_t last_usec;	/* when the last event went out, 0: never */
	bool pending;		/* an event waits for the timer */
	unsigned deferred;	/* events since the last delivery, the pending one included */
	sd_event_source *timer;
	ratelimit_fire_t fire;
	void *userdata;
	const char *description; /* of the timer: "log-ratelimit" */
};

void ratelimit_init(struct ratelimit *rl, unsigned per_second, const char *description,
		    ratelimit_fire_t fire, void *userdata);
uint64_t ratelimit_now(void);
/* An event at now (ratelimit_now()): 1 when the caller delivers it at once, 0 when it is
 * deferred (fire() delivers the latest later), -errno when no timer could be armed: the
 * caller delivers it at once rather than never. */
int ratelimit_test(struct ratelimit *rl, sd_event *event, uint64_t now);
/* Deliver a pending event now (the owner goes away) and drop the timer. */
void ratelimit_flush(struct ratelimit *rl);
void ratelimit_done(struct ratelimit *rl);
