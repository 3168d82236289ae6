/* spin_ms.h — a clock in ns and spin(), which burns a given number of
 * milliseconds of the calling thread's CPU time in a function of its own
 * (noinline, noipa: the stacks see `spin` under its caller), for the
 * critical-path test programs (forkjoin.c, forkpipe.c, prodcons.c, lifereuse.c). */
#ifndef TALLY_TESTS_SPIN_MS_H
#define TALLY_TESTS_SPIN_MS_H
#include <stdint.h>
#include <time.h>

#ifndef NOIPA
#define NOIPA __attribute__((noinline, noipa))
#endif

static volatile unsigned long sink;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin for `ms` ms of this thread's CPU time. */
NOIPA void spin(double ms);
NOIPA void spin(double ms)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(ms * 1e6);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 7;
}
#endif
