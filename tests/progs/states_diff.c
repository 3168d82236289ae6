/* states_diff.c — one program, two ways of spending its wall time, for
 * `tally diff` of two --states runs (tests/e2e/test_diff_states.sh).  Each
 * of ITER rounds the main thread waits in lock_and_work() for a mutex that
 * a helper thread holds, asleep, for HOLD_MS, then sleeps NAP_MS in
 * nap_a_while().  Run with a long hold and a short nap, then the other way
 * round, the change is lock wait in lock_and_work against sleep in
 * nap_a_while.
 *
 * It prints what it measured itself, in ns (CLOCK_MONOTONIC around each
 * call, and the part of it spent runnable, waiting for a CPU: schedstat's
 * run_delay):
 *   lock WALL RUNNABLE
 *   nap WALL RUNNABLE
 *   hold WALL RUNNABLE      (the helper's sleeps in hold_it())
 * usage: states_diff ITER HOLD_MS NAP_MS */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mono_clock.h"
#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sem_t go, taken;
static int iter = 10, hold_ms = 30, nap_ms = 10;
static long long hold, hold_rq;     /* the helper's, read after the join */

NOIPA void hold_it(void)
{
	pthread_mutex_lock(&m);
	sem_post(&taken);
	long long d0 = run_delay_ns(), w0 = now();
	sleep_ms(hold_ms);
	hold += now() - w0;
	hold_rq += run_delay_ns() - d0;
	pthread_mutex_unlock(&m);
}

static void *helper(void *arg)
{
	(void)arg;
	for (int i = 0; i < iter; i++) {
		while (sem_wait(&go))
			;
		hold_it();
	}
	return NULL;
}

NOIPA void lock_and_work(void)
{
	if (pthread_mutex_lock(&m))   /* tested: no tail call */
		abort();
	pthread_mutex_unlock(&m);
}

NOIPA void nap_a_while(void)
{
	sleep_ms(nap_ms);
	__asm__ volatile("" ::: "memory");   /* no tail call */
}

int main(int argc, char **argv)
{
	long long lock = 0, lock_rq = 0, nap = 0, nap_rq = 0;
	pthread_t t;

	if (argc > 3) {
		iter = atoi(argv[1]);
		hold_ms = atoi(argv[2]);
		nap_ms = atoi(argv[3]);
	}
	sem_init(&go, 0, 0);
	sem_init(&taken, 0, 0);
	if (pthread_create(&t, NULL, helper, NULL))
		return 1;
	for (int i = 0; i < iter; i++) {
		sem_post(&go);
		while (sem_wait(&taken))
			;
		long long d0 = run_delay_ns(), w0 = now();
		lock_and_work();
		long long w1 = now(), d1 = run_delay_ns();
		nap_a_while();
		long long w2 = now(), d2 = run_delay_ns();
		lock += w1 - w0;
		lock_rq += d1 - d0;
		nap += w2 - w1;
		nap_rq += d2 - d1;
	}
	pthread_join(t, NULL);
	printf("lock %lld %lld\nnap %lld %lld\nhold %lld %lld\n", lock, lock_rq, nap, nap_rq, hold, hold_rq);
	return 0;
}
