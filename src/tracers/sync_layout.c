/* SPDX-License-Identifier: MIT
 *
 * sync_layout.c — the probe of glibc's object layouts that sync.c reads,
 * run once as libtally-sync.so loads (normal context, before main).
 *
 * sync.c reads fields glibc keeps private: a mutex's __kind (bit 128,
 * PTHREAD_MUTEX_PSHARED_BIT) and __lock (0 free, 1 held, 2 held with
 * waiters; FUTEX_WAITERS for a robust one), an rwlock's __shared, a
 * condition variable's __wrefs (bit 1), a semaphore's third int and a
 * barrier's fourth (not 0 when shared: LLL_SHARED); for releases across
 * processes, a condition variable's waiters (__wrefs >> 3), a semaphore's
 * (the high half of its first word, sync_layout_sem_waiters), an rwlock's
 * (__readers' bit 4, the futex words' bit 31).  They were read from glibc 2.25 to
 * 2.36 on x86-64.  The field names come from this glibc's own headers,
 * so the offsets are its own on any architecture; what they hold is
 * checked here, on objects made each way: every one shared and private,
 * and a mutex free, held and held with a waiter (a timed lock of a held
 * mutex with a deadline in the past marks it so before it times out: one
 * futex call).  Anything else (another C library, a glibc whose layout
 * differs) leaves sync_layout_known false: nothing is read, waits on
 * process-shared objects are not flagged and not followed across
 * processes (log line sync.layout).  What it cannot know: a glibc that
 * keeps these values but means something else by them.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tracers/sync_layout.h"
#include "tracers/tracer.h"

bool sync_layout_known;
bool sync_layout_sem_waiters;

#if defined(__GLIBC__)
#include <gnu/libc-version.h>

/* A mutex's __kind and __lock as sync.c reads them. */
static bool mutex_as_known(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t shared, mine = PTHREAD_MUTEX_INITIALIZER;
	struct timespec past = { 1, 0 };
	bool ok;

	if (pthread_mutexattr_init(&a) || pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutex_init(&shared, &a))
		return false;
	ok = (shared.__data.__kind & 128) && !(mine.__data.__kind & 128) && mine.__data.__lock == 0;
	pthread_mutex_destroy(&shared);
	pthread_mutexattr_destroy(&a);
	if (!ok || REAL(pthread_mutex_lock)(&mine))
		return false;
	ok = mine.__data.__lock == 1;
	int rc = REAL(pthread_mutex_timedlock)(&mine, &past);      /* held: waits, then times out */
	ok = ok && rc == ETIMEDOUT && mine.__data.__lock == 2;
	REAL(pthread_mutex_unlock)(&mine);
	return ok && mine.__data.__lock == 0;
}

/* An rwlock's __shared, a condition variable's __wrefs, a semaphore's
 * third int and a barrier's fourth, each shared and private. */
static bool others_as_known(void)
{
	pthread_rwlockattr_t ra;
	pthread_condattr_t ca;
	pthread_barrierattr_t ba;
	pthread_rwlock_t rw[2];
	pthread_cond_t cv[2];
	pthread_barrier_t br[2];
	sem_t sm[2];
	bool ok = true;

	for (int shared = 0; shared < 2 && ok; shared++) {
		int how = shared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE;
		if (pthread_rwlockattr_init(&ra) || pthread_rwlockattr_setpshared(&ra, how) ||
		    pthread_rwlock_init(&rw[shared], &ra) || pthread_condattr_init(&ca) ||
		    pthread_condattr_setpshared(&ca, how) || pthread_cond_init(&cv[shared], &ca) ||
		    pthread_barrierattr_init(&ba) || pthread_barrierattr_setpshared(&ba, how) ||
		    REAL(pthread_barrier_init)(&br[shared], &ba, 2) || sem_init(&sm[shared], shared, 0))
			return false;          /* a failed init leaves nothing to destroy here */
		ok = !rw[shared].__data.__shared == !shared && !(cv[shared].__data.__wrefs & 1) == !shared &&
		     !((const int *)&sm[shared])[2] == !shared && !((const int *)&br[shared])[3] == !shared;
		pthread_rwlock_destroy(&rw[shared]);
		pthread_cond_destroy(&cv[shared]);
		pthread_barrier_destroy(&br[shared]);
		sem_destroy(&sm[shared]);
		pthread_rwlockattr_destroy(&ra);
		pthread_condattr_destroy(&ca);
		pthread_barrierattr_destroy(&ba);
	}
	return ok;
}

/* A semaphore's first word as a 64-bit glibc keeps it: the value in the
 * low half, the waiters in the high half (sem_post's release reads the
 * waiters: sync.c); a 32-bit one keeps the value shifted, the waiters in
 * bit 0, and is not read. */
static bool sem_as_known(void)
{
	sem_t s;

	if (sizeof(s) < sizeof(uint64_t) || sem_init(&s, 1, 3))
		return false;
	uint64_t word;
	memcpy(&word, &s, sizeof(word));
	sem_destroy(&s);
	return word == 3;
}
#endif

__attribute__((constructor)) static void sync_layout_probe(void)
{
	char msg[128];

	(void)tally__real();      /* the real functions now: tracer.h, trace_resolve_note */
#if defined(__GLIBC__)
	sync_layout_known = mutex_as_known() && others_as_known();
	sync_layout_sem_waiters = sync_layout_known && sem_as_known();
	snprintf(msg, sizeof(msg), "glibc %s: %s", gnu_get_libc_version(),
		 sync_layout_known ? "as known" : "not as known: shared objects not followed across processes");
#else
	snprintf(msg, sizeof(msg), "not glibc: shared objects not followed across processes");
#endif
	tally__log("sync.layout", msg);
}
