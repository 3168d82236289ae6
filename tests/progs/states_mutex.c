/* states_mutex.c — two threads contending on one mutex.  Each takes it
 * ITER times in take_lock(), holds it while burning HOLD_MS of its own CPU
 * in hold_burn(), releases it and naps 1 ms in nap() (so that the other
 * thread, woken by the release, gets it): each thread waits for the lock
 * about as long as the other holds it.
 *
 * Each thread prints what it measured itself, in ns: its time inside
 * take_lock (CLOCK_MONOTONIC) and the part of it spent runnable, waiting
 * for a CPU (schedstat run_delay), and the CPU time of its hold_burn calls:
 *   lock TID WALL RUNNABLE
 *   burn TID CPU
 * usage: states_mutex [ITER [HOLD_MS]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int iter = 15, hold_ms = 20;
static volatile unsigned long sink;

static long long now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

NOIPA void take_lock(void)
{
	if (pthread_mutex_lock(&m))   /* tested: no tail call, take_lock stays on the stack */
		abort();
}

NOIPA void hold_burn(void)
{
	long long end = now(CLOCK_THREAD_CPUTIME_ID) + hold_ms * 1000000LL;
	unsigned long x = 1;
	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

NOIPA void nap(void)
{
	struct timespec t = { 0, 1000000 };
	nanosleep(&t, NULL);
}

static void *worker(void *arg)
{
	long long wall = 0, runnable = 0, cpu = 0;
	(void)arg;
	for (int i = 0; i < iter; i++) {
		long long d0 = run_delay_ns(), w0 = now(CLOCK_MONOTONIC);
		take_lock();
		long long w1 = now(CLOCK_MONOTONIC), d1 = run_delay_ns(), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		hold_burn();
		cpu += now(CLOCK_THREAD_CPUTIME_ID) - c0;
		pthread_mutex_unlock(&m);
		wall += w1 - w0;
		runnable += d1 - d0;
		nap();
	}
	long tid = syscall(SYS_gettid);
	printf("lock %ld %lld %lld\nburn %ld %lld\n", tid, wall, runnable, tid, cpu);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	if (argc > 1)
		iter = atoi(argv[1]);
	if (argc > 2)
		hold_ms = atoi(argv[2]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
