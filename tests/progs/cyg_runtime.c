/* cyg_runtime.c — for `tally report --gprof=timed` (-finstrument-functions):
 * napper() sleeps 100 ms; many() calls the empty tiny() N times, so that
 * nearly all of many()'s time is the instrumentation runtime's.  main
 * measures each phase on its own clock and prints it:
 *   napper_ns T
 *   many_ns T
 *   calls N
 * usage: cyg_runtime [N] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((no_instrument_function)) static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) void tiny(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void many(long n)
{
	for (long i = 0; i < n; i++)
		tiny();
}

__attribute__((noinline)) void napper(void)
{
	struct timespec t = { 0, 100000000L };
	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	uint64_t t0 = now_ns();
	napper();
	uint64_t t1 = now_ns();
	many(n);
	uint64_t t2 = now_ns();
	printf("napper_ns %llu\nmany_ns %llu\ncalls %ld\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)(t2 - t1), n);
	return 0;
}
