/* burn_cpu.h — spin until this process has used SECONDS more CPU time.
 * Always inlined: the caller's frame is the one the samples see. */
#ifndef BURN_CPU_H
#define BURN_CPU_H

#include <time.h>

static volatile unsigned long burn_sink;

static inline __attribute__((always_inline)) void burn_cpu(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			burn_sink = burn_sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

#endif
