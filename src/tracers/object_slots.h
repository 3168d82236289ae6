/* SPDX-License-Identifier: MIT
 *
 * object_slots.h — the lock-free table of objects by address that the sync
 * tracer's side tables share (sync_holders.c: contended mutexes' holders;
 * sync_wakers.c: signalled objects' wakers).
 *
 * A table is an array of slots whose first member is the object's address
 * (_Atomic uint64_t, 0 for a free slot), open addressing from a hash of the
 * address over a power-of-two number of slots, a bounded number of probes.
 * A slot is claimed by a compare-and-swap of its address and never freed,
 * so a reader needs no lock: an address once seen in a slot stays there.
 */
#ifndef TALLY_TRACERS_OBJECT_SLOTS_H
#define TALLY_TRACERS_OBJECT_SLOTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum object_slot_result {
	OBJECT_SLOT_FOUND,   /* the object's slot, already there */
	OBJECT_SLOT_CLAIMED, /* a free slot, now the object's */
	OBJECT_SLOT_NONE,    /* not in the table (looking only) */
	OBJECT_SLOT_FULL,    /* not in the table and no free slot in reach */
};

/* The slot of `object` in `table` (nslots slots of `stride` bytes, a power
 * of two; `probes` looked at); with `insert`, a free one is claimed for it.
 * The slot or NULL; *result says which case it was. */
static inline void *object_slot(void *table, size_t stride, uint32_t nslots, uint32_t probes, uint64_t object,
				int insert, enum object_slot_result *result)
{
	uint32_t h = (uint32_t)(((object >> 3) * 0x9e3779b97f4a7c15ull) >> 40);

	for (uint32_t i = 0; i < probes; i++) {
		char *slot = (char *)table + (size_t)((h + i) & (nslots - 1)) * stride;
		_Atomic uint64_t *addr = (_Atomic uint64_t *)(void *)slot;
		uint64_t o = atomic_load_explicit(addr, memory_order_acquire);
		if (o == object) {
			*result = OBJECT_SLOT_FOUND;
			return slot;
		}
		if (o)
			continue;
		if (!insert) {
			*result = OBJECT_SLOT_NONE;
			return NULL;
		}
		uint64_t expect = 0;
		if (atomic_compare_exchange_strong_explicit(addr, &expect, object, memory_order_acq_rel,
							    memory_order_acquire)) {
			*result = OBJECT_SLOT_CLAIMED;
			return slot;
		}
		if (expect == object) {
			*result = OBJECT_SLOT_FOUND;
			return slot;
		}
	}
	*result = insert ? OBJECT_SLOT_FULL : OBJECT_SLOT_NONE;
	return NULL;
}

#endif
