/* SPDX-License-Identifier: MIT
 *
 * col_objset.h — the loaded objects as the unwinder sees them: a sorted
 * snapshot of every object's executable range and .eh_frame_hdr search
 * table (or the one made from its .debug_frame), published by col_objects.c (which scans outside any handler) and
 * read by the unwinder in the signal handler.  The snapshot is replaced by
 * pointer swap; old snapshots are never reused, so a handler holding one
 * stays safe.  Layer 1 (includes nothing of the collector).
 */
#ifndef TALLY_COL_OBJSET_H
#define TALLY_COL_OBJSET_H

#include <stdatomic.h>
#include <stdint.h>

struct col_object {
	uint64_t text_lo, text_hi;     /* executable segment(s), runtime addresses */
	uint64_t ro_lo, ro_hi;         /* readable segment holding .eh_frame(_hdr) */
	/* A second readable range, or 0 and 0: CFI made at scan from the
	 * object's .debug_frame (col_debugframe.c), a copy in .eh_frame's
	 * form with the search table that covers it and the object's own
	 * .eh_frame; eh_hdr and fde_table are then in it.  An entry is
	 * read within the range that holds its start.  The range's first
	 * word is the fill's number, cfi2_fill here: a range is refilled
	 * for another object once this one is gone, while a handler may
	 * still hold a snapshot naming it, and a reader whose number is no
	 * longer there reads no CFI from it (col_unwind.c). */
	uint64_t cfi2_lo, cfi2_hi, cfi2_fill;
	uint64_t bias;
	const uint8_t *eh_hdr;         /* .eh_frame_hdr where it is read, or NULL */
	const uint8_t *fde_table;      /* its sorted (sdata4 initial_loc, sdata4 fde) pairs */
	uint64_t fde_count;
	int self;                      /* tally's own: the collector, libtally-mcount, the tracers */
	/* Where the object's bytes are read: runtime address A is at A +
	 * mem_delta.  0 in the target; outside it (src/outside/, unwinding a
	 * copied stack in `tally record`), the object's file loaded elsewhere.
	 * eh_hdr and fde_table are where they are read (runtime + mem_delta). */
	int64_t mem_delta;
};

#define COL_SELF_MAX 8

struct col_object_set {
	uint64_t generation;           /* increases with every new snapshot */
	uint32_t nself;                /* tally's own executable ranges, for a quick test */
	uint64_t self_lo[COL_SELF_MAX], self_hi[COL_SELF_MAX];
	uint32_t n;
	struct col_object obj[];       /* sorted by text_lo */
};

/* The current snapshot (acquire load); NULL before the first scan.
 * Inline: every traced event with a stack asks (as a call, with the
 * registers its caller saved around it, ten instructions of a traced
 * allocation's ~470; callgrind, heapmix). */
extern _Atomic(const struct col_object_set *) col_objset_current;
static inline const struct col_object_set *col_objects_current_sigsafe(void)
{
	return atomic_load_explicit(&col_objset_current, memory_order_acquire);
}

/* Make `s` the current snapshot (release store).  `s` is never freed. */
void col_objects_publish(const struct col_object_set *s);

/* Object whose text holds `pc`, or NULL. */
const struct col_object *col_objects_find_sigsafe(const struct col_object_set *s, uint64_t pc);

/* Is `pc` in tally's own code (collector, runtime, tracers)? */
static inline int col_objects_is_self_sigsafe(const struct col_object_set *s, uint64_t pc)
{
	for (uint32_t i = 0; s && i < s->nself; i++)
		if (pc - s->self_lo[i] < s->self_hi[i] - s->self_lo[i])
			return 1;
	return 0;
}

#endif
