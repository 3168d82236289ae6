/* SPDX-License-Identifier: MIT
 *
 * col_heap.c — the heap tracer's tables in heap.dat (see col_heap.h).
 *
 * Three kinds of large records (exp_records.h), published empty and then
 * updated in place through their shared mapping, so what the file holds is
 * right at every instant, SIGKILL included:
 *
 *   HEAP_SUMS   per thread: count, bytes and first time of its allocations
 *               by stack and thread (open addressing, count 0 empty).
 *               Written only by its thread: no lock.  When 3/4 full a table
 *               four times larger takes the new stacks; the old one stays
 *               (the reader adds them up).  A thread that ends leaves its
 *               table to the next thread that allocates (up to SPARE kept),
 *               so a program of many short threads does not make a table
 *               (a 16 KiB block) per thread: slots name their thread.
 *   HEAP_LIVE   the blocks live now by address (size, stack, thread), in
 *               STRIPES stripes by address region, each with its spin lock, a
 *               linear-probing table with backward-shift deletion.  When 3/4
 *               full it is copied into one twice as large, marked complete,
 *               with the next generation: the reader takes each stripe's
 *               complete table of the highest generation (and counts a block
 *               twice at most transiently, while an entry moves: it keeps
 *               one per address).
 *   HEAP_STATE  the process's live bytes, its peak (with the time, stack
 *               and thread of the allocation that reached it; see BATCH), frees of
 *               blocks never seen allocated, blocks allocated again while
 *               live, and blocks not tracked (a stripe at its largest).
 *
 * So heap.dat grows with distinct stacks per thread and with live blocks,
 * never with events.  The tracer's entry points (tally__heap_alloc,
 * tally__heap_free, at the end) enter the collector (col_enter) and run the
 * whole event inline, any thread: the calls between them and the tables
 * were ~20 instructions of an allocation's path.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "collector/col_control.h"
#include "collector/col_datablocks.h"
#include "collector/col_export_heap.h"
#include "collector/col_files.h"
#include "collector/col_heap.h"
#include "collector/col_real.h"
#include "collector/col_stacks.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_records.h"
#include "format/exp_write.h"

/* Live blocks go to a stripe by the 64 KiB region of their address, so a
 * thread whose allocator serves it from its own region (glibc's arenas,
 * most thread-caching allocators) takes stripe locks no other thread
 * touches: the lock's cache line stays with it. */
#define STRIPES 64                 /* live-block tables, by address region */
#define REGION_SHIFT 16
#define SUMS_FIRST 256             /* slots of a thread's first sums table */
#define SUMS_MAX (1u << 18)        /* the most a record holds (EXP_REC_LEN_MAX) */
#define LIVE_FIRST 512
#define LIVE_MAX (1u << 19)

struct stripe {
	_Alignas(64) atomic_flag lock;     /* a cache line each: threads share none */
	struct exp_heap_live_table *tab;
	size_t mapped;
	uint32_t used;
};

/* Live bytes are added to the process's total by each thread in batches of
 * up to BATCH bytes (a total all threads write on every event costs more
 * than the tracing; and even alone, its locked add waits for the store
 * buffer to drain: 11% of a single-threaded std::map churn's CPU, perf).
 * With one thread allocating, a batch is also added as soon as the total
 * with it would pass the peak, so the peak is exact (and the total lags by
 * less than BATCH); with several, the peak is low by less than BATCH per
 * allocating thread. */
#define BATCH (64 * 1024)
static _Atomic uint32_t allocating_threads;

/* Sums tables of threads that ended, for the next ones. */
#define SPARE 64
static struct spare {
	struct exp_heap_sums *tab;
	size_t mapped;
	uint32_t used;
} spares[SPARE];
static int nspares;
static atomic_flag spare_lock = ATOMIC_FLAG_INIT;

static struct stripe stripes[STRIPES];

/* What every event reads of its thread is on the line col_enter reads. */
_Static_assert(offsetof(struct col_thread, heap_tab) + sizeof(void *) <= 64,
	       "the thread's heap fields are on its first cache line");

/* Each allocating thread's own live-block table: only its owner inserts,
 * and removes its own blocks, with plain loads and stores (no lock, no
 * locked instruction, no cache line another thread writes); a block released
 * by another thread is found under the table's lock and marked TOMB (its
 * owner never writes a slot holding another thread's block, and the lock
 * keeps the table from being rebuilt meanwhile).  The owner takes the lock
 * only to rebuild: in place, dropping tombstones, or into a larger table of
 * the next generation.  A thread that ends leaves its table (blocks still
 * live) to the next one that allocates.  Past OWNERS threads allocating at
 * once, or a table at LIVE_MAX, blocks go to the stripes. */
#define OWNERS 1024
#define TOMB 1                     /* a slot's address once its block is released */
struct col_heap_owner {
	_Alignas(64) atomic_flag lock;     /* releases by other threads; rebuilds */
	_Atomic int state;                 /* 0 unused, 1 owned, 2 its thread ended */
	struct exp_heap_live_table *_Atomic tab;   /* its owner keeps a copy (heap_tab) */
	size_t mapped;
	uint32_t filled;                   /* slots not empty (live or TOMB): while owned,
					      the owner's heap_filled counts them */
	uint32_t skip;                     /* allocations left to the stripes after a
					      rebuild found the table full at its largest */
};
static struct col_heap_owner owners[OWNERS];
static _Atomic uint32_t nowners;           /* owners[0..nowners) ever used */
static struct exp_heap_state *_Atomic state;
/* `state` once made, when -H is on and --data off (heap_plain's test of
 * all three in one load); NULL otherwise. */
static struct exp_heap_state *_Atomic plain_state;
static size_t state_mapped;
static atomic_flag state_lock = ATOMIC_FLAG_INIT;
static _Atomic int no_state;       /* heap.dat could not hold it: nothing is recorded */

static void lock(atomic_flag *f)
{
	for (int n = 0; atomic_flag_test_and_set_explicit(f, memory_order_acquire);)
		if (++n > 64) {
			sched_yield();   /* its holder was preempted */
			n = 0;
		}
}

static void unlock(atomic_flag *f)
{
	atomic_flag_clear_explicit(f, memory_order_release);
}

static uint64_t mix(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return a;
}

static unsigned stripe_of(uint64_t addr)
{
	return (unsigned)(mix(addr >> REGION_SHIFT) & (STRIPES - 1));
}

/* Where a live block's probe starts in a table (before the mask): its
 * 256-byte address region's place, by hash, plus its 16-byte place in the
 * region, so blocks of one region take consecutive slots.  Against a hash
 * of the whole address, probes are as long (1.37 slots to add a block, 1.09
 * to find one, on heapmix); only the lines they touch differ, and the
 * collector's share of heapmix's CPU is 11% lower (perf; docs/tracing.md,
 * cost item 10).  A region holds at most 32 blocks (8-byte ones), so no run
 * of them grows long.  The region's place is the middle of one multiply
 * by the golden ratio (Fibonacci hashing: every address bit from 8 to 40
 * reaches bits 32 and up of the product), not mix(): it is on every
 * event's path twice or more, and mix's shifts cost as much again. */
static uint32_t home(uint64_t addr)
{
	return (uint32_t)(((addr >> 8) * 0x9e3779b97f4a7c15ull) >> 32) + (uint32_t)((addr >> 4) & 15);
}

/* A large record of heap.dat, mapped (zeroed), not yet published. */
static void *reserve(uint32_t len, size_t *mapped)
{
	col_file_ready_sigsafe(EXP_FILE_HEAP);
	return exp_large_reserve_sigsafe(&col_proc.file[EXP_FILE_HEAP], len, mapped);
}

static __attribute__((noinline)) struct exp_heap_state *make_state(void)
{
	struct exp_heap_state *s;

	if (atomic_load(&no_state))
		return NULL;
	lock(&state_lock);
	if (!(s = atomic_load(&state))) {
		s = reserve(sizeof(*s), &state_mapped);
		if (s) {
			exp_record_publish_sigsafe(s, EXP_REC_HEAP_STATE, sizeof(*s));
			atomic_store_explicit(&state, s, memory_order_release);
			if (col_proc.opt.heap && !col_proc.opt.data)
				atomic_store_explicit(&plain_state, s, memory_order_release);
		} else {
			atomic_store(&no_state, 1);
		}
	}
	unlock(&state_lock);
	return s;
}

/* The process's HEAP_STATE record, made by the first event; NULL if
 * heap.dat cannot hold it.  Inline: every event asks. */
static inline __attribute__((always_inline)) struct exp_heap_state *get_state(void)
{
	struct exp_heap_state *s = atomic_load_explicit(&state, memory_order_acquire);

	return __builtin_expect(s != NULL, 1) ? s : make_state();
}

/* ---- sums by stack, per thread ------------------------------------------ */

/* t's table is now tb, of `mapped` bytes.  A fork by another thread at any
 * point meanwhile leaves its child (which unmaps the parent's other
 * threads' tables, col_thread.c) a pointer and size that go together, or
 * none: never the new pointer with the old size, nor a table already
 * unmapped (its address may be a mapping of the program's by then). */
static void set_sums(struct col_thread *t, struct exp_heap_sums *tb, size_t mapped)
{
	t->heap_sums = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	t->heap_sums_mapped = mapped;
	atomic_signal_fence(memory_order_seq_cst);
	t->heap_sums = tb;
}

/* A table for t: a spare one when t has none yet, else a new one of
 * `nslots` slots (the full one's mapping goes; its record stays). */
static __attribute__((noinline)) struct exp_heap_sums *new_sums(struct col_thread *t, uint32_t nslots)
{
	col_stacks_forget_aux(t);      /* the slots kept in t's memo are the old table's */
	if (!t->heap_sums) {
		atomic_fetch_add_explicit(&allocating_threads, 1, memory_order_relaxed);
		lock(&spare_lock);
		struct spare sp = nspares ? spares[--nspares] : (struct spare){ 0 };
		unlock(&spare_lock);
		if (sp.tab) {
			set_sums(t, sp.tab, sp.mapped);
			t->heap_sums_used = sp.used;
			return sp.tab;
		}
	}
	uint32_t len = (uint32_t)(sizeof(struct exp_heap_sums) + (size_t)nslots * sizeof(struct exp_heap_sum));
	size_t mapped;
	struct exp_heap_sums *tb = reserve(len, &mapped);

	if (!tb)
		return NULL;
	tb->tid = (uint32_t)t->tid;
	tb->nslots = nslots;
	exp_record_publish_sigsafe(tb, EXP_REC_HEAP_SUMS, len);
	struct exp_heap_sums *old = t->heap_sums;
	size_t old_mapped = t->heap_sums_mapped;
	set_sums(t, tb, mapped);
	t->heap_sums_used = 0;
	atomic_signal_fence(memory_order_seq_cst);
	exp_large_release_sigsafe(old, old_mapped);   /* after: see set_sums */
	return tb;
}

/* The slot of `stack_id` of thread t in its table, added if new (NULL: no
 * space). */
static __attribute__((noinline)) struct exp_heap_sum *sum_slot(struct col_thread *t, uint32_t stack_id)
{
	struct exp_heap_sums *tb = t->heap_sums;
	uint32_t tid = (uint32_t)t->tid;

	for (int round = 0; round < 3; round++) {
		if (tb) {
			uint32_t mask = tb->nslots - 1;
			struct exp_heap_sum *s = (struct exp_heap_sum *)(tb + 1);
			for (uint32_t i = (uint32_t)mix((uint64_t)tid << 32 | stack_id) & mask;; i = (i + 1) & mask) {
				if (s[i].count && s[i].stack_id == stack_id && s[i].tid == tid)
					return &s[i];
				if (s[i].count)
					continue;
				if ((t->heap_sums_used + 1) * 4 > tb->nslots * 3 && tb->nslots < SUMS_MAX)
					break;      /* a larger table takes it */
				if ((t->heap_sums_used + 1) * 4 > tb->nslots * 3)
					return NULL;
				t->heap_sums_used++;
				s[i].stack_id = stack_id;
				s[i].tid = tid;
				s[i].first_ns = col_now_ns_sigsafe();
				return &s[i];
			}
		}
		uint32_t n = tb ? tb->nslots * 4 : SUMS_FIRST;
		if (!(tb = new_sums(t, n < SUMS_MAX ? n : SUMS_MAX)))
			return NULL;
	}
	return NULL;
}

/* ---- live blocks by address, per stripe ---------------------------------- */

static struct exp_heap_live *slots_of(struct exp_heap_live_table *tb)
{
	return (struct exp_heap_live *)(tb + 1);
}

/* Slot of `addr`, or the empty one where it goes (the table is never full). */
static uint32_t probe(const struct exp_heap_live_table *tb, uint64_t addr)
{
	uint32_t mask = tb->nslots - 1;
	const struct exp_heap_live *s = (const struct exp_heap_live *)(tb + 1);
	uint32_t i = home(addr) & mask;

	while (s[i].addr != addr && s[i].addr != 0)
		i = (i + 1) & mask;
	return i;
}

/* Store a live entry, its address last (the reader skips address 0). */
static void put(struct exp_heap_live *s, const struct exp_heap_live *v)
{
	s->size = v->size;
	s->stack_id = v->stack_id;
	s->tid = v->tid;
	atomic_store_explicit((_Atomic uint64_t *)&s->addr, v->addr, memory_order_release);
}

static struct exp_heap_live_table *new_live(unsigned stripe, uint32_t nslots, uint32_t gen,
					    size_t *mapped)
{
	uint32_t len = (uint32_t)(sizeof(struct exp_heap_live_table) +
				  (size_t)nslots * sizeof(struct exp_heap_live));
	struct exp_heap_live_table *tb = reserve(len, mapped);

	if (!tb)
		return NULL;
	tb->stripe = (uint16_t)stripe;
	tb->nstripes = STRIPES + OWNERS;   /* the stripes, then the owners' tables */
	tb->gen = gen;
	tb->nslots = nslots;
	exp_record_publish_sigsafe(tb, EXP_REC_HEAP_LIVE, len);
	return tb;
}

/* Room for one more block in the stripe: its first table, or a larger one
 * once 3/4 full.  false: none (the block is not tracked). */
static bool room(struct stripe *sp, unsigned index)
{
	struct exp_heap_live_table *old = sp->tab;
	size_t mapped;

	if (old && (sp->used + 1) * 4 <= old->nslots * 3)
		return true;
	if (old && old->nslots >= LIVE_MAX)
		return false;
	struct exp_heap_live_table *tb = new_live(index, old ? old->nslots * 2 : LIVE_FIRST,
						  old ? old->gen + 1 : 1, &mapped);
	if (!tb)
		return false;
	if (old) {
		struct exp_heap_live *s = slots_of(old), *d = slots_of(tb);
		for (uint32_t i = 0; i < old->nslots; i++)
			if (s[i].addr)
				put(&d[probe(tb, s[i].addr)], &s[i]);
		exp_large_release_sigsafe(old, sp->mapped);
	}
	atomic_store_explicit((_Atomic uint32_t *)&tb->complete, 1, memory_order_release);
	sp->tab = tb;
	sp->mapped = mapped;
	return true;
}

/* Empty slot i, moving back the entries after it that belong before it. */
static void remove_at(struct exp_heap_live_table *tb, uint32_t i)
{
	uint32_t mask = tb->nslots - 1;
	struct exp_heap_live *s = slots_of(tb);

	for (uint32_t j = (i + 1) & mask; s[j].addr; j = (j + 1) & mask) {
		uint32_t k = home(s[j].addr) & mask;
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		put(&s[i], &s[j]);
		i = j;
	}
	atomic_store_explicit((_Atomic uint64_t *)&s[i].addr, 0, memory_order_release);
}

/* Take `addr` out of the live blocks: its size, or -1 if it was not there. */
static int64_t take_live(uint64_t addr)
{
	struct stripe *sp = &stripes[stripe_of(addr)];
	int64_t size = -1;

	lock(&sp->lock);
	if (sp->tab) {
		uint32_t i = probe(sp->tab, addr);
		struct exp_heap_live *s = slots_of(sp->tab);
		if (s[i].addr == addr) {
			size = (int64_t)s[i].size;
			remove_at(sp->tab, i);
			sp->used--;
		}
	}
	unlock(&sp->lock);
	return size;
}

/* Add t's live bytes not yet counted to the process's; on a new peak, the
 * allocation of `stack_id` reached it. */
static __attribute__((noinline)) void flush_live(struct exp_heap_state *st, struct col_thread *t, uint32_t stack_id)
{
	int64_t delta = t->heap_live_delta;

	t->heap_live_delta = 0;
	uint64_t live = atomic_fetch_add_explicit((_Atomic uint64_t *)&st->live_bytes, (uint64_t)delta,
						  memory_order_relaxed) + (uint64_t)delta;
	if (delta <= 0 ||
	    live <= atomic_load_explicit((_Atomic uint64_t *)&st->peak_bytes, memory_order_relaxed))
		return;
	lock(&state_lock);
	if (live > st->peak_bytes) {
		st->peak_time_ns = col_now_ns_sigsafe();
		st->peak_stack = stack_id;
		st->peak_tid = (uint32_t)t->tid;
		atomic_store_explicit((_Atomic uint64_t *)&st->peak_bytes, live, memory_order_relaxed);
	}
	unlock(&state_lock);
}

/* Is t's batch of live bytes, `delta` just added, due in the process's
 * total?  When it passes BATCH either way or, with t the one thread
 * allocating, when the total with it passes the peak. */
static inline __attribute__((always_inline)) bool live_due(struct exp_heap_state *st, const struct col_thread *t,
							 int64_t delta)
{
	return t->heap_live_delta > BATCH || t->heap_live_delta < -BATCH ||
	       (delta > 0 && atomic_load_explicit(&allocating_threads, memory_order_relaxed) <= 1 &&
		atomic_load_explicit((_Atomic uint64_t *)&st->live_bytes, memory_order_relaxed) +
		(uint64_t)t->heap_live_delta >
		atomic_load_explicit((_Atomic uint64_t *)&st->peak_bytes, memory_order_relaxed));
}

/* Count `delta` live bytes of thread t, in batches (see BATCH): a batch
 * goes when it passes BATCH either way or, with t the one thread
 * allocating, when the total with it passes the peak (relaxed loads of
 * lines no other thread writes meanwhile: no locked instruction). */
static inline __attribute__((always_inline)) void count_live(struct exp_heap_state *st, struct col_thread *t,
							   int64_t delta, uint32_t stack_id)
{
	t->heap_live_delta += delta;
	if (live_due(st, t, delta))
		flush_live(st, t, stack_id);
}

/* ---- live blocks by owner thread ----------------------------------------- */

/* Its table's pointer, mask and count of filled slots into t's first line
 * (struct col_thread): the owner reads them there on every event. */
static void owner_cache(struct col_thread *t, struct col_heap_owner *o)
{
	t->heap_tab = atomic_load_explicit(&o->tab, memory_order_relaxed);
	t->heap_mask = t->heap_tab->nslots - 1;
	t->heap_filled = o->filled;
}

/* An unused or ended owner's table for t, taken; NULL if none is left or
 * no table can be mapped (t's blocks go to the stripes from now on). */
static __attribute__((noinline)) struct col_heap_owner *owner_take_one(struct col_thread *t)
{
	for (uint32_t i = 0; i < OWNERS; i++) {
		struct col_heap_owner *o = &owners[i];
		int was = atomic_load(&o->state);
		if (was == 1 || !atomic_compare_exchange_strong(&o->state, &was, 1))
			continue;
		uint32_t n = atomic_load(&nowners);
		while (n < i + 1 && !atomic_compare_exchange_weak(&nowners, &n, i + 1))
			;
		if (!atomic_load_explicit(&o->tab, memory_order_acquire)) {
			size_t mapped;
			struct exp_heap_live_table *tb = new_live(STRIPES + i, LIVE_FIRST, 1, &mapped);
			if (!tb) {
				atomic_store(&o->state, 0);
				break;
			}
			atomic_store_explicit((_Atomic uint32_t *)&tb->complete, 1, memory_order_release);
			o->mapped = mapped;
			o->filled = 0;
			atomic_store_explicit(&o->tab, tb, memory_order_release);
		}
		owner_cache(t, o);
		return t->heap_owner = o;
	}
	t->heap_owner_none = 1;
	return NULL;
}

/* t's own table, taken at its first allocation; NULL: the stripes'. */
static inline struct col_heap_owner *owner_of(struct col_thread *t)
{
	if (__builtin_expect(t->heap_owner != NULL, 1))
		return t->heap_owner;
	return t->heap_owner_none ? NULL : owner_take_one(t);
}

/* The slot of `addr` in the table of slots s[0..mask], or -1 (the probe
 * ends at an empty slot). */
static inline __attribute__((always_inline)) int64_t find(const struct exp_heap_live *s, uint32_t mask,
							     uint64_t addr)
{
	for (uint32_t i = home(addr) & mask;; i = (i + 1) & mask) {
		uint64_t a = atomic_load_explicit((_Atomic uint64_t *)&s[i].addr, memory_order_acquire);
		if (a == addr)
			return i;
		if (a == 0)
			return -1;
	}
}

/* Rebuild o's table (its owner, under the lock; when half its slots are
 * not empty: probes stay short): without its tombstones, in place if its
 * live blocks fill at most a quarter of it, else into a larger table of the
 * next generation.  false: it is at LIVE_MAX, or no table could be
 * mapped.  In place, entries move by a copy first and then an emptying, so
 * a reader of the file after a SIGKILL finds each at least once. */
static __attribute__((noinline)) bool owner_rebuild(struct col_heap_owner *o)
{
	struct exp_heap_live_table *tb = o->tab;
	struct exp_heap_live *s = slots_of(tb);
	uint32_t live = 0, mask = tb->nslots - 1;
	bool ok = true;

	lock(&o->lock);
	for (uint32_t i = 0; i < tb->nslots; i++)
		live += s[i].addr > TOMB;
	uint32_t want = tb->nslots;
	while ((live + 1) * 4 > want && want < LIVE_MAX)
		want *= 2;
	if (want == tb->nslots && (live + tb->nslots / 16) * 2 > tb->nslots) {
		ok = false;             /* at its largest, and half full of live blocks */
	} else if (want == tb->nslots) {
		uint32_t start = 0;
		for (uint32_t i = 0; i < tb->nslots; i++)
			if (s[i].addr == TOMB)
				atomic_store_explicit((_Atomic uint64_t *)&s[i].addr, 0, memory_order_release);
		while (s[start].addr)
			start++;
		/* Each entry, in probe order from an empty slot, to the first
		 * empty slot of its probe sequence. */
		for (uint32_t k = 1; k <= tb->nslots; k++) {
			uint32_t i = (start + k) & mask;
			if (!s[i].addr)
				continue;
			uint32_t j = home(s[i].addr) & mask;
			while (j != i && s[j].addr)
				j = (j + 1) & mask;
			if (j == i)
				continue;
			put(&s[j], &s[i]);
			atomic_store_explicit((_Atomic uint64_t *)&s[i].addr, 0, memory_order_release);
		}
		o->filled = live;
	} else {
		size_t mapped;
		struct exp_heap_live_table *nt = new_live(tb->stripe, want, tb->gen + 1, &mapped);
		if (nt) {
			struct exp_heap_live *d = slots_of(nt);
			for (uint32_t i = 0; i < tb->nslots; i++)
				if (s[i].addr > TOMB)
					put(&d[probe(nt, s[i].addr)], &s[i]);
			atomic_store_explicit((_Atomic uint32_t *)&nt->complete, 1, memory_order_release);
			atomic_store_explicit(&o->tab, nt, memory_order_release);
			exp_large_release_sigsafe(tb, o->mapped);
			o->mapped = mapped;
			o->filled = live;
		} else {
			ok = false;
		}
	}
	unlock(&o->lock);
	return ok;
}

/* Add a block to t's own table, which has room (its owner, no lock).  Its
 * delta of live bytes (less a block it replaces, allocated again while
 * live) in *delta. */
static inline __attribute__((always_inline)) void owner_insert(struct col_thread *t, struct exp_heap_state *st,
							     const struct exp_heap_live *v, int64_t *delta)
{
	uint32_t mask = t->heap_mask, tomb = UINT32_MAX, i;
	struct exp_heap_live *s = slots_of(t->heap_tab);
	for (i = home(v->addr) & mask;; i = (i + 1) & mask) {
		uint64_t a = atomic_load_explicit((_Atomic uint64_t *)&s[i].addr, memory_order_acquire);
		if (a == v->addr) {     /* allocated again while live: its release was not seen */
			*delta -= (int64_t)s[i].size;
			atomic_fetch_add_explicit((_Atomic uint64_t *)&st->reuses, 1, memory_order_relaxed);
			put(&s[i], v);
			return;
		}
		if (a == 0)
			break;
		if (a == TOMB && tomb == UINT32_MAX)
			tomb = i;
	}
	if (tomb != UINT32_MAX) {
		put(&s[tomb], v);
	} else {
		put(&s[i], v);
		t->heap_filled++;
	}
}

/* Is t's own table past half full (not empty slots: probes stay short)? */
static inline bool owner_crowded(const struct col_thread *t)
{
	return (t->heap_filled + 1) * 2 > t->heap_mask + 1;
}

/* Add a block to t's own table (its owner, no lock).  Its delta of live
 * bytes (less a block it replaces, allocated again while live) in *delta.
 * false: not there (no table, or full at its largest): the stripes take it. */
static bool owner_put(struct col_thread *t, struct exp_heap_state *st, const struct exp_heap_live *v,
		      int64_t *delta)
{
	struct col_heap_owner *o = owner_of(t);

	if (!o)
		return false;
	if (owner_crowded(t)) {
		if (o->skip) {
			o->skip--;
			return false;
		}
		o->filled = t->heap_filled;
		bool rebuilt = owner_rebuild(o);
		owner_cache(t, o);
		if (!rebuilt) {
			o->skip = t->heap_tab->nslots / 16;   /* a scan of it at most every so many */
			return false;
		}
	}
	owner_insert(t, st, v, delta);
	return true;
}

/* Take `addr` out of t's own table (its owner, no lock): its size, or -1.
 * The slot empties if the next one is empty (no probe runs through it),
 * with the tombstones just before it; else it becomes a tombstone. */
static inline __attribute__((always_inline)) int64_t owner_take(struct col_thread *t, uint64_t addr)
{
	if (!t->heap_owner)
		return -1;
	uint32_t mask = t->heap_mask;
	struct exp_heap_live *s = slots_of(t->heap_tab);
	int64_t at = find(s, mask, addr);
	if (at < 0)
		return -1;
	uint32_t i = (uint32_t)at;
	int64_t size = (int64_t)s[i].size;
	if (atomic_load_explicit((_Atomic uint64_t *)&s[(i + 1) & mask].addr, memory_order_relaxed)) {
		atomic_store_explicit((_Atomic uint64_t *)&s[i].addr, TOMB, memory_order_release);
		return size;
	}
	for (;;) {
		atomic_store_explicit((_Atomic uint64_t *)&s[i].addr, 0, memory_order_release);
		t->heap_filled--;
		i = (i - 1) & mask;
		if (atomic_load_explicit((_Atomic uint64_t *)&s[i].addr, memory_order_relaxed) != TOMB)
			return size;
	}
}

/* Take `addr` out of another thread's table o (under its lock): its size,
 * or -1.  Marked TOMB: its owner may be probing past it meanwhile. */
static int64_t other_take(struct col_heap_owner *o, uint64_t addr)
{
	int64_t size = -1;

	if (!atomic_load_explicit(&o->tab, memory_order_acquire))
		return -1;
	lock(&o->lock);
	struct exp_heap_live_table *tb = atomic_load_explicit(&o->tab, memory_order_acquire);
	int64_t at = find(slots_of(tb), tb->nslots - 1, addr);
	if (at >= 0) {
		struct exp_heap_live *s = &slots_of(tb)[at];
		size = (int64_t)s->size;
		atomic_store_explicit((_Atomic uint64_t *)&s->addr, TOMB, memory_order_release);
	}
	unlock(&o->lock);
	return size;
}

/* A block t did not allocate (or that its table could not take): the
 * table where t last found one, the stripes, then every other table. */
static int64_t take_elsewhere(struct col_thread *t, uint64_t addr)
{
	struct col_heap_owner *hint = t->heap_hint;
	int64_t size;

	if (hint && hint != t->heap_owner && (size = other_take(hint, addr)) >= 0)
		return size;
	if ((size = take_live(addr)) >= 0)
		return size;
	uint32_t n = atomic_load(&nowners);
	for (uint32_t i = 0; i < n && i < OWNERS; i++) {
		struct col_heap_owner *o = &owners[i];
		if (o == hint || o == t->heap_owner || (size = other_take(o, addr)) < 0)
			continue;
		t->heap_hint = o;
		return size;
	}
	return -1;
}

/* Block `addr` released by thread t (inside the collector), whose own
 * table gave `size` for it (-1: not there). */
static inline __attribute__((always_inline)) void heap_free_rest(struct col_thread *t, struct exp_heap_state *st,
								 uint64_t addr, int64_t size)
{
	if (size < 0)
		size = take_elsewhere(t, addr);
	if (size >= 0)
		count_live(st, t, -size, 0);
	else
		atomic_fetch_add_explicit((_Atomic uint64_t *)&st->unpaired_frees, 1, memory_order_relaxed);
}

/* Block `addr` released by thread t (inside the collector). */
static inline __attribute__((always_inline)) void heap_free(struct col_thread *t, uint64_t addr)
{
	struct exp_heap_state *st = get_state();

	if (st)
		heap_free_rest(t, st, addr, owner_take(t, addr));
}

/* A block a thread's own table could not take, into its stripe's.  0. */
static __attribute__((noinline)) int stripe_put(struct col_thread *t, struct exp_heap_state *st,
						const struct exp_heap_live *v, int64_t delta)
{
	unsigned index = stripe_of(v->addr);
	struct stripe *sp = &stripes[index];

	lock(&sp->lock);
	if (!room(sp, index)) {
		unlock(&sp->lock);
		atomic_fetch_add_explicit((_Atomic uint64_t *)&st->untracked, 1, memory_order_relaxed);
		if (atomic_load_explicit(&col_proc.file[EXP_FILE_HEAP].full, memory_order_relaxed))
			col_file_lost_sigsafe(EXP_FILE_HEAP, EXP_CTR_LOST_EVENTS);   /* no space: said once */
		return 0;
	}
	struct exp_heap_live *s = &slots_of(sp->tab)[probe(sp->tab, v->addr)];
	if (s->addr == v->addr) {     /* allocated again while live: its release was not seen */
		delta -= (int64_t)s->size;
		atomic_fetch_add_explicit((_Atomic uint64_t *)&st->reuses, 1, memory_order_relaxed);
	} else {
		sp->used++;
	}
	put(s, v);
	unlock(&sp->lock);
	count_live(st, t, delta, v->stack_id);
	return 0;
}

/* An allocation of `size` bytes at `addr` from stack `stack_id` by thread
 * t (inside the collector).  `memo`: t's memo entry of the stack
 * (col_stack_from_memo), whose aux keeps the stack's sums slot; NULL none.
 * 0, or -1 if it could not be recorded (counted).  Inline into
 * tally__heap_alloc, as heap_free. */
static inline __attribute__((always_inline)) int heap_alloc(struct col_thread *t, uint32_t stack_id,
							    struct col_traced_memo *memo, uint64_t size,
							    uint64_t addr)
{
	struct exp_heap_state *st = get_state();
	struct exp_heap_sum *sum = memo ? memo->aux : NULL;

	if (!st || (!sum && !(sum = sum_slot(t, stack_id)))) {
		col_file_lost_sigsafe(EXP_FILE_HEAP, EXP_CTR_LOST_EVENTS);
		return -1;
	}
	if (memo)
		memo->aux = sum;       /* found again with the stack (col_stacks.h) */
	sum->bytes += size;
	atomic_store_explicit((_Atomic uint64_t *)&sum->count, sum->count + 1, memory_order_release);

	int64_t delta = (int64_t)size;
	struct exp_heap_live v = { addr, size, stack_id, (uint32_t)t->tid };
	if (!owner_put(t, st, &v, &delta))
		return stripe_put(t, st, &v, delta);
	count_live(st, t, delta, stack_id);
	return 0;
}

/* ---- the heap tracer's entry points (col_export.h) ----------------------- */

/* Inside the collector for a heap event of the calling thread, or NULL:
 * recording has stopped (the size limit: counted), is paused, or the
 * thread is inside the collector already. */
static inline __attribute__((always_inline)) struct col_thread *heap_enter(void)
{
	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed)) {
		col_count_sigsafe(EXP_CTR_LOST_LIMIT, 1);     /* the size limit was reached */
		return NULL;
	}
	if (col_control_paused_sigsafe(0))
		return NULL;
	return col_enter();
}

/* An allocation by the general path: every case but the one below. */
static __attribute__((noinline)) int alloc_slow(uint64_t size, uint64_t addr, uint64_t ra, uint64_t sp, uint64_t fp)
{
	struct col_thread *t = heap_enter();

	if (!t)
		return -1;
	int rc = 0;
	uint32_t stack_id = 0;         /* --data alone: no stack, no heap.dat */
	if (col_proc.opt.heap) {
		struct col_traced_memo *memo;
		stack_id = col_stack_from_memo(t, ra, sp, fp, &memo);
		rc = heap_alloc(t, stack_id, memo, size, addr);
	}
	if (__builtin_expect(col_proc.opt.data, 0))
		col_data_block_alloc(t, addr, size, stack_id);
	col_leave(t);
	return rc;
}

/* The rest of an allocation from stack `stack_id` (its memo entry `memo`,
 * NULL none), inside the collector. */
static __attribute__((noinline)) int alloc_rest(struct col_thread *t, uint32_t stack_id,
						struct col_traced_memo *memo, uint64_t size, uint64_t addr)
{
	int rc = heap_alloc(t, stack_id, memo, size, addr);

	col_leave(t);
	return rc;
}

/* An allocation whose stack the memo did not have, inside the collector. */
static __attribute__((noinline)) int alloc_walk(struct col_thread *t, uint64_t size, uint64_t addr, uint64_t ra,
						uint64_t sp, uint64_t fp)
{
	struct col_traced_memo *memo;
	uint32_t stack_id = col_stack_walk_traced(t, ra, sp, fp, &memo);

	return alloc_rest(t, stack_id, memo, size, addr);
}

/* An allocation counted in t's batch, now due in the process's total. */
static __attribute__((noinline)) int alloc_flush(struct col_thread *t, uint32_t stack_id)
{
	flush_live(atomic_load_explicit(&state, memory_order_relaxed), t, stack_id);
	col_leave(t);
	return 0;
}

/* May a heap event of t take the inline path: -H alone (no --data), the
 * state record made (both: plain_state), nothing stopped, watched or
 * attached, and t with its own live-block table? */
static inline __attribute__((always_inline)) bool heap_plain(const struct col_thread *t)
{
	return t && atomic_load_explicit(&plain_state, memory_order_relaxed) &&
	       !col_proc.attached && t->heap_owner &&
	       !atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) &&
	       !atomic_load_explicit(&col_proc.control_watch, memory_order_relaxed);
}

/* With heap_plain, an allocation whose stack the memo has, with its sums
 * slot, into a table with room: that path, and no other, inline; every
 * other case by a tail call (alloc_slow from the start, alloc_walk,
 * alloc_rest or alloc_flush inside the collector), so that the path saves
 * fewer registers (callgrind, heapmix; docs/benchmarks.md). */
COL_API int tally__heap_alloc(uint64_t size, uint64_t addr, uint64_t ra, uint64_t sp, uint64_t fp)
{
	struct col_thread *t = col_self_tls;

	if (__builtin_expect(!heap_plain(t), 0))
		return alloc_slow(size, addr, ra, sp, fp);
	if (atomic_load_explicit(&col_proc.paused, memory_order_relaxed) || !(t = col_enter()))
		return -1;
	const struct col_object_set *set = col_objects_current_sigsafe();
	struct col_traced_memo *memo;
	if (__builtin_expect(!set || !(memo = col_traced_memo_find(t, ra, sp, fp, set->generation)), 0))
		return alloc_walk(t, size, addr, ra, sp, fp);
	struct exp_heap_sum *sum = memo->aux;
	if (__builtin_expect(!sum || owner_crowded(t), 0))
		return alloc_rest(t, memo->id, memo, size, addr);
	struct exp_heap_state *st = atomic_load_explicit(&plain_state, memory_order_relaxed);
	sum->bytes += size;
	atomic_store_explicit((_Atomic uint64_t *)&sum->count, sum->count + 1, memory_order_release);
	int64_t delta = (int64_t)size;
	struct exp_heap_live v = { addr, size, memo->id, (uint32_t)t->tid };
	owner_insert(t, st, &v, &delta);
	t->heap_live_delta += delta;
	if (__builtin_expect(live_due(st, t, delta), 0))
		return alloc_flush(t, v.stack_id);
	col_leave(t);
	return 0;
}

/* A release by the general path: every case but the one below. */
static __attribute__((noinline)) void free_slow(uint64_t addr)
{
	struct col_thread *t = heap_enter();

	if (!t)
		return;
	if (col_proc.opt.heap)
		heap_free(t, addr);
	if (__builtin_expect(col_proc.opt.data, 0))
		col_data_block_free(t, addr);
	col_leave(t);
}

/* The rest of a release the thread's own table gave `size` for (-1: not
 * there), inside the collector. */
static __attribute__((noinline)) void free_rest(struct col_thread *t, uint64_t addr, int64_t size)
{
	heap_free_rest(t, get_state(), addr, size);
	col_leave(t);
}

/* With heap_plain, the release inline, up to its own table's lookup;
 * whatever else goes to free_slow or free_rest by tail calls, so that this
 * path saves no register (its prologue and epilogue were 16 of the ~85
 * instructions of a release; callgrind, heapmix). */
COL_API void tally__heap_free(uint64_t addr)
{
	struct col_thread *t = col_self_tls;

	if (__builtin_expect(!heap_plain(t), 0))
		return free_slow(addr);
	if (atomic_load_explicit(&col_proc.paused, memory_order_relaxed) || !(t = col_enter()))
		return;
	int64_t size = owner_take(t, addr);
	if (__builtin_expect(size < 0 || t->heap_live_delta - size < -BATCH, 0))
		return free_rest(t, addr, size);
	t->heap_live_delta -= size;
	col_leave(t);
}

void col_heap_thread_end(struct col_thread *t)
{
	struct exp_heap_state *st = atomic_load(&state);

	if (st && t->heap_live_delta)
		flush_live(st, t, 0);
	if (t->heap_sums) {
		lock(&spare_lock);
		if (nspares < SPARE) {
			spares[nspares++] = (struct spare){ t->heap_sums, t->heap_sums_mapped, t->heap_sums_used };
			t->heap_sums = NULL;
		}
		unlock(&spare_lock);
		if (t->heap_sums)
			exp_large_release_sigsafe(t->heap_sums, t->heap_sums_mapped);
	}
	t->heap_sums = NULL;
	t->heap_sums_mapped = 0;
	t->heap_sums_used = 0;
	col_stacks_forget_aux(t);
	if (t->heap_owner) {
		t->heap_owner->filled = t->heap_filled;     /* for the next owner */
		atomic_store_explicit(&t->heap_owner->state, 2, memory_order_release);
	}
	t->heap_owner = t->heap_hint = NULL;
	t->heap_tab = NULL;
	t->heap_owner_none = 0;
}

void col_heap_reset_after_fork(void)
{
	for (int i = 0; i < nspares; i++)
		exp_large_release_sigsafe(spares[i].tab, spares[i].mapped);
	nspares = 0;
	atomic_flag_clear(&spare_lock);
	for (int i = 0; i < STRIPES; i++) {
		if (stripes[i].tab)
			exp_large_release_sigsafe(stripes[i].tab, stripes[i].mapped);
		memset(&stripes[i], 0, sizeof(stripes[i]));
	}
	for (uint32_t i = 0; i < OWNERS && i < atomic_load(&nowners); i++) {
		struct exp_heap_live_table *tb = atomic_load(&owners[i].tab);
		if (tb)
			exp_large_release_sigsafe(tb, owners[i].mapped);
		atomic_store(&owners[i].tab, NULL);
		atomic_store(&owners[i].state, 0);
		atomic_flag_clear(&owners[i].lock);
		owners[i].filled = 0;
	}
	atomic_store(&nowners, 0);
	struct exp_heap_state *s = atomic_load(&state);
	if (s)
		exp_large_release_sigsafe(s, state_mapped);
	atomic_store(&plain_state, NULL);
	atomic_store(&state, NULL);
	atomic_store(&no_state, 0);
	atomic_flag_clear(&state_lock);
}

uint64_t col_heap_live_sigsafe(void)
{
	struct exp_heap_state *s = atomic_load(&state);

	if (!col_proc.opt.heap)
		return EXP_PROC_NO_HEAP;
	return s ? atomic_load_explicit((_Atomic uint64_t *)&s->live_bytes, memory_order_relaxed) : 0;
}

void col_heap_tables(uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)owners;
	*hi = *lo + sizeof(owners);
}
