/* forkjoin.c — a fork-join program with one worker on the critical path.
 * main does a little work of its own (setup()), starts three workers and
 * joins them: long_work() spins 3 units divided by FACTOR, short_work() 1
 * unit in each of the two others (a unit: UNIT_MS of CPU, spun on the
 * thread's CPU clock, so load stretches it in wall time but not in work).
 * The program measures its own wall time and long_work()'s (from its
 * start to its end, wall), and the time the threads on its critical path
 * (main and long_work()'s worker) spent runnable but waiting for a CPU
 * (the kernel's run delay, schedstat; 0 where it cannot be read), and
 * prints
 *   wall NS long NS delay NS
 * usage: forkjoin [FACTOR [UNIT_MS]] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))
#include "spin_ms.h"

static double factor = 1;
static long unit_ms = 100;
static uint64_t long_ns;
static long long long_delay_ns;     /* long_work()'s worker's run delay */


/* Each calls spin() and counts after it: no tail call, so each is a frame. */
NOIPA void setup(void) { spin((double)unit_ms / 4); sink++; }
NOIPA void long_work(void) { spin(3.0 * (double)unit_ms / factor); sink++; }
NOIPA void short_work(void) { spin((double)unit_ms); sink++; }

static void *worker(void *arg)
{
	if (arg) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		long_work();
		long_ns = clock_ns(CLOCK_MONOTONIC) - t0;
		long_delay_ns = run_delay_ns();
	} else {
		short_work();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	if (argc > 1)
		factor = atof(argv[1]);
	if (argc > 2)
		unit_ms = atol(argv[2]);
	setup();
	pthread_create(&t[0], NULL, worker, (void *)1);
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_create(&t[2], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	uint64_t wall = clock_ns(CLOCK_MONOTONIC) - t0;
	printf("wall %llu long %llu delay %lld\n", (unsigned long long)wall, (unsigned long long)long_ns,
	       run_delay_ns() + long_delay_ns);
	return 0;
}
