/* SPDX-License-Identifier: MIT
 *
 * mc_hot.c — the hot path, run on every instrumented call (compiled with
 * -mgeneral-regs-only: it must not touch the vector registers, which may hold
 * the callee's arguments).
 *
 * The assembly entries (mc_entry.S) count an arc found in its first slot
 * themselves; here is the rest (the probing itself is mc_probe, in
 * mc_internal.h, shared with the slow path), and the way to the slow path.  mc_count_arc preserves every register (no_caller_saved_registers);
 * its slow path goes through mc_slow_trampoline, which saves the whole
 * register state.  While the slow path runs, the thread's slots pointer is
 * NULL, so a reentrant call (a -pg signal handler) comes here and is counted
 * as lost.
 */
#include <stddef.h>

#include "mcount/mc_internal.h"

void mc_count_arc(uint64_t frompc, uint64_t selfpc)
{
	struct mc_thread *t = &mc_self;

	if (t->slots && !mc_off && mc_probe(t, frompc, selfpc, 1))
		return;
	if (!mc_off && !t->disabled)
		mc_slow_trampoline(frompc, selfpc);
}

struct exp_arc *mc_arc_slot(uint64_t frompc, uint64_t selfpc)
{
	struct mc_thread *t = &mc_self;

	if (__builtin_expect(t->slots != NULL && !mc_off, 1)) {
		struct exp_arc *a = mc_probe(t, frompc, selfpc, 1);
		if (a)
			return a;
	}
	if (mc_off || t->disabled)
		return NULL;
	return mc_insert_slow(frompc, selfpc);
}
