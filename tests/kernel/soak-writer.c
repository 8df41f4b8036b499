// SPDX-License-Identifier: MIT
/* The soak test's writer: changes the brightness of LEDs PREFIX0..PREFIX(N-1) round-robin for
 * SECONDS, each LED's sysfs file kept open (a shell's echo opens and closes it every time and
 * reaches ~500 changes/s under TCG). Prints the number of writes.
 * usage: soak-writer PREFIX N SECONDS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long writes = 0;
	double end;
	int n, *fd;

	if (argc != 4)
		return 2;
	n = atoi(argv[2]);
	fd = calloc((size_t)n, sizeof(int));
	if (n <= 0 || !fd)
		return 2;
	for (int i = 0; i < n; i++) {
		char path[256];

		snprintf(path, sizeof(path), "/sys/class/leds/%s%d/brightness", argv[1], i);
		fd[i] = open(path, O_WRONLY | O_CLOEXEC);
		if (fd[i] < 0) {
			perror(path);
			return 1;
		}
	}
	end = now() + atof(argv[3]);
	while (now() < end)
		for (int k = 0; k < 100; k++) {
			char buf[8];
			int i = (int)(writes % (unsigned long)n);
			int len = snprintf(buf, sizeof(buf), "%lu", (writes / (unsigned long)n + i) % 256);

			if (pwrite(fd[i], buf, (size_t)len, 0) != len) {
				perror("write");
				return 1;
			}
			writes++;
		}
	printf("%lu\n", writes);
	return 0;
}
