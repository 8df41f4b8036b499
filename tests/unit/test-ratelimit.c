// SPDX-License-Identifier: MIT
/* The rate limiter of the log and dbus backends: first change at once, a burst folded into one
 * delivery of its last value when the interval is over, no limit with 0. */
#include <systemd/sd-event.h>

#include "ratelimit.h"
#include "test.h"

static unsigned fired, last_folded;

static void on_fire(void *userdata, unsigned folded)
{
	fired++;
	last_folded = folded;
	(*(unsigned *)userdata)++;
}

static void run_for(sd_event *e, uint64_t usec)
{
	uint64_t end = ratelimit_now() + usec;

	while (ratelimit_now() < end)
		(void)sd_event_run(e, end - ratelimit_now());
}

/* The loop every case runs its timers in. */
static sd_event *e;

static void test_burst(void)
{
	struct ratelimit rl;
	unsigned deliveries = 0;

	ratelimit_init(&rl, 20, "test-ratelimit", on_fire, &deliveries); /* 50 ms */
	fired = 0;
	CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 1, "first event goes out at once");
	for (int i = 0; i < 5; i++)
		CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 0, "events within 50 ms wait");
	CHECK(rl.pending, "a delivery is pending");
	CHECK_INT(fired, 0, "nothing fired before the interval is over");
	run_for(e, 120000);
	CHECK_INT(fired, 1, "the burst is delivered once when the interval is over");
	CHECK_INT(last_folded, 4, "5 deferred events: the last delivered, 4 folded");
	CHECK(!rl.pending, "nothing pending after the delivery");
	run_for(e, 60000);
	CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 1,
		  "after a quiet interval: at once again");
	ratelimit_done(&rl);
}

static void test_flush(void)
{
	struct ratelimit rl;
	unsigned deliveries = 0;

	ratelimit_init(&rl, 1, "test-ratelimit", on_fire, &deliveries); /* 1 s */
	fired = 0;
	CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 1, "first event at once");
	CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 0, "second one waits");
	ratelimit_flush(&rl);
	CHECK_INT(fired, 1, "flush delivers the pending event (the owner goes away)");
	CHECK(!rl.timer, "flush drops the timer");
	ratelimit_flush(&rl);
	CHECK_INT(fired, 1, "nothing pending: flush delivers nothing");
}

static void test_unlimited(void)
{
	struct ratelimit rl;
	unsigned deliveries = 0;

	ratelimit_init(&rl, 0, "test-ratelimit", on_fire, &deliveries);
	for (int i = 0; i < 100; i++)
		CHECK_INT(ratelimit_test(&rl, e, ratelimit_now()), 1, "0 means no limit");
	CHECK(!rl.timer, "no limit: no timer");
	ratelimit_done(&rl);
}

int main(void)
{
	if (sd_event_new(&e) < 0)
		return 2;
	TEST_CASE(test_burst);
	TEST_CASE(test_flush);
	TEST_CASE(test_unlimited);
	sd_event_unref(e);
	return test_finish("test-ratelimit");
}
