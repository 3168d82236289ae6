/* syncy.c — waits with known lengths, for the sync tracer.  holder() takes
 * the mutex and sleeps 200 ms; waiter() asks for it 50 ms later and waits
 * ~150 ms in wait_mutex(); the same for a rwlock (write-held 100 ms, reader
 * waits ~80 ms in wait_rwlock()) and a semaphore (posted after 60 ms,
 * wait_sem() waits ~60 ms); then a condition variable signalled after 40 ms
 * (wait_cond(): sync.other) and main's pthread_join (sync.join).
 * Uncontended locks: 100000 lock/unlock pairs in fast_locks(), which must
 * cost no recorded wait.  The waiter measures its own mutex and rwlock
 * waits and prints them, with the time it was runnable but not running in
 * each (the kernel's run_delay, /proc/thread-self/schedstat), in ns:
 * "mutex NS rwlock NS mutex_runnable NS rwlock_runnable NS".  Under load the
 * lengths drift, and the tracer must agree with them, not with the nominal
 * ones; a preemption before the call or after its return is in the
 * program's measure, not in the tracer's (from request to grant).  The
 * waiter starts counting once the holder holds the lock (`held`, polled
 * without a lock): under load the holder once took the mutex after the
 * waiter, which then did not wait at all.
 * usage: syncy */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int ready;
static _Atomic int held;       /* 1: the holder has the mutex, 2: the rwlock */

static void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
}

NOIPA void wait_mutex(void) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }
NOIPA void wait_rwlock(void) { pthread_rwlock_rdlock(&rw); pthread_rwlock_unlock(&rw); }
NOIPA void wait_sem(void) { sem_wait(&sem); }
NOIPA void wait_cond(void)
{
	pthread_mutex_lock(&cm);
	while (!ready)
		pthread_cond_wait(&cv, &cm);
	pthread_mutex_unlock(&cm);
}

NOIPA void fast_locks(void)
{
	pthread_mutex_t f = PTHREAD_MUTEX_INITIALIZER;
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(&f);
		pthread_mutex_unlock(&f);
	}
}

NOIPA void *holder(void *arg)
{
	pthread_mutex_lock(&m);
	held = 1;
	nap(200);
	pthread_mutex_unlock(&m);
	pthread_rwlock_wrlock(&rw);
	held = 2;
	nap(100);
	pthread_rwlock_unlock(&rw);
	nap(60);
	sem_post(&sem);
	nap(40);
	pthread_mutex_lock(&cm);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cm);
	return arg;
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long mutex_ns, rwlock_ns, mutex_runnable_ns, rwlock_runnable_ns;

NOIPA void *waiter(void *arg)
{
	while (held < 1)
		nap(1);
	nap(50);
	long long d0 = run_delay_ns(), t0 = now_ns();
	wait_mutex();
	mutex_ns = now_ns() - t0;
	mutex_runnable_ns = run_delay_ns() - d0;
	while (held < 2)
		nap(1);
	nap(20);
	d0 = run_delay_ns();
	t0 = now_ns();
	wait_rwlock();
	rwlock_ns = now_ns() - t0;
	rwlock_runnable_ns = run_delay_ns() - d0;
	wait_sem();
	wait_cond();
	return arg;
}

int main(void)
{
	pthread_t a, b;

	sem_init(&sem, 0, 0);
	fast_locks();
	pthread_create(&a, NULL, holder, NULL);
	pthread_create(&b, NULL, waiter, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("mutex %lld rwlock %lld mutex_runnable %lld rwlock_runnable %lld\n", mutex_ns, rwlock_ns,
	       mutex_runnable_ns, rwlock_runnable_ns);
	return 0;
}
