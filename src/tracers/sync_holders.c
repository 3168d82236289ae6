/* SPDX-License-Identifier: MIT
 *
 * sync_holders.c — lock-holder blame (tally record -s, on unless
 * --sync-holders=off): who held a contended mutex while a thread waited on
 * it, and the holder's stack when it took the mutex.
 *
 * Called by sync.c's mutex interposers (pthread_mutex_*, mtx_*, and the
 * return of a condition wait, which takes the mutex back), from any thread,
 * always with the mutex held.
 *
 * A fixed table of HOLD_SLOTS objects, open addressing by address, filled
 * lock-free (a slot is claimed by a compare-and-swap of its address and
 * never freed).  An object enters it at its first contention, when the
 * waiter is granted it; from then on each acquisition of it appends
 * (time, thread, stack) to its slot's ring of the last HOLD_RING holders.
 * An object never contended costs one probe of the table per acquisition
 * (none while no object is in it); a contended one a clock read, and an
 * unwind (outer frames reused) when the acquiring thread or call site is
 * not the last holder's: a thread that takes the mutex again from the same
 * place is still the same holder (its hold goes on, through the moments it
 * let go), so a thread churning on a lock neither fills the ring nor
 * unwinds each time.
 *
 * The ring needs no atomics: it is written by the thread that holds the
 * mutex and read by the thread that holds it next, so the mutex itself
 * orders the two (its unlock releases, its lock acquires).
 *
 * A waiter granted the mutex at t1 after asking at t0 walks the ring from
 * the newest holder back: each holder held it from its acquisition to the
 * next one's (the last to t1), and its share of the wait is the overlap
 * with [t0, t1).  The time from a holder's unlock to the waiter's wake-up
 * is counted as the holder's.  What the ring cannot say is written as
 * such (enum exp_held_why): the first contention (no holder noted yet),
 * more holders than the ring keeps, a full table.  Not tracked: rwlocks
 * (readers hold together; a reader's hold would be blamed on the last
 * writer), semaphores, and a mutex taken inside glibc past the interposers
 * (its hold is counted as the holder before it's).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "tracers/object_slots.h"
#include "tracers/sync_holders.h"

#define HOLD_SLOTS 1024u           /* objects tracked, a power of two */
#define HOLD_PROBES 16u            /* slots looked at for one object */
#define HOLD_RING 32u              /* holders remembered per object */
#define HOLD_PARTS (HOLD_RING + 1) /* parts of one wait: the ring and the rest */

struct hold {
	uint64_t time_ns;          /* acquired then (CLOCK_MONOTONIC) */
	uint32_t tid;              /* by this thread; 0 not known */
	uint32_t stack_id;         /* from this stack; 0 not known */
	uint64_t self;             /* the thread's pthread_self(), cheap to compare */
	uint64_t ra;               /* the lock call's return address */
};

struct hold_slot {
	_Atomic uint64_t object;   /* the mutex's address; 0 free */
	uint64_t n;                /* acquisitions noted (under the mutex) */
	struct hold ring[HOLD_RING];
};

static struct hold_slot slots[HOLD_SLOTS];
/* Slots taken: read by every acquisition, so on a line of its own, not
 * beside the last slot's ring that its holder writes. */
static _Alignas(64) atomic_uint ntracked;
static atomic_flag full_logged = ATOMIC_FLAG_INIT;

/* The slot of `object`; with `insert`, taken if it has none.  NULL if it
 * has none (or, inserting, the probed slots are all taken: *full set). */
static struct hold_slot *slot_of(uint64_t object, int insert, int *full)
{
	enum object_slot_result r;
	struct hold_slot *s = object_slot(slots, sizeof(slots[0]), HOLD_SLOTS, HOLD_PROBES, object, insert, &r);

	if (r == OBJECT_SLOT_CLAIMED)
		atomic_fetch_add_explicit(&ntracked, 1, memory_order_relaxed);
	if (r == OBJECT_SLOT_FULL) {
		*full = 1;
		if (!atomic_flag_test_and_set(&full_logged))
			tally__log("sync.holders", "the table of contended objects is full: waits on "
						  "the others are written as held by an unknown thread");
	}
	return s;
}

/* Is the last holder of s this thread, from this call site? */
static int same_holder(const struct hold_slot *s, uint64_t self, uint64_t ra)
{
	const struct hold *h = &s->ring[(s->n - 1) % HOLD_RING];

	return s->n && h->self == self && h->ra == ra && h->tid;
}

/* Note a new holder of s (stack 0: take it from `at`). */
/* In a forked child only the forking thread is left: the holders noted
 * are other threads of another process.  Start over. */
static void forget_all(void)
{
	if (!atomic_load_explicit(&ntracked, memory_order_relaxed))
		return;
	memset(slots, 0, sizeof(slots));
	atomic_store_explicit(&ntracked, 0, memory_order_relaxed);
}

__attribute__((constructor)) static void holders_init(void)
{
	pthread_atfork(NULL, NULL, forget_all);
}

static void push(struct hold_slot *s, struct trace_caller at, uint64_t time_ns, uint64_t self, uint32_t tid,
		 uint32_t stack_id)
{
	if (!stack_id)
		stack_id = tally__trace_stack(at.ra, at.sp, at.fp, &tid);
	s->ring[s->n % HOLD_RING] = (struct hold){ time_ns, tid, stack_id, self, at.ra };
	s->n++;
}

void sync_holders_acquired(struct trace_caller at, const void *object)
{
	if (!atomic_load_explicit(&ntracked, memory_order_relaxed))
		return;
	struct hold_slot *s = slot_of((uint64_t)(uintptr_t)object, 0, NULL);
	if (!s)
		return;
	uint64_t self = (uint64_t)pthread_self();
	if (same_holder(s, self, at.ra))
		return;
	push(s, at, tally__now(), self, 0, 0);
}

/* One part of a wait: a holder (or a reason it is not known) and how long. */
struct part {
	uint32_t tid, stack_id;
	uint16_t why;
	uint64_t ns;
};

static void part_add(struct part *p, unsigned *np, uint32_t tid, uint32_t stack_id, uint16_t why,
		     uint64_t ns)
{
	for (unsigned i = 0; i < *np; i++)
		if (p[i].tid == tid && p[i].stack_id == stack_id && p[i].why == why) {
			p[i].ns += ns;
			return;
		}
	p[(*np)++] = (struct part){ tid, stack_id, why, ns };
}

/* Split [t0, t1) among the holders slot s remembers (s NULL: none, for
 * `why`); the parts into p, their count returned. */
static unsigned split(const struct hold_slot *s, uint16_t why, uint64_t t0, uint64_t t1, struct part *p)
{
	unsigned np = 0;
	uint64_t end = t1;

	if (s) {
		uint64_t kept = s->n < HOLD_RING ? s->n : HOLD_RING;
		why = s->n > HOLD_RING ? EXP_HELD_OVERFLOW : EXP_HELD_UNTRACKED;
		for (uint64_t k = 0; k < kept && end > t0; k++) {
			const struct hold *h = &s->ring[(s->n - 1 - k) % HOLD_RING];
			uint64_t start = h->time_ns > t0 ? h->time_ns : t0;
			if (start < end) {
				if (h->tid)
					part_add(p, &np, h->tid, h->stack_id, EXP_HELD_KNOWN, end - start);
				else
					part_add(p, &np, 0, 0, EXP_HELD_UNTRACKED, end - start);
				end = start;
			}
			if (h->time_ns <= t0)
				end = t0;
		}
	}
	if (end > t0)
		part_add(p, &np, 0, 0, why, end - t0);
	return np;
}

void sync_holders_waited(struct trace_caller at, const void *object, uint64_t t0_ns, uint64_t t1_ns,
			 const struct exp_sync *rec)
{
	int full = 0;
	uint64_t addr = (uint64_t)(uintptr_t)object;
	struct hold_slot *s = slot_of(addr, 1, &full);

	if (rec) {
		struct part p[HOLD_PARTS];
		unsigned np = split(s, full ? EXP_HELD_TABLE_FULL : EXP_HELD_UNTRACKED, t0_ns, t1_ns, p);
		for (unsigned i = 0; i < np; i++) {
			struct exp_sync_held h = { .time_ns = rec->time_ns, .stack_id = p[i].stack_id,
						   .holder_tid = p[i].tid, .held_ns = p[i].ns,
						   .object = addr, .why = p[i].why };
			tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_HELD, &h, sizeof(h), 0, 0, 0);
		}
	}
	if (!s)
		return;
	uint64_t self = (uint64_t)pthread_self();
	if (!same_holder(s, self, at.ra))
		push(s, at, t1_ns, self, rec ? rec->tid : 0, rec ? rec->stack_id : 0);
}
