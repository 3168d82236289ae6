/* SPDX-License-Identifier: MIT
 *
 * sync.c — libtally-sync.so, the synchronization tracer (`tally record -s`).
 *
 * As the Sun collector does: for each blocking call (mutex, rwlock,
 * condition variable, semaphore, barrier, join and timed join; POSIX's and
 * C11's mtx_*, cnd_*, thrd_join, which glibc implements without calling the
 * POSIX entry points) the time from request to
 * grant is measured, and a SYNC record with the waiting stack and the object
 * waited on is written at the grant, if the wait exceeded the threshold.
 * An uncontended lock costs one extra try: the try-variant is called first,
 * and only when it would block is the wait timed.  What the wait's record
 * costs before it is written (files, blocks, its stack) is paid as the
 * wait begins, inside it, not after the grant (wait_begins).  The default threshold is
 * calibrated at start-up to ten times an uncontended lock and unlock with
 * its timing (at least 1 us), and shown in the log.  For mutexes, who held
 * the mutex during a wait is recorded too (sync_holders.c), unless
 * --sync-holders=off; for condition variables and semaphores, who woke the
 * wait: the thread that signalled or posted last (sync_wakers.c), and for
 * barriers the thread whose arrival released the round (sync_barriers.c),
 * for the critical path.  Futex waits and wakes a program makes itself,
 * through syscall(SYS_futex, ...) (a hand-off through a futex word, in
 * memory shared between threads or processes), are given to us by the
 * collector's syscall() (tally__on_futex): a wait is a SYNC record (op
 * EXP_SYNC_FUTEX, the word's address), and a wake is noted as the word's
 * waker, as a signal is (sync_wakers.c).  A wait for a child process
 * (wait, waitpid, wait3, wait4, waitid) is a SYNC record too (op
 * EXP_SYNC_CHILD, the pid reaped), so that the path can go from a shell
 * or a parent to the child it waited for; so is system()'s.  A wait on a
 * process-shared object writes the object's key (looked up as the wait
 * begins), and the call that lets its waiters go writes it as a release
 * (sync_shared.c): a shared mutex's or rwlock's unlock with waiters (the
 * mutex let go inside a condition wait too), a post or signal with
 * waiters, a barrier's completing arrival, a shared futex wake that woke
 * one: the path goes from a waiter to the holder or waker in another
 * process.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>

#include "tracers/sync_barriers.h"
#include "tracers/sync_holders.h"
#include "tracers/sync_layout.h"
#include "tracers/sync_shared.h"
#include "tracers/sync_wakers.h"
#include "tracers/tracer.h"

static struct trace_switch on, holders_on;
static int64_t threshold_ns = -1;

/* Ten times an uncontended lock/unlock pair with its two clock reads. */
static int64_t calibrate(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t best = UINT64_MAX;
	char msg[96];

	for (int round = 0; round < 5; round++) {
		uint64_t t0 = tally__now();
		for (int i = 0; i < 200; i++) {
			uint64_t a = tally__now();
			REAL(pthread_mutex_lock)(&m);
			REAL(pthread_mutex_unlock)(&m);
			uint64_t b = tally__now();
			__asm__ volatile("" : : "r"(a), "r"(b));
		}
		uint64_t per = (tally__now() - t0) / 200;
		if (per < best)
			best = per;
	}
	int64_t t = (int64_t)best * 10;
	if (t < 1000)
		t = 1000;
	snprintf(msg, sizeof(msg), "%lld ns (calibrated: an uncontended lock takes %llu ns)",
		 (long long)t, (unsigned long long)best);
	tally__log("sync.threshold", msg);
	return t;
}

/* The threshold's first read: the option, calibrated if asked. */
__attribute__((noinline, cold)) static int64_t threshold_first(void)
{
	int64_t v = trace_option(&on, "sync");
	if (!on.known)
		return -1;
	if (v == -2) {
		v = calibrate();
	} else if (v >= 0) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%lld ns", (long long)v);
		tally__log("sync.threshold", msg);
	}
	threshold_ns = v;
	return v;
}

/* The threshold, or -1 when not tracing.  Inline, two loads: every traced
 * call asks (the calibration, out of line, saved six registers on each). */
static inline int64_t threshold(void)
{
	if (__builtin_expect(threshold_ns >= 0 || on.known, 1))
		return threshold_ns;
	return threshold_first();
}

/* A wait begins (the caller at `at`): its record's costs are paid now,
 * inside the wait, where they lengthen nothing, not after the grant, where
 * they lengthened the program's own measure of a thread's first wait by 0.5
 * to 1 ms (9 ms under load): the record's room and its stack, which is the
 * same before the wait as after (tally__trace_wait_begins, one entry into
 * the collector).  The stack id, or 0 (then walked at the grant). */
static uint32_t wait_begins(struct trace_caller at)
{
	return tally__trace_wait_begins(EXP_FILE_SYNC, at.ra, at.sp, at.fp);
}

/* EXP_SYNC_F_SHARED if glibc's object of kind op was made process-shared
 * (its holder or waker may be another process), else 0.  From glibc's own
 * layouts, checked at load (sync_layout.c: read only if as known): a
 * mutex's __kind has PTHREAD_MUTEX_PSHARED_BIT (128), an rwlock's __shared
 * is not 0, a condition variable's __wrefs has __PTHREAD_COND_SHARED_MASK
 * (1); a semaphore's `private` (its third int) and a barrier's `shared`
 * (its fourth) are glibc's LLL_SHARED, 128 (0 when private: 3abefac read
 * them the other way round, flagging every private one shared).  C11's
 * mtx_t and cnd_t are private. */
static uint16_t shared_flag(uint16_t op, const void *object)
{
#if defined(__GLIBC__)
	if (!sync_layout_known)
		return 0;
	switch (op) {
	case EXP_SYNC_MUTEX:
		return ((const pthread_mutex_t *)object)->__data.__kind & 128 ? EXP_SYNC_F_SHARED : 0;
	case EXP_SYNC_RWLOCK_RD: case EXP_SYNC_RWLOCK_WR:
		return ((const pthread_rwlock_t *)object)->__data.__shared ? EXP_SYNC_F_SHARED : 0;
	case EXP_SYNC_COND:
		return ((const pthread_cond_t *)object)->__data.__wrefs & 1 ? EXP_SYNC_F_SHARED : 0;
	case EXP_SYNC_SEM:
		return ((const int *)object)[2] != 0 ? EXP_SYNC_F_SHARED : 0;
	case EXP_SYNC_BARRIER:
		return ((const int *)object)[3] != 0 ? EXP_SYNC_F_SHARED : 0;
	default:
		return 0;
	}
#else
	(void)op;
	(void)object;
	return 0;
#endif
}

/* Does mutex m's kind say process-shared?  The field of this glibc's
 * header (inside the object on any glibc); what its bit means is trusted
 * only where the probe found it so (shared_with_waiters). */
static inline bool mutex_kind_shared(const pthread_mutex_t *m)
{
#if defined(__GLIBC__)
	return m->__data.__kind & 128;
#else
	(void)m;
	return false;
#endif
}

/* Is pthread mutex m process-shared, with waiters in the kernel (its
 * unlock will wake one)?  From glibc's layout, checked at load
 * (sync_layout.c: read only if as known): __kind has
 * PTHREAD_MUTEX_PSHARED_BIT (128), the robust (16), priority-inheriting
 * (32) and priority-protected (64) bits and the type in its low two bits.
 * __lock is 2 for a normal, recursive or error-checking mutex with
 * waiters; the owner's tid with FUTEX_WAITERS (1 << 31) for a robust or
 * priority-inheriting one (a tid alone, 2 included, is no waiter); the
 * ceiling above bit 19 and 2 below for a priority-protected one.  A
 * recursive mutex unlocked at a __count above 1 stays held: no release. */
static bool shared_with_waiters(const void *mutex)
{
	const pthread_mutex_t *m = mutex;
#if defined(__GLIBC__)
	if (!sync_layout_known || !mutex_kind_shared(m))
		return false;
	int kind = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
	if ((kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP && __atomic_load_n(&m->__data.__count, __ATOMIC_RELAXED) > 1)
		return false;
	unsigned lock = (unsigned)__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
	if (kind & (16 | 32))
		return lock & 0x80000000u;
	if (kind & 64)
		return (lock & ((1u << 19) - 1)) == 2;
	return lock == 2;
#else
	(void)m;
	return false;
#endif
}

/* The key of a wait on `object` flagged `flags`, looked up as the wait
 * begins (sync_shared_key), into *k: k, or NULL if not shared or not in a
 * shared mapping.  Before the wait, not after the grant: after, a mutex's
 * lookup ran while the waiter held the lock, lengthening the very hold
 * the path measures, and a semaphore or barrier may be freed by then. */
static inline struct exp_sync_key *key_before(uint16_t flags, const void *object, struct exp_sync_key *k)
{
	if (__builtin_expect(!(flags & EXP_SYNC_F_SHARED), 1))
		return NULL;
	*k = (struct exp_sync_key){ 0 };
	return sync_shared_key(object, k) ? k : NULL;
}

/* Is condition variable c process-shared with waiters?  __wrefs counts
 * its waiters in steps of 8 (glibc's own signal returns at once when
 * __wrefs >> 3 is 0), bit 0 shared: read only if as known. */
static inline bool cond_shared_with_waiters(const pthread_cond_t *c)
{
#if defined(__GLIBC__)
	unsigned w = __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED);
	return __builtin_expect(w & 1, 0) && w >> 3 && sync_layout_known;   /* a private one: one load, one test */
#else
	(void)c;
	return false;
#endif
}

/* Is semaphore s process-shared with waiters?  On a 64-bit glibc its
 * first word holds the value in the low half and the waiters in the high
 * half (sync_layout.c checks the value's place): read only if as known. */
static inline bool sem_shared_with_waiters(const sem_t *s)
{
#if defined(__GLIBC__)
	return __builtin_expect(((const int *)s)[2] != 0, 0) && sync_layout_sem_waiters &&
	       __atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED) >> 32;   /* a private one: one load, one test */
#else
	(void)s;
	return false;
#endif
}

/* Is rwlock l process-shared with waiters?  glibc's __readers has
 * PTHREAD_RWLOCK_RWAITING (4) when readers wait for a writer, and
 * __wrphase_futex and __writers_futex PTHREAD_RWLOCK_FUTEX_USED (2) when
 * a thread sleeps on them (seen on glibc 2.36: a reader waiting for a
 * writer 0x3 in __wrphase_futex, a writer for a writer 0x3 in
 * __writers_futex, a writer for a reader 0x2 in __wrphase_futex): read
 * only if as known. */
static inline bool rwlock_shared_with_waiters(const pthread_rwlock_t *l)
{
#if defined(__GLIBC__)
	if (!sync_layout_known || !l->__data.__shared)
		return false;
	unsigned r = __atomic_load_n(&l->__data.__readers, __ATOMIC_RELAXED);
	unsigned wp = __atomic_load_n(&l->__data.__wrphase_futex, __ATOMIC_RELAXED);
	unsigned wf = __atomic_load_n(&l->__data.__writers_futex, __ATOMIC_RELAXED);
	return (r & 4) || ((wp | wf) & 2);
#else
	(void)l;
	return false;
#endif
}

/* A condition wait is about to let mutex m go inside glibc (no unlock
 * interposer sees it): a release at t, if m is process-shared with
 * waiters (they may be in another process). */
static inline void mutex_let_go(const void *m, uint64_t t)
{
	if (__builtin_expect(shared_with_waiters(m), 0))
		sync_shared_released(m, t);
}

/* Record a wait from t0 to t1 if it reached the threshold, with `flags`
 * (EXP_SYNC_F_*) and the shared object's key (key_before, or NULL): 1 if
 * its SYNC record *s was written (thread, stack and time filled), else 0.
 * `stack`: its stack id from wait_begins, or 0. */
static int note_flags(struct trace_caller at, uint16_t op, const void *object, uint64_t t0, uint64_t t1,
		      uint32_t stack, uint16_t flags, struct exp_sync_key *key, struct exp_sync *s)
{
	if ((int64_t)(t1 - t0) < threshold_ns)
		return 0;
	*s = (struct exp_sync){ .time_ns = t1, .stack_id = stack, .op = op, .flags = flags, .wait_ns = t1 - t0,
				.object = (uint64_t)(uintptr_t)object };
	if (tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC, s, sizeof(*s), stack ? 0 : at.ra, at.sp, at.fp))
		return 0;
	if (key)
		sync_shared_waited(key, s);   /* its key, for a waker in another process */
	return 1;
}

/* A wait's flag and key, read as it begins (before the call that waits):
 * declares flag_ and key_. */
#define SHARED_BEFORE(op, object)                                            	uint16_t flag_ = shared_flag(op, object);                            	struct exp_sync_key keybuf_;                                         	struct exp_sync_key *key_ = key_before(flag_, object, &keybuf_)

/* Are the holders of contended mutexes recorded (with -s)? */
static int holders(void)
{
	return trace_option(&holders_on, "sync.holders") > 0;
}

/* Try first; time the blocking call only if the try would have waited. */
#define TRY_THEN_TIME(op, object, try_call, busy_rc, wait_call)              \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return wait_call;                                    \
		struct trace_caller at_ = TRACE_CALLER();                    \
		int rc_ = try_call;                                          \
		if (rc_ != (busy_rc))                                        \
			return rc_;                                          \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		SHARED_BEFORE(op, object);                                   \
		rc_ = wait_call;                                             \
		struct exp_sync s_;                                          \
		note_flags(at_, op, object, t0_, tally__now(), stack_, flag_, key_, &s_); \
		return rc_;                                                  \
	} while (0)

/* The same for a mutex, noting its holders (sync_holders.c): `got` says
 * whether a return code rc_ means the mutex is held. */
#define LOCK_THEN_TIME(object, try_call, busy_rc, wait_call, got)           \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return wait_call;                                    \
		struct trace_caller at_ = TRACE_CALLER();                    \
		int rc_ = try_call;                                          \
		if (rc_ != (busy_rc)) {                                      \
			if ((got) && holders())                              \
				sync_holders_acquired(at_, object);          \
			return rc_;                                          \
		}                                                            \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		SHARED_BEFORE(EXP_SYNC_MUTEX, object);                       \
		rc_ = wait_call;                                             \
		uint64_t t1_ = tally__now();                                 \
		struct exp_sync s_;                                          \
		int rec_ = note_flags(at_, EXP_SYNC_MUTEX, object, t0_, t1_, stack_, flag_, key_, &s_); \
		if ((got) && holders())                                      \
			sync_holders_waited(at_, object, t0_, t1_, rec_ ? &s_ : NULL); \
		return rc_;                                                  \
	} while (0)

/* A mutex taken without waiting by the program's own try (a holder). */
#define TRY_NOTED(object, try_call, got)                                     \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return try_call;                                     \
		struct trace_caller at_ = TRACE_CALLER();                    \
		int rc_ = try_call;                                          \
		if ((got) && holders())                                      \
			sync_holders_acquired(at_, object);                  \
		return rc_;                                                  \
	} while (0)

/* Time a call that waits by nature (condition variables, barriers, join). */
#define TIME(op, object, call)                                               \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		int rc_ = call;                                              \
		struct exp_sync s_;                                          \
		note_flags(at_, op, object, t0_, tally__now(), stack_, 0, NULL, &s_); \
		return rc_;                                                  \
	} while (0)

/* A semaphore wait: TRY_THEN_TIME, and its waker (sync_wakers.c). */
#define SEM_THEN_TIME(object, try_call, wait_call)                           \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return wait_call;                                    \
		struct trace_caller at_ = TRACE_CALLER();                    \
		int rc_ = try_call;                                          \
		if (rc_ != EAGAIN)                                           \
			return rc_;                                          \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		SHARED_BEFORE(EXP_SYNC_SEM, object);                         \
		rc_ = wait_call;                                             \
		struct exp_sync s_;                                          \
		if (note_flags(at_, EXP_SYNC_SEM, object, t0_, tally__now(), stack_, flag_, key_, &s_)) \
			sync_wakers_waited(object, t0_, &s_);                \
		return rc_;                                                  \
	} while (0)

/* A signal or post: its object's last waker is this thread (sync_wakers.c);
 * of a process-shared object with waiters (`waiters`, read before the
 * call), a release too, by `shared` (out of line, so that the common
 * private call keeps its frame small: sync_shared.c): a waiter may be in
 * another process. */
#define WAKE(object, call, waiters, shared)                                  \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return call;                                         \
		sync_wakers_signalled(object);                               \
		if (__builtin_expect(waiters, 0))                            \
			return shared(object);                               \
		return call;                                                 \
	} while (0)

/* The calls that release a shared object's waiters, as WAKE's `shared`:
 * the release's moment taken before the call, written after. */
#define RELEASING(name, type)                                                \
	__attribute__((noinline)) static int name##_releasing(type *o)       \
	{                                                                    \
		uint64_t t = tally__now();                                   \
		int rc = REAL(name)(o);                                      \
		sync_shared_released(o, t);                                  \
		return rc;                                                   \
	}
RELEASING(pthread_cond_signal, pthread_cond_t)
RELEASING(pthread_cond_broadcast, pthread_cond_t)
RELEASING(sem_post, sem_t)
#define NOT_SHARED(o) ((void)(o), 0)   /* C11's objects are private: never called */

/* A condition wait, which returns with the mutex m held again (a holder). */
#define COND_TIME(object, m, call, got)                                      \
	do {                                                                 \
		if (threshold() < 0)                                         \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		SHARED_BEFORE(EXP_SYNC_COND, object);                        \
		mutex_let_go(m, t0_);                                        \
		int rc_ = call;                                              \
		struct exp_sync s_;                                          \
		if (note_flags(at_, EXP_SYNC_COND, object, t0_, tally__now(), stack_, flag_, key_, &s_)) \
			sync_wakers_waited(object, t0_, &s_);                \
		if ((got) && holders())                                      \
			sync_holders_acquired(at_, m);                       \
		return rc_;                                                  \
	} while (0)

/* A pthread mutex is held after these return codes (EOWNERDEAD: a robust
 * mutex whose owner died, taken all the same). */
#define MUTEX_HELD(rc) ((rc) == 0 || (rc) == EOWNERDEAD)

TRACE_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	LOCK_THEN_TIME(m, REAL(pthread_mutex_trylock)(m), EBUSY, REAL(pthread_mutex_lock)(m),
		       MUTEX_HELD(rc_));
}

TRACE_API int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	LOCK_THEN_TIME(m, REAL(pthread_mutex_trylock)(m), EBUSY, REAL(pthread_mutex_timedlock)(m, abs),
		       MUTEX_HELD(rc_));
}

/* The unlock of a mutex whose kind says process-shared: a release, if it
 * has waiters (shared_with_waiters), written after the unlock. */
__attribute__((noinline)) static int unlock_shared(pthread_mutex_t *m)
{
	if (threshold() < 0 || !shared_with_waiters(m))
		return REAL(pthread_mutex_unlock)(m);
	uint64_t t = tally__now();
	int rc = REAL(pthread_mutex_unlock)(m);
	if (rc == 0)
		sync_shared_released(m, t);
	return rc;
}

/* An unlock of a process-shared mutex that has waiters is a release
 * (sync_shared.c): the waiter may be in another process, whose path comes
 * here through the mutex's key.  A process-private mutex (the common case)
 * goes straight on: its kind's byte tested, then a tail call to glibc's
 * (5 instructions, no TLS, no clock, no record; callgrind in bench 8).
 * No frame of its own: the caller's frame pointer stays the walk's. */
__attribute__((optimize("omit-frame-pointer"))) TRACE_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (__builtin_expect(!mutex_kind_shared(m), 1))
		return REAL(pthread_mutex_unlock)(m);
	return unlock_shared(m);
}

TRACE_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
	TRY_NOTED(m, REAL(pthread_mutex_trylock)(m), MUTEX_HELD(rc_));
}

TRACE_API int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	TRY_THEN_TIME(EXP_SYNC_RWLOCK_RD, l, REAL(pthread_rwlock_tryrdlock)(l), EBUSY,
		      REAL(pthread_rwlock_rdlock)(l));
}

TRACE_API int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	TRY_THEN_TIME(EXP_SYNC_RWLOCK_WR, l, REAL(pthread_rwlock_trywrlock)(l), EBUSY,
		      REAL(pthread_rwlock_wrlock)(l));
}

TRACE_API int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	TRY_THEN_TIME(EXP_SYNC_RWLOCK_RD, l, REAL(pthread_rwlock_tryrdlock)(l), EBUSY,
		      REAL(pthread_rwlock_timedrdlock)(l, abs));
}

TRACE_API int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	TRY_THEN_TIME(EXP_SYNC_RWLOCK_WR, l, REAL(pthread_rwlock_trywrlock)(l), EBUSY,
		      REAL(pthread_rwlock_timedwrlock)(l, abs));
}

/* The unlock of an rwlock whose __shared says process-shared, with
 * waiters: a release (sync_shared.c), written after the unlock. */
__attribute__((noinline)) static int rwlock_unlock_shared(pthread_rwlock_t *l)
{
	if (threshold() < 0 || !rwlock_shared_with_waiters(l))
		return REAL(pthread_rwlock_unlock)(l);
	uint64_t t = tally__now();
	int rc = REAL(pthread_rwlock_unlock)(l);
	if (rc == 0)
		sync_shared_released(l, t);
	return rc;
}

/* As pthread_mutex_unlock: a private rwlock's unlock goes straight on
 * (its __shared tested, then a tail call to glibc's). */
__attribute__((optimize("omit-frame-pointer"))) TRACE_API int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
#if defined(__GLIBC__)
	if (__builtin_expect(!l->__data.__shared, 1))
		return REAL(pthread_rwlock_unlock)(l);
	return rwlock_unlock_shared(l);
#else
	return REAL(pthread_rwlock_unlock)(l);
#endif
}

TRACE_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	COND_TIME(c, m, REAL(pthread_cond_wait)(c, m), rc_ == 0);
}

TRACE_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abs)
{
	COND_TIME(c, m, REAL(pthread_cond_timedwait)(c, m, abs), rc_ == 0 || rc_ == ETIMEDOUT);
}

TRACE_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abs)
{
	COND_TIME(c, m, REAL(pthread_cond_clockwait)(c, m, clk, abs), rc_ == 0 || rc_ == ETIMEDOUT);
}

/* A barrier's rounds are counted from its init (sync_barriers.c). */
TRACE_API int pthread_barrier_init(pthread_barrier_t *restrict b, const pthread_barrierattr_t *restrict a,
				   unsigned count)
{
	int rc = REAL(pthread_barrier_init)(b, a, count);
	if (rc == 0 && threshold() >= 0)
		sync_barriers_init(b, count);
	return rc;
}

/* A barrier wait, and who released it: the round's last arrival. */
TRACE_API int pthread_barrier_wait(pthread_barrier_t *b)
{
	if (threshold() < 0)
		return REAL(pthread_barrier_wait)(b);
	struct trace_caller at = TRACE_CALLER();
	uint64_t t0 = tally__now();
	uint32_t stack = wait_begins(at);
	uint64_t arrival = sync_barriers_arrive(b);
	SHARED_BEFORE(EXP_SYNC_BARRIER, b);   /* it may be freed once the wait is over */
	int rc = REAL(pthread_barrier_wait)(b);
	struct exp_sync s;
	if (note_flags(at, EXP_SYNC_BARRIER, b, t0, tally__now(), stack, flag_, key_, &s))
		sync_barriers_waited(b, arrival, t0, &s);
	/* glibc returns PTHREAD_BARRIER_SERIAL_THREAD to the arrival that
	 * completed the round (i % count == 0 in its pthread_barrier_wait),
	 * which woke the others: a shared barrier's release, at its arrival. */
	if (rc == PTHREAD_BARRIER_SERIAL_THREAD && key_) {
		key_->time_ns = t0;
		key_->role = EXP_SYNC_KEY_RELEASE;
		tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_KEY, key_, sizeof(*key_), 0, 0, 0);
	}
	return rc;
}

TRACE_API int pthread_join(pthread_t th, void **ret)
{
	TIME(EXP_SYNC_JOIN, (void *)th, REAL(pthread_join)(th, ret));
}

/* The timed joins wait too (pthread_tryjoin_np never does: not traced). */
TRACE_API int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abs)
{
	TIME(EXP_SYNC_JOIN, (void *)th, REAL(pthread_timedjoin_np)(th, ret, abs));
}

TRACE_API int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk, const struct timespec *abs)
{
	TIME(EXP_SYNC_JOIN, (void *)th, REAL(pthread_clockjoin_np)(th, ret, clk, abs));
}

/* A wait for a child process (for the critical path across processes,
 * model_critical_waits.c): the object is the pid it reaped (0: none).  A
 * call with WNOHANG never blocks: not timed. */
#define CHILD_TIME(options, call, reaped)                                    \
	do {                                                                 \
		if (threshold() < 0 || ((options) & WNOHANG))                \
			return call;                                         \
		struct trace_caller at_ = TRACE_CALLER();                    \
		uint64_t t0_ = tally__now();                                 \
		uint32_t stack_ = wait_begins(at_);                          \
		__typeof__(call) rc_ = call;                                 \
		int saved_ = errno;                                          \
		struct exp_sync s_;                                          \
		note_flags(at_, EXP_SYNC_CHILD, (void *)(uintptr_t)(reaped), t0_, tally__now(), stack_, 0, NULL, &s_); \
		errno = saved_;                                              \
		return rc_;                                                  \
	} while (0)

/* The pid a wait* call returned `rc` reaped, or 0: with WUNTRACED or
 * WCONTINUED it may return a child that stopped or went on, still alive
 * (then reaped only if its status says it exited or was killed; without
 * a status, unknown: 0). */
static pid_t reaped_by_wait(pid_t rc, const int *status, int options)
{
	if (rc <= 0)
		return 0;
	if (!(options & (WUNTRACED | WCONTINUED)))
		return rc;
	return status && (WIFEXITED(*status) || WIFSIGNALED(*status)) ? rc : 0;
}

/* The pid waitid reaped, or 0: none with WNOWAIT (the child is left
 * waitable), nor for a child that stopped or went on. */
static pid_t reaped_by_waitid(int rc, const siginfo_t *info, int options)
{
	if (rc != 0 || !info || (options & WNOWAIT))
		return 0;
	int code = info->si_code;
	return code == CLD_EXITED || code == CLD_KILLED || code == CLD_DUMPED ? info->si_pid : 0;
}

TRACE_API pid_t wait(int *status)
{
	CHILD_TIME(0, REAL(wait)(status), reaped_by_wait(rc_, status, 0));
}

TRACE_API pid_t waitpid(pid_t pid, int *status, int options)
{
	CHILD_TIME(options, REAL(waitpid)(pid, status, options), reaped_by_wait(rc_, status, options));
}

TRACE_API pid_t wait3(int *status, int options, struct rusage *ru)
{
	CHILD_TIME(options, REAL(wait3)(status, options, ru), reaped_by_wait(rc_, status, options));
}

TRACE_API pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	CHILD_TIME(options, REAL(wait4)(pid, status, options, ru), reaped_by_wait(rc_, status, options));
}

TRACE_API int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	CHILD_TIME(options, REAL(waitid)(idtype, id, info, options), reaped_by_waitid(rc_, info, options));
}

/* system() waits for its child inside glibc (its own waitpid, past the
 * interposers above): the whole call is a wait for a child, flagged
 * EXP_SYNC_F_SYSTEM, the pid not known (0); the analyzer takes the child
 * of this process that started within it. */
TRACE_API int system(const char *command)
{
	if (threshold() < 0 || !command)
		return REAL(system)(command);
	struct trace_caller at = TRACE_CALLER();
	uint64_t t0 = tally__now();
	uint32_t stack = wait_begins(at);
	int rc = REAL(system)(command);
	int saved = errno;
	struct exp_sync s;
	note_flags(at, EXP_SYNC_CHILD, NULL, t0, tally__now(), stack, EXP_SYNC_F_SYSTEM, NULL, &s);
	errno = saved;
	return rc;
}

/* sem_trywait and sem_wait report "would block" as -1 with errno EAGAIN. */
static int sem_try(sem_t *s)
{
	int saved = errno;
	int rc = REAL(sem_trywait)(s);
	if (rc != 0 && errno == EAGAIN) {
		errno = saved;
		return EAGAIN;
	}
	return rc;
}

TRACE_API int sem_wait(sem_t *s)
{
	SEM_THEN_TIME(s, sem_try(s), REAL(sem_wait)(s));
}

TRACE_API int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	SEM_THEN_TIME(s, sem_try(s), REAL(sem_timedwait)(s, abs));
}

TRACE_API int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	SEM_THEN_TIME(s, sem_try(s), REAL(sem_clockwait)(s, clk, abs));
}

/* C11 threads (<threads.h>): glibc's mtx_lock and friends reach the
 * mutex code inside libc, past the pthread_* interposers above. */
TRACE_API int mtx_lock(mtx_t *m)
{
	LOCK_THEN_TIME(m, REAL(mtx_trylock)(m), thrd_busy, REAL(mtx_lock)(m), rc_ == thrd_success);
}

TRACE_API int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abs)
{
	LOCK_THEN_TIME(m, REAL(mtx_trylock)(m), thrd_busy, REAL(mtx_timedlock)(m, abs),
		       rc_ == thrd_success);
}

TRACE_API int mtx_trylock(mtx_t *m)
{
	TRY_NOTED(m, REAL(mtx_trylock)(m), rc_ == thrd_success);
}

TRACE_API int cnd_wait(cnd_t *c, mtx_t *m)
{
	COND_TIME(c, m, REAL(cnd_wait)(c, m), rc_ == thrd_success);
}

TRACE_API int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict abs)
{
	COND_TIME(c, m, REAL(cnd_timedwait)(c, m, abs), rc_ == thrd_success || rc_ == thrd_timedout);
}

TRACE_API int thrd_join(thrd_t th, int *res)
{
	TIME(EXP_SYNC_JOIN, (void *)th, REAL(thrd_join)(th, res));
}

/* The wakers of condition and semaphore waits (sync_wakers.c). */
TRACE_API int pthread_cond_signal(pthread_cond_t *c)
{
	WAKE(c, REAL(pthread_cond_signal)(c), cond_shared_with_waiters(c), pthread_cond_signal_releasing);
}

TRACE_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	WAKE(c, REAL(pthread_cond_broadcast)(c), cond_shared_with_waiters(c), pthread_cond_broadcast_releasing);
}

TRACE_API int sem_post(sem_t *s)
{
	WAKE(s, REAL(sem_post)(s), sem_shared_with_waiters(s), sem_post_releasing);
}

TRACE_API int cnd_signal(cnd_t *c)
{
	WAKE(c, REAL(cnd_signal)(c), false, NOT_SHARED);          /* C11's are private */
}

TRACE_API int cnd_broadcast(cnd_t *c)
{
	WAKE(c, REAL(cnd_broadcast)(c), false, NOT_SHARED);
}

/* ---- futex calls through syscall() (tally__on_futex) ---------------------- */

/* A futex call a program made through syscall(): a wait (FUTEX_WAIT,
 * FUTEX_WAIT_BITSET) is timed and recorded with its waker, a wake
 * (FUTEX_WAKE, FUTEX_WAKE_BITSET) notes its thread as the word's waker; the rest (requeues, priority inheritance) is only made.  The
 * word's address is the object: within one process a waiter and its
 * waker name the same word; a shared word (no FUTEX_PRIVATE_FLAG) is named
 * across processes by its key (sync_shared.c), written by a wake that woke
 * one and by a recorded wait. */
static long futex_call(long nr, const long a[6], uint64_t ra, uint64_t sp, uint64_t fp)
{
	int cmd = (int)(a[1] & FUTEX_CMD_MASK);
	const void *word = (const void *)a[0];

	if (threshold() < 0 || (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_WAKE &&
				cmd != FUTEX_WAKE_BITSET))
		return REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET) {
		/* Noted before the wake, as a signal is: noted after, a
		 * waiter could read the word's slot before it is written. */
		sync_wakers_signalled(word);
		uint64_t t = tally__now();
		long rc = REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (rc > 0 && !(a[1] & FUTEX_PRIVATE_FLAG))
			sync_shared_released(word, t);   /* it woke one, maybe in another process */
		return rc;
	}
	struct trace_caller at = { ra, sp, fp };
	uint64_t t0 = tally__now();
	uint16_t flag = a[1] & FUTEX_PRIVATE_FLAG ? 0 : EXP_SYNC_F_SHARED;
	struct exp_sync_key keybuf, *key = key_before(flag, word, &keybuf);
	long rc = REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	int saved = errno;
	struct exp_sync s;
	if (note_flags(at, EXP_SYNC_FUTEX, word, t0, tally__now(), 0, flag, key, &s))
		sync_wakers_waited(word, t0, &s);
	errno = saved;
	return rc;
}

__attribute__((constructor)) static void sync_futex_init(void)
{
	(void)tally__real();      /* the real functions now: tracer.h, trace_resolve_note */
	tally__on_futex(futex_call);
}
