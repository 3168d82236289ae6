/* mono_clock.h — the monotonic clock in ns and a sleep of whole
 * milliseconds that outlasts signals, for the test programs that time
 * their own waits (slow_own_read.c, states_diff.c). */
#ifndef TALLY_TESTS_MONO_CLOCK_H
#define TALLY_TESTS_MONO_CLOCK_H
#include <time.h>

static long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Sleeps ms milliseconds, resumed after each interruption. */
static void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
}
#endif
