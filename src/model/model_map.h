/* SPDX-License-Identifier: MIT
 *
 * model_map.h — an open-addressing hash map from 64-bit keys to 64-bit
 * values, the analyzer's one associative container (pc caches, stack and
 * function indexes, live heap blocks).  Key 0 is reserved.
 */
#ifndef TALLY_MODEL_MAP_H
#define TALLY_MODEL_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model_map_slot {
	uint64_t key;              /* 0: empty; UINT64_MAX: deleted */
	uint64_t val;
};

struct model_map {
	struct model_map_slot *slots;   /* a key beside its value: one cache miss a probe */
	size_t cap;                /* power of two */
	size_t used;               /* live + deleted slots */
	size_t live;
};

/* Pointer to the value of `key`, inserting it with value `init` if absent.
 * NULL only when out of memory.  Invalidated by the next insertion. */
uint64_t *model_map_put(struct model_map *m, uint64_t key, uint64_t init, bool *inserted);
/* Pointer to the value of `key`, or NULL. */
uint64_t *model_map_get(const struct model_map *m, uint64_t key);
bool model_map_del(struct model_map *m, uint64_t key);
/* A hint: the slot of `key` will be wanted soon (a cache miss in a big
 * map, prefetched while other work goes on).  No effect on the map. */
void model_map_prefetch(const struct model_map *m, uint64_t key);
/* Room for n live keys without growing (one rehash now instead of one per
 * doubling, for a caller that knows how many are coming).  0, or -1 when
 * out of memory (the map is unchanged). */
int model_map_reserve(struct model_map *m, size_t n);
void model_map_free(struct model_map *m);

/* Mix a 64-bit value (for keys built from several fields). */
uint64_t model_hash64(uint64_t x);
/* FNV-1a of a string, continuing from `h` (start with 0). */
uint64_t model_hash_str(uint64_t h, const char *s);

#endif
