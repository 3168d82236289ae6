/* exec_later.c — a target for `tally record -p` that replaces its image
 * while it is being recorded (tests/e2e/test_attach_options.sh).
 *
 * usage: exec_later SECS PROGRAM [ARGS...]
 *   prints "ready" on stderr, spins SECS seconds of wall time, then execs
 *   PROGRAM (the attached collector goes with the old image).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: exec_later SECS PROGRAM [ARGS...]\n");
		return 64;
	}
	double secs = atof(argv[1]);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fprintf(stderr, "ready\n");
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
