#define _GNU_SOURCE
/* syncwaits.c — one wait of each kind the thread library has, each of a
 * length the program measures itself (tests/e2e/test_trace.sh, the mttest
 * rule: the tracer's sync.wait against the program's own measure).  A
 * helper thread holds each object (or delays the event waited for) for a
 * while after the waiter is ready; the waiter times its own call with
 * CLOCK_MONOTONIC.  Kinds: mutex, rwlock (read), condition variable,
 * semaphore, barrier, join, timed join, and C11's mtx_lock, cnd_wait,
 * thrd_join.  Prints one line: `mutex NS rwlock NS cond NS sem NS barrier NS
 * mtx NS cnd NS join NS thrd_join NS timedjoin NS`, then the same kinds'
 * time runnable inside those spans (the run delay, read with the clock by
 * run_delay_stamp): `runnable mutex NS ...`.  A wait for a CPU between the
 * program's clock read and the tracer's (a preemption before the call or
 * after it) is in the program's measure and not in tally's: at most that
 * runnable time.  usage: syncwaits */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static mtx_t cm11, cmtx;
static cnd_t cc11;
static int ready, ready11;
static atomic_int held;        /* which step the helper is in */

static void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
}

/* A timed span: span_begin's clock, span_end's length; the run delay
 * inside the spans adds up until runnable_taken. */
static long long span_rd, runnable_ns;

static long long span_begin(void)
{
	long long w, c;
	span_rd = run_delay_stamp(&w, &c);
	return w;
}

static long long span_end(long long t0)
{
	long long w, c;
	runnable_ns += run_delay_stamp(&w, &c) - span_rd;
	return w - t0;
}

static long long runnable_taken(void)
{
	long long r = runnable_ns;
	runnable_ns = 0;
	return r;
}

static void until(int step)
{
	while (atomic_load(&held) < step)
		nap(1);
}

NOIPA long long wait_mutex(void)
{
	until(1);
	long long t0 = span_begin();
	pthread_mutex_lock(&m);
	long long t = span_end(t0);
	pthread_mutex_unlock(&m);
	return t;
}

NOIPA long long wait_rwlock(void)
{
	until(2);
	long long t0 = span_begin();
	pthread_rwlock_rdlock(&rw);
	long long t = span_end(t0);
	pthread_rwlock_unlock(&rw);
	return t;
}

NOIPA long long wait_cond(void)
{
	long long t = 0;
	pthread_mutex_lock(&cm);
	atomic_store(&held, 3);
	while (!ready) {
		long long t0 = span_begin();
		pthread_cond_wait(&cv, &cm);
		t += span_end(t0);
	}
	pthread_mutex_unlock(&cm);
	return t;
}

NOIPA long long wait_sem(void)
{
	atomic_store(&held, 4);
	long long t0 = span_begin();
	sem_wait(&sem);
	return span_end(t0);
}

NOIPA long long wait_barrier(void)
{
	atomic_store(&held, 5);
	long long t0 = span_begin();
	pthread_barrier_wait(&bar);
	return span_end(t0);
}

NOIPA long long wait_mtx(void)
{
	until(6);
	long long t0 = span_begin();
	mtx_lock(&cmtx);
	long long t = span_end(t0);
	mtx_unlock(&cmtx);
	return t;
}

NOIPA long long wait_cnd(void)
{
	long long t = 0;
	mtx_lock(&cm11);
	atomic_store(&held, 7);
	while (!ready11) {
		long long t0 = span_begin();
		cnd_wait(&cc11, &cm11);
		t += span_end(t0);
	}
	mtx_unlock(&cm11);
	return t;
}

static void *helper(void *arg)
{
	pthread_mutex_lock(&m);
	atomic_store(&held, 1);
	nap(120);
	pthread_mutex_unlock(&m);
	pthread_rwlock_wrlock(&rw);
	atomic_store(&held, 2);
	nap(80);
	pthread_rwlock_unlock(&rw);
	until(3);
	nap(100);
	pthread_mutex_lock(&cm);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cm);
	until(4);
	nap(60);
	sem_post(&sem);
	until(5);
	nap(70);
	pthread_barrier_wait(&bar);
	mtx_lock(&cmtx);
	atomic_store(&held, 6);
	nap(90);
	mtx_unlock(&cmtx);
	until(7);
	nap(110);
	mtx_lock(&cm11);
	ready11 = 1;
	cnd_signal(&cc11);
	mtx_unlock(&cm11);
	return arg;
}

static void *sleeper(void *arg)
{
	nap(130);
	return arg;
}

static int sleeper11(void *arg)
{
	(void)arg;
	nap(50);
	return 0;
}

NOIPA long long wait_join(pthread_t t)
{
	long long t0 = span_begin();
	pthread_join(t, NULL);
	return span_end(t0);
}

NOIPA long long wait_timedjoin(pthread_t t)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	long long t0 = span_begin();
	pthread_timedjoin_np(t, NULL, &until);
	return span_end(t0);
}

NOIPA long long wait_thrd_join(thrd_t t)
{
	long long t0 = span_begin();
	thrd_join(t, NULL);
	return span_end(t0);
}

int main(void)
{
	pthread_t h, s;
	thrd_t s11;

	sem_init(&sem, 0, 0);
	pthread_barrier_init(&bar, NULL, 2);
	mtx_init(&cm11, mtx_plain);
	mtx_init(&cmtx, mtx_plain);
	cnd_init(&cc11);
	pthread_create(&h, NULL, helper, NULL);
	const char *kind[10] = { "mutex", "rwlock", "cond", "sem", "barrier", "mtx", "cnd", "join", "thrd_join",
				 "timedjoin" };
	long long own[10], run[10];
	int i = 0;
	own[i] = wait_mutex(), run[i++] = runnable_taken();
	own[i] = wait_rwlock(), run[i++] = runnable_taken();
	own[i] = wait_cond(), run[i++] = runnable_taken();
	own[i] = wait_sem(), run[i++] = runnable_taken();
	own[i] = wait_barrier(), run[i++] = runnable_taken();
	own[i] = wait_mtx(), run[i++] = runnable_taken();
	own[i] = wait_cnd(), run[i++] = runnable_taken();
	pthread_join(h, NULL);
	pthread_create(&s, NULL, sleeper, NULL);
	own[i] = wait_join(s), run[i++] = runnable_taken();
	thrd_create(&s11, sleeper11, NULL);
	own[i] = wait_thrd_join(s11), run[i++] = runnable_taken();
	pthread_create(&s, NULL, sleeper, NULL);
	own[i] = wait_timedjoin(s), run[i++] = runnable_taken();
	for (i = 0; i < 10; i++)
		printf("%s%s %lld", i ? " " : "", kind[i], own[i]);
	printf("\nrunnable");
	for (i = 0; i < 10; i++)
		printf(" %s %lld", kind[i], run[i]);
	printf("\n");
	return 0;
}
