// SPDX-License-Identifier: MIT
/* The trivial program of the start-up target: the cost of exec, dynamic linking of libsystemd
 * and READY=1 alone, which every uledsd start pays and the in-process bare registration does
 * not. It waits for SIGTERM like the programs it stands beside. */
#include <systemd/sd-daemon.h>
#include <unistd.h>

int main(void)
{
	(void)sd_notify(0, "READY=1");
	for (;;)
		pause();
}
