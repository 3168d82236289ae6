/* run_delay.h — the calling thread's time spent runnable but waiting for a
 * CPU (the kernel's run_delay, /proc/thread-self/schedstat), in ns; 0 if it
 * cannot be read.  For the test programs that measure their own waits and
 * must tell a lock wait from a loaded machine's preemption. */
#ifndef TALLY_TESTS_RUN_DELAY_H
#define TALLY_TESTS_RUN_DELAY_H
#include <stdio.h>

static long long run_delay_ns(void)
{
	long long cpu = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%lld %lld", &cpu, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}
#endif
