/* SPDX-License-Identifier: MIT
 *
 * sym_kernel.c — the object `[kernel]`: the kernel functions an experiment
 * copied from /proc/kallsyms (kernel.dat's KERNEL_SYM records), one
 * in-memory object with no code and no lines, made by the model once per
 * experiment and mapped into each of its processes' address spaces at the
 * kernel's addresses.  Kept in the object cache under the caller's key,
 * freed with the other objects by sym_objects_free.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

struct sym_object *sym_object_kernel(const char *key, const char *display, size_t n,
				     const uint64_t *addrs, const uint64_t *sizes,
				     const char *const *names)
{
	struct sym_object *o = sym_object_find_cached(key);

	if (o)
		return o;
	o = sym_object_made(key, display, display);
	if (!o)
		return NULL;
	o->funcs = calloc(n + 1, sizeof(*o->funcs));
	o->segs = calloc(n + 1, sizeof(*o->segs));
	if (!o->funcs || !o->segs) {
		sym_object_release(o);
		return NULL;
	}
	/* In address order (the caller's), overlaps cut: each function ends
	 * where the next begins. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = addrs[i] + (sizes[i] ? sizes[i] : 1);
		if (i + 1 < n && addrs[i + 1] < end)
			end = addrs[i + 1];
		if (end <= addrs[i] || (k && addrs[i] < o->segs[k - 1].end))
			continue;
		const char *name = sym_arena_strdup(&o->arena, names[i]);
		if (!name) {
			sym_object_release(o);
			return NULL;
		}
		o->funcs[k] = (struct sym_func){ name, name, NULL, addrs[i], end - addrs[i], 0, (uint32_t)k };
		o->segs[k] = (struct sym_seg){ addrs[i], end, (uint32_t)k };
		k++;
	}
	o->nfuncs = o->nsegs = k;
	o->lines_tried = true;           /* no DWARF */
	sym_object_cache_add(o);
	return o;
}
