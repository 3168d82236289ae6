/* SPDX-License-Identifier: MIT
 *
 * col_objset.c — the current snapshot of the loaded objects (see
 * col_objset.h).  Sigsafe file.
 */
#include <stdatomic.h>
#include <stddef.h>

#include "collector/col_objset.h"

/* The current snapshot (col_objset.h reads it inline). */
_Atomic(const struct col_object_set *) col_objset_current;

void col_objects_publish(const struct col_object_set *s)
{
	atomic_store_explicit(&col_objset_current, s, memory_order_release);
}

const struct col_object *col_objects_find_sigsafe(const struct col_object_set *s, uint64_t pc)
{
	uint32_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pc < s->obj[mid].text_lo)
			hi = mid;
		else if (pc >= s->obj[mid].text_hi)
			lo = mid + 1;
		else
			return &s->obj[mid];
	}
	return NULL;
}
