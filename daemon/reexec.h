/* SPDX-License-Identifier: MIT */
/* Re-executing uledsd in place, keeping every LED (uledsd(8), RE-EXECUTION). */
#pragma once

struct manager;

/* Re-execute the binary uledsd was started from (the new one after an upgrade) at the next
 * event loop iteration, handing over every LED fd; returns at once. On failure before the
 * exec uledsd runs on; after it, it exits 1 (systemd restarts it from the fd store). */
int manager_reexec(struct manager *m);
/* In the new process, before the LEDs are set up: count the re-execution as a reload. */
void reexec_collect(struct manager *m);
