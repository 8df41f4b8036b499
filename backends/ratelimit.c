// SPDX-License-Identifier: MIT
/* The rate limiter of the log and dbus backends: O(1) per change however fast an LED blinks. */
#include <time.h>

#include "ratelimit.h"

#define USEC_PER_SEC 1000000ULL

void ratelimit_init(struct ratelimit *rl, unsigned per_second, const char *description,
		    ratelimit_fire_t fire, void *userdata)
{
	*rl = (struct ratelimit){
	    .interval_usec = per_second ? USEC_PER_SEC / per_second : 0,
	    .fire = fire,
	    .userdata = userdata,
	    .description = description,
	};
}

uint64_t ratelimit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

/* The next interval counts from now, when this delivery goes out, not from the timer's due
 * time: a slow event loop then cannot bunch two deliveries together. */
static void ratelimit_deliver(struct ratelimit *rl)
{
	unsigned folded = rl->deferred > 0 ? rl->deferred - 1 : 0;

	rl->pending = false;
	rl->deferred = 0;
	rl->last_usec = ratelimit_now();
	rl->fire(rl->userdata, folded);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct ratelimit *rl = userdata;

	if (rl->pending)
		ratelimit_deliver(rl);
	return 0;
}

/* One timer per limiter, made once and re-armed: a burst costs no allocation. */
static int ratelimit_arm(struct ratelimit *rl, sd_event *event)
{
	uint64_t when = rl->last_usec + rl->interval_usec;
	int r;

	if (!rl->timer) {
		r = sd_event_add_time(event, &rl->timer, CLOCK_MONOTONIC, when, 0, on_timer, rl);
		if (r >= 0)
			(void)sd_event_source_set_description(rl->timer, rl->description);
		return r;
	}
	r = sd_event_source_set_time(rl->timer, when);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(rl->timer, SD_EVENT_ONESHOT);
}

int ratelimit_test(struct ratelimit *rl, sd_event *event, uint64_t now)
{
	int r;

	if (!rl->pending &&
	    (!rl->interval_usec || !rl->last_usec || now - rl->last_usec >= rl->interval_usec)) {
		rl->last_usec = now;
		rl->deferred = 0;
		return 1;
	}
	/* Too soon: the timer delivers the latest value when the interval is over; deferred
	 * counts this one too, so fire() can say how many were folded into it. */
	rl->deferred++;
	if (rl->pending)
		return 0;
	rl->pending = true;
	r = ratelimit_arm(rl, event);
	if (r < 0) {
		/* The caller delivers it now: start a new interval as if it had gone out. */
		rl->pending = false;
		rl->deferred = 0;
		rl->last_usec = now;
	}
	return r;
}

void ratelimit_flush(struct ratelimit *rl)
{
	if (rl->pending)
		ratelimit_deliver(rl);
	ratelimit_done(rl);
}

void ratelimit_done(struct ratelimit *rl)
{
	rl->pending = false;
	rl->deferred = 0;
	rl->timer = sd_event_source_disable_unref(rl->timer);
}
