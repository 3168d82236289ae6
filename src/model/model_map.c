/* SPDX-License-Identifier: MIT
 *
 * model_map.c — linear-probing hash map (see model_map.h).  Grows at 50%
 * load (deleted slots included), so a probe is nearly always one or two
 * slots.
 */
#include <stdlib.h>
#include <string.h>

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
	uint64_t *keys = calloc(ncap, sizeof(*keys)), *vals = malloc(ncap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t k = m->keys[i];
		if (k == 0 || k == DELETED)
			continue;
		size_t j = model_hash64(k) & (ncap - 1);
		while (keys[j])
			j = (j + 1) & (ncap - 1);
		keys[j] = k;
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	m->used = m->live;
	return 0;
}

uint64_t *model_map_get(const struct model_map *m, uint64_t key)
{
	if (!m->cap || key == 0 || key == DELETED)
		return NULL;
	for (size_t j = model_hash64(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		if (m->keys[j] == key)
			return &m->vals[j];
		if (m->keys[j] == 0)
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
		if (m->keys[j] == key)
			return &m->vals[j];
		if (m->keys[j] == DELETED && tomb == SIZE_MAX)
			tomb = j;
		if (m->keys[j] == 0) {
			if (tomb != SIZE_MAX)
				j = tomb;
			else
				m->used++;
			m->keys[j] = key;
			m->vals[j] = init;
			m->live++;
			if (inserted)
				*inserted = true;
			return &m->vals[j];
		}
	}
}

bool model_map_del(struct model_map *m, uint64_t key)
{
	uint64_t *v = model_map_get(m, key);

	if (!v)
		return false;
	m->keys[v - m->vals] = DELETED;
	m->live--;
	return true;
}

void model_map_free(struct model_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
