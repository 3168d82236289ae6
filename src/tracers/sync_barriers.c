/* SPDX-License-Identifier: MIT
 *
 * sync_barriers.c — who released a barrier wait (tally record -s): the
 * thread whose arrival completed the round, and when it arrived.  The
 * critical path (model_critical.c) goes from a thread's barrier wait to
 * that thread at its arrival, as it goes from a condition wait to its
 * signaller (sync_wakers.c).
 *
 * A fixed table of BARRIER_SLOTS barriers, open addressing by address,
 * a slot claimed by a compare-and-swap at pthread_barrier_init (which
 * also stores the barrier's count) and never freed.  Each arrival takes a
 * number (one fetch-and-add); the arrival numbered count·r + count − 1
 * completes round r and stores its thread and time in the round's entry
 * (one of BARRIER_ROUNDS, tagged with r + 1) before it enters the real
 * wait.  A waiter whose wait was recorded reads the entry of its own
 * round as it returns: a thread other than itself is its waker
 * (SYNC_WAKE, as for a condition variable).  Only the round's last
 * arrival writes; the others one add and one read.
 *
 * What it cannot know: a barrier initialized before this library was
 * loaded, or beyond the table's room (the log says so once), has no
 * waker; two arrivals within nanoseconds may be counted in the other
 * order than the barrier's own (either released the round at that
 * moment); a waiter that wakes BARRIER_ROUNDS rounds late finds its
 * round's entry reused, and has none.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "tracers/object_slots.h"
#include "tracers/sync_barriers.h"
#include "tracers/sync_wakers.h"
#include "tracers/tracer.h"

#define BARRIER_SLOTS 256u         /* barriers tracked, a power of two */
#define BARRIER_PROBES 16u         /* slots looked at for one barrier */
#define BARRIER_ROUNDS 4u          /* completed rounds kept per barrier */

struct barrier_round {
	_Atomic uint64_t tag;      /* round + 1; 0: none yet */
	_Atomic uint64_t time_ns;  /* the completing arrival (CLOCK_MONOTONIC) */
	_Atomic uint32_t tid;      /* by this thread */
};

struct barrier_slot {
	_Atomic uint64_t object;   /* the barrier's address; 0 free */
	_Atomic uint32_t count;    /* threads a round waits for; 0 unknown */
	_Atomic uint64_t arrivals; /* arrivals numbered so far */
	struct barrier_round rounds[BARRIER_ROUNDS];
};

static struct barrier_slot slots[BARRIER_SLOTS];
static atomic_flag full_logged = ATOMIC_FLAG_INIT;

/* A forked child's barriers start afresh (its threads are new). */
static void child(void)
{
	memset(slots, 0, sizeof(slots));
}

__attribute__((constructor)) static void barriers_init(void)
{
	pthread_atfork(NULL, NULL, child);
}

static struct barrier_slot *slot_of(uint64_t object, int insert)
{
	enum object_slot_result r;
	struct barrier_slot *s = object_slot(slots, sizeof(slots[0]), BARRIER_SLOTS, BARRIER_PROBES, object,
					     insert, &r);

	if (r == OBJECT_SLOT_FULL && !atomic_flag_test_and_set(&full_logged))
		tally__log("sync.barriers", "the table of barriers is full: waits on the others have no "
					    "waker (the critical path stays on the waiter)");
	return s;
}

void sync_barriers_init(const void *object, unsigned count)
{
	struct barrier_slot *s = slot_of((uint64_t)(uintptr_t)object, 1);

	if (!s)
		return;
	/* A barrier made anew at the address: its rounds start from 0. */
	atomic_store_explicit(&s->count, 0, memory_order_relaxed);
	for (unsigned r = 0; r < BARRIER_ROUNDS; r++)
		atomic_store_explicit(&s->rounds[r].tag, 0, memory_order_relaxed);
	atomic_store_explicit(&s->arrivals, 0, memory_order_relaxed);
	atomic_store_explicit(&s->count, count, memory_order_release);
}

uint64_t sync_barriers_arrive(const void *object)
{
	struct barrier_slot *s = slot_of((uint64_t)(uintptr_t)object, 0);
	uint32_t count = s ? atomic_load_explicit(&s->count, memory_order_acquire) : 0;

	if (!count)
		return UINT64_MAX;
	uint64_t n = atomic_fetch_add_explicit(&s->arrivals, 1, memory_order_relaxed);
	if ((n + 1) % count == 0) {      /* the last of its round: it releases the others */
		struct barrier_round *r = &s->rounds[(n / count) % BARRIER_ROUNDS];
		atomic_store_explicit(&r->tag, 0, memory_order_relaxed);
		atomic_store_explicit(&r->tid, sync_wakers_self_tid(), memory_order_relaxed);
		atomic_store_explicit(&r->time_ns, tally__now(), memory_order_relaxed);
		atomic_store_explicit(&r->tag, n / count + 1, memory_order_release);
	}
	return n;
}

void sync_barriers_waited(const void *object, uint64_t arrival, uint64_t t0_ns, const struct exp_sync *rec)
{
	uint64_t addr = (uint64_t)(uintptr_t)object;
	struct barrier_slot *s = arrival == UINT64_MAX ? NULL : slot_of(addr, 0);
	uint32_t count = s ? atomic_load_explicit(&s->count, memory_order_acquire) : 0;

	if (!count)
		return;
	uint64_t round = arrival / count;
	struct barrier_round *r = &s->rounds[round % BARRIER_ROUNDS];
	if (atomic_load_explicit(&r->tag, memory_order_acquire) != round + 1)
		return;
	uint32_t tid = atomic_load_explicit(&r->tid, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&r->time_ns, memory_order_relaxed);
	/* The entry may have been rewritten while it was read: read the tag again. */
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&r->tag, memory_order_relaxed) != round + 1)
		return;
	/* Numbered after this waiter, the releaser arrived after its t0. */
	if (!tid || tid == rec->tid || t < t0_ns || t > rec->time_ns)
		return;
	struct exp_sync_wake w = { .time_ns = rec->time_ns, .object = addr, .waker_tid = tid, .wake_ns = t };
	tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_WAKE, &w, sizeof(w), 0, 0, 0);
}
