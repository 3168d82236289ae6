/* SPDX-License-Identifier: MIT
 *
 * sync_wakers.c — who woke a condition or semaphore wait (tally record -s):
 * the thread that last signalled (pthread_cond_signal, _broadcast, cnd_*)
 * or posted (sem_post) the object before the waiter woke, and when.  The
 * critical path (model_critical.c) goes from such a wait to its waker at
 * that time, as it goes from a join to the thread joined.
 *
 * A fixed table of WAKE_SLOTS objects, open addressing by address, filled
 * lock-free at an object's first signal (a slot is claimed by a
 * compare-and-swap of its address and never freed); each signal stores
 * the thread's id and the time.  A waiter whose wait was long enough to be
 * recorded reads its object's slot as it returns: a signal from another
 * thread between its request and its grant is its waker (SYNC_WAKE).
 *
 * What it cannot know: two threads signalling the same object within
 * nanoseconds may leave one's time with the other's id (the pair is two
 * stores, not one); a signal that found no waiter, followed by the
 * waiter's own wait ending for another reason (a timeout, a spurious
 * wake-up), is taken as its waker; objects beyond the table's room have
 * none (the log says so once).  The cost of a signal: one probe and two
 * stores; the first signal of each thread one gettid.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracers/object_slots.h"
#include "tracers/sync_wakers.h"
#include "tracers/tracer.h"

#define WAKE_SLOTS 1024u           /* objects tracked, a power of two */
#define WAKE_PROBES 16u            /* slots looked at for one object */

struct wake_slot {
	_Atomic uint64_t object;   /* the object's address; 0 free */
	_Atomic uint64_t time_ns;  /* its last signal (CLOCK_MONOTONIC) */
	_Atomic uint32_t tid;      /* by this thread */
};

static struct wake_slot slots[WAKE_SLOTS];
static atomic_flag full_logged = ATOMIC_FLAG_INIT;
static __thread uint32_t my_tid;

uint32_t sync_wakers_self_tid(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

/* A forked child's thread has a new id; the signals noted are another
 * process's. */
static void child(void)
{
	my_tid = 0;
	memset(slots, 0, sizeof(slots));
}

__attribute__((constructor)) static void wakers_init(void)
{
	pthread_atfork(NULL, NULL, child);
}

static struct wake_slot *slot_of(uint64_t object, int insert)
{
	enum object_slot_result r;
	struct wake_slot *s = object_slot(slots, sizeof(slots[0]), WAKE_SLOTS, WAKE_PROBES, object, insert, &r);

	if (r == OBJECT_SLOT_FULL && !atomic_flag_test_and_set(&full_logged))
		tally__log("sync.wakers", "the table of signalled objects is full: waits on the others "
					 "have no waker (the critical path stays on the waiter)");
	return s;
}

void sync_wakers_signalled(const void *object)
{
	struct wake_slot *s = slot_of((uint64_t)(uintptr_t)object, 1);

	if (!s)
		return;
	atomic_store_explicit(&s->tid, sync_wakers_self_tid(), memory_order_relaxed);
	atomic_store_explicit(&s->time_ns, tally__now(), memory_order_release);
}

void sync_wakers_waited(const void *object, uint64_t t0_ns, const struct exp_sync *rec)
{
	uint64_t addr = (uint64_t)(uintptr_t)object;
	struct wake_slot *s = slot_of(addr, 0);

	if (!s)
		return;
	uint64_t t = atomic_load_explicit(&s->time_ns, memory_order_acquire);
	uint32_t tid = atomic_load_explicit(&s->tid, memory_order_relaxed);
	if (t < t0_ns || t > rec->time_ns || !tid || tid == rec->tid)
		return;
	struct exp_sync_wake w = { .time_ns = rec->time_ns, .object = addr, .waker_tid = tid, .wake_ns = t };
	tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_WAKE, &w, sizeof(w), 0, 0, 0);
}
