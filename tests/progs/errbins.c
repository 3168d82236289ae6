/* errbins.c — two programs of the same shares over a run, for the two
 * estimates of a share's error (tally report --errors=samples|bins).
 *
 *   errbins phases S   first_half() for S/2 s of CPU, then second_half()
 *                      for S/2: each holds half the run, all of it in its
 *                      half (non-stationary: the shares change over time)
 *   errbins mixed S    S s of CPU in short chunks of first_half() or
 *                      second_half(), chosen at random each time: each
 *                      holds half of every part of the run (stationary)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* spin for `iters` steps of an LCG, or until `until` s of CPU when iters is 0 */
__attribute__((noinline)) static void first_half(long iters, double until)
{
	do {
		for (long i = 0; i < (iters ? iters : 100000); i++)
			sink = sink * 6364136223846793005ul + 1;
	} while (!iters && cpu_now() < until);
}

__attribute__((noinline)) static void second_half(long iters, double until)
{
	do {
		for (long i = 0; i < (iters ? iters : 100000); i++)
			sink = sink * 6364136223846793005ul + 3;
	} while (!iters && cpu_now() < until);
}

int main(int argc, char **argv)
{
	double s = argc > 2 ? atof(argv[2]) : 1.0, t0 = cpu_now();

	if (argc > 1 && !strcmp(argv[1], "phases")) {
		first_half(0, t0 + s / 2);
		second_half(0, t0 + s);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "mixed")) {
		unsigned long r = 88172645463325252ul;
		while (cpu_now() < t0 + s) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;       /* xorshift */
			long n = 2000 + (long)(r % 20000);            /* ~5 to 50 us */
			if (r >> 63)
				first_half(n, 0);
			else
				second_half(n, 0);
		}
		return 0;
	}
	fprintf(stderr, "usage: errbins phases|mixed SECONDS\n");
	return 64;
}
