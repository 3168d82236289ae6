/* cyg_runtime.c — for `tally report --gprof=timed` (-finstrument-functions):
 * napper() sleeps 100 ms; many() calls the empty tiny() N times, so that
 * nearly all of many()'s time is the instrumentation runtime's; fastest()
 * times batches of 64 calls of tiny() and keeps the fastest batch's time
 * per call (the runtime's cost with no preemption in it).  main measures
 * each phase on its own clock and prints it:
 *   napper_ns T
 *   many_ns T
 *   calls N           (tiny()'s calls from many())
 *   fastest_call_ns T
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

__attribute__((noinline)) uint64_t fastest(void)
{
	uint64_t best = UINT64_MAX;

	for (int b = 0; b < 200; b++) {
		uint64_t t0 = now_ns();
		for (int i = 0; i < 64; i++)
			tiny();
		uint64_t t = now_ns() - t0;
		if (t < best)
			best = t;
	}
	return best / 64;
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
	uint64_t call = fastest();
	printf("napper_ns %llu\nmany_ns %llu\ncalls %ld\nfastest_call_ns %llu\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)(t2 - t1), n, (unsigned long long)call);
	return 0;
}
