/* SPDX-License-Identifier: MIT
 *
 * mc_internal.h — libtally-mcount, the runtime for programs built with -pg
 * (mcount, __fentry__) or -finstrument-functions (__cyg_profile_func_*).
 *
 * Each thread counts arcs in its own open-addressing table keyed by
 * (call site, callee), the paper's primary and secondary keys.  No locks and
 * no atomics on the hot path: a table belongs to one thread.  Tables live in
 * the experiment's arcs.dat, mapped shared, so the counts are on disk at
 * every instant (a crash or SIGKILL loses nothing); the analyzer sums the
 * tables of all threads.  A table that fills up is not rehashed: a bigger
 * one is started and the old one stays in the file, where its counts still
 * add up.  Rationale in docs/mcount.md.
 */
#ifndef TALLY_MC_INTERNAL_H
#define TALLY_MC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/col_export.h"
#include "format/exp_records.h"

#define MC_API __attribute__((visibility("default")))

/* Per-thread state.  mc_entry.S reads slots (offset 0) and mask (8); both
 * are 0 while there is no table and while the slow path runs, so that
 * slots + index * 32 is 0 exactly then. */
struct mc_thread {
	struct exp_arc *slots;        /* current table; NULL: none yet, or busy */
	uint64_t mask;                /* nslots - 1 */
	uint32_t used, limit;         /* slots taken; start a bigger table beyond limit */
	uint32_t busy;                /* inside the slow path */
	bool disabled;                /* collection unavailable in this thread */
};

/* The slot an arc hashes to first; mc_entry.S computes the same. */
static inline uint64_t mc_slot_index(uint64_t frompc, uint64_t selfpc, uint64_t mask)
{
	uint64_t h = (frompc ^ (selfpc << 7)) * (uint64_t)(int64_t)(int32_t)0x9e3779b1u;
	return (h >> 40) & mask;
}

extern __thread struct mc_thread mc_self __attribute__((tls_model("initial-exec")));
extern int mc_off;                    /* moncontrol(0): not counting */
extern uint8_t mc_use_xsave;          /* the system has XSAVE (mc_entry.S) */

#define MC_MAX_PROBES 16

/* The slot of (frompc, selfpc) in the thread's table, inserting it; NULL
 * when the slow path must run (no table yet, table full, long probe). */
static inline __attribute__((always_inline)) struct exp_arc *
mc_probe(struct mc_thread *t, uint64_t frompc, uint64_t selfpc, uint64_t n)
{
	uint64_t i = mc_slot_index(frompc, selfpc, t->mask);

	for (int k = 0; k < MC_MAX_PROBES; k++, i = (i + 1) & t->mask) {
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

/* Count one traversal of frompc -> selfpc.  Preserves every register, so
 * the assembly entries (mc_entry.S) can call it after saving only two. */
void mc_count_arc(uint64_t frompc, uint64_t selfpc) __attribute__((no_caller_saved_registers));

/* The same for C callers (-finstrument-functions): returns the arc's slot,
 * or NULL if it was lost. */
struct exp_arc *mc_arc_slot(uint64_t frompc, uint64_t selfpc);


/* Slow path (mc_arcs.c): set up or grow the thread's table, then insert.
 * Returns the slot or NULL (the arc is counted as lost). */
struct exp_arc *mc_insert_slow(uint64_t frompc, uint64_t selfpc);

/* mc_insert_slow behind a full save of the register state (mc_entry.S). */
void mc_slow_trampoline(uint64_t frompc, uint64_t selfpc) __attribute__((no_caller_saved_registers));

/* The table kind of this process (EXP_ARCS_MCOUNT/FENTRY/CYG), set by the
 * first entry point used. */
extern uint32_t mc_kind;

/* -finstrument-functions: the runtime's own time per call made inside an
 * activation (an enter and an exit) and inside the activation's own
 * interval, measured once per process (mc_cyg.c); 0 until then. */
extern uint32_t mc_cyg_call_ns, mc_cyg_own_ns;

/* Say them in the thread's current table, made before they were known. */
void mc_arcs_note_cyg_net(void);

#endif
