/* rss_steps.c — resident memory that grows in known steps: STEPS times,
 * malloc a block of MIB MiB and touch each of its pages, then burn the
 * CPU for SECONDS of wall time (clock samples: what takes the process
 * samples); at the end free every block.  Prints, for test_samples.sh, a
 * line per step with the times (CLOCK_MONOTONIC ns) before its malloc and
 * after its touching, then a line with the time before the frees.
 * usage: rss_steps [STEPS [MIB [SECONDS]]]  (default 3 16 0.4) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void burn(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 3;
	size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 16;
	double seconds = argc > 3 ? atof(argv[3]) : 0.4;
	char *blocks[64];

	burn(seconds);
	for (int i = 0; i < steps && i < 64; i++) {
		double begin = now();
		blocks[i] = malloc(mib << 20);
		if (!blocks[i])
			return 1;
		memset(blocks[i], i + 1, mib << 20);
		printf("%.0f %.0f\n", begin * 1e9, now() * 1e9);
		burn(seconds);
	}
	printf("%.0f\n", now() * 1e9);
	for (int i = 0; i < steps && i < 64; i++)
		free(blocks[i]);
	return 0;
}
