// SPDX-License-Identifier: MIT
/* Calls that change state: on a terminal polkit may ask for a password, so they allow
 * interactive authorization, wait long, and have pkttyagent answer there (as systemctl does).
 * Elsewhere (scripts, services) nobody could answer: a plain call, refused at once. */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

/* A person typing a password needs longer than sd-bus's 25 s default. */
#define INTERACTIVE_TIMEOUT_USEC (300ULL * 1000000ULL)
#define PKTTYAGENT "/usr/bin/pkttyagent"

static pid_t agent_pid;

static void agent_close(void)
{
	if (agent_pid <= 0)
		return;
	kill(agent_pid, SIGTERM);
	(void)waitpid(agent_pid, NULL, 0);
	agent_pid = 0;
}

/* Once: it registers for this process and says so by closing the notify fd. */
static void agent_open(void)
{
	int fds[2];
	pid_t pid;

	if (agent_pid > 0 || access(PKTTYAGENT, X_OK) < 0 || pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		char fd[16], parent[32];

		close(fds[0]);
		snprintf(fd, sizeof(fd), "%d", fds[1]);
		snprintf(parent, sizeof(parent), "%d", (int)getppid());
		execl(PKTTYAGENT, PKTTYAGENT, "--notify-fd", fd, "--fallback", "--process", parent,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid > 0) {
		struct pollfd p = {.fd = fds[0], .events = POLLHUP};

		agent_pid = pid;
		atexit(agent_close);
		(void)poll(&p, 1, 10000);
	}
	close(fds[0]);
}

int ctl_call_interactive(struct ctl *c, sd_bus_message *m, uint64_t timeout_usec, sd_bus_error *e,
			 sd_bus_message **reply)
{
	int r;

	if (!isatty(STDIN_FILENO))
		return sd_bus_call(c->bus, m, timeout_usec, e, reply);
	agent_open();
	r = sd_bus_message_set_allow_interactive_authorization(m, true);
	if (r >= 0)
		r = sd_bus_call(c->bus, m,
				timeout_usec > INTERACTIVE_TIMEOUT_USEC ? timeout_usec
									: INTERACTIVE_TIMEOUT_USEC,
				e, reply);
	return r;
}
