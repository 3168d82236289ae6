/* SPDX-License-Identifier: MIT
 *
 * mc_hot.c — the hot path, run on every instrumented call (compiled with
 * -mgeneral-regs-only: it must not touch the vector registers, which may hold
 * the callee's arguments).
 *
 * The assembly entries (mc_entry.S) count an arc found in its first slot
 * themselves; here is the rest: linear probing, inserting, and the slow
 * path.  mc_count_arc preserves every register (no_caller_saved_registers);
 * its slow path goes through mc_slow_trampoline, which saves the whole
 * register state.  While the slow path runs, the thread's slots pointer is
 * NULL, so a reentrant call (a -pg signal handler) comes here and is counted
 * as lost.
 */
#include <stddef.h>

#include "mcount/mc_internal.h"

#define MAX_PROBES 16

/* The slot of (frompc, selfpc) in the thread's table, inserting it; NULL
 * when the slow path must run (no table yet, table full, long probe). */
static inline __attribute__((always_inline)) struct exp_arc *
probe(struct mc_thread *t, uint64_t frompc, uint64_t selfpc, uint64_t n)
{
	uint64_t i = mc_slot_index(frompc, selfpc, t->mask);

	for (int k = 0; k < MAX_PROBES; k++, i = (i + 1) & t->mask) {
		struct exp_arc *a = &t->slots[i];
		if (a->frompc == frompc && a->selfpc == selfpc) {
			a->count += n;
			return a;
		}
		if (a->frompc == 0) {
			if (t->used >= t->limit)
				return NULL;
			/* A reader sees the slot once frompc is set. */
			a->selfpc = selfpc;
			a->count = n;
			__atomic_store_n(&a->frompc, frompc, __ATOMIC_RELEASE);
			t->used++;
			return a;
		}
	}
	return NULL;
}

void mc_count_arc(uint64_t frompc, uint64_t selfpc)
{
	struct mc_thread *t = &mc_self;

	if (t->slots && !mc_off && probe(t, frompc, selfpc, 1))
		return;
	if (!mc_off && !t->disabled)
		mc_slow_trampoline(frompc, selfpc);
}

struct exp_arc *mc_arc_slot(uint64_t frompc, uint64_t selfpc)
{
	struct mc_thread *t = &mc_self;

	if (__builtin_expect(t->slots != NULL && !mc_off, 1)) {
		struct exp_arc *a = probe(t, frompc, selfpc, 1);
		if (a)
			return a;
	}
	if (mc_off || t->disabled)
		return NULL;
	return mc_insert_slow(frompc, selfpc);
}

struct exp_arc *mc_probe_insert(uint64_t frompc, uint64_t selfpc)
{
	return probe(&mc_self, frompc, selfpc, 1);
}
