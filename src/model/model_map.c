/* SPDX-License-Identifier: MIT
 *
 * model_map.c — linear-probing hash map (see model_map.h).  Grows at 50%
 * load (deleted slots included), so a probe is nearly always one or two
 * slots.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "model/model_map.h"

#define DELETED UINT64_MAX

uint64_t model_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

uint64_t model_hash_str(uint64_t h, const char *s)
{
	if (!h)
		h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

static int rehash(struct model_map *m, size_t ncap)
{
	struct model_map_slot *slots = exp_big_alloc(ncap * sizeof(*slots), true);

	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t k = m->slots[i].key;
		if (k == 0 || k == DELETED)
			continue;
		size_t j = model_hash64(k) & (ncap - 1);
		while (slots[j].key)
			j = (j + 1) & (ncap - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = ncap;
	m->used = m->live;
	return 0;
}

uint64_t *model_map_get(const struct model_map *m, uint64_t key)
{
	if (!m->cap || key == 0 || key == DELETED)
		return NULL;
	for (size_t j = model_hash64(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].key == key)
			return &m->slots[j].val;
		if (m->slots[j].key == 0)
			return NULL;
	}
}

uint64_t *model_map_put(struct model_map *m, uint64_t key, uint64_t init, bool *inserted)
{
	if (inserted)
		*inserted = false;
	if (key == 0 || key == DELETED)
		return NULL;
	if ((m->used + 1) * 2 > m->cap && rehash(m, m->cap ? (m->live * 2 + 2 > m->cap ? m->cap * 2 : m->cap) : 64))
		return NULL;
	size_t tomb = SIZE_MAX;
	for (size_t j = model_hash64(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].key == key)
			return &m->slots[j].val;
		if (m->slots[j].key == DELETED && tomb == SIZE_MAX)
			tomb = j;
		if (m->slots[j].key == 0) {
			if (tomb != SIZE_MAX)
				j = tomb;
			else
				m->used++;
			m->slots[j] = (struct model_map_slot){ key, init };
			m->live++;
			if (inserted)
				*inserted = true;
			return &m->slots[j].val;
		}
	}
}

void model_map_prefetch(const struct model_map *m, uint64_t key)
{
	if (m->cap)
		exp_prefetch(&m->slots[model_hash64(key) & (m->cap - 1)]);
}

int model_map_reserve(struct model_map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while ((m->live + n + 1) * 2 > cap)
		cap *= 2;
	return cap > m->cap ? rehash(m, cap) : 0;
}

bool model_map_del(struct model_map *m, uint64_t key)
{
	uint64_t *v = model_map_get(m, key);

	if (!v)
		return false;
	((struct model_map_slot *)((char *)v - offsetof(struct model_map_slot, val)))->key = DELETED;
	m->live--;
	return true;
}

void model_map_free(struct model_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
