/* SPDX-License-Identifier: MIT
 *
 * model_pool.c — where the entries' frames and metrics live: each entry's
 * funcs and addrs, exactly n of each, and the metrics of an entry that has
 * more than MODEL_ENTRY_SLOTS of them, packed into blocks of 8 MiB owned by
 * the model (model_build_int.h lists the neighbours).
 *
 * Called while building (model_frames.c makes each entry once) and by unit
 * tests' fixtures; not thread-safe.  An entry's arrays never move and are
 * freed all at once by model_free.  Blocks instead of two mallocs per entry:
 * a million-sample experiment of mostly distinct stacks has ~170,000
 * entries, and their arrays, each allocated at twice the stack's depth for
 * the imputed calls, were half the analyzer's memory and a fifth of its
 * page faults (docs/benchmarks.md, section 3).  Likewise the metrics: an
 * entry held all 33 of them (264 bytes) where a clock sample's has two, so
 * they are slots in the entry (model.h) until a fourth metric comes.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define BLOCK_BYTES (8u << 20)

/* Room for `bytes` (a multiple of 8) in the current block, or a new one. */
static void *pool_take(struct model_pool *p, size_t bytes)
{
	if (bytes > p->left) {
		size_t size = bytes > BLOCK_BYTES ? bytes : BLOCK_BYTES;
		if (p->nblocks == p->cap_blocks) {
			size_t cap = p->cap_blocks ? 2 * p->cap_blocks : 16;
			char **bl = realloc(p->blocks, cap * sizeof(*bl));
			if (!bl)
				return NULL;
			p->blocks = bl;
			p->cap_blocks = cap;
		}
		char *block = exp_big_alloc(size, false);
		if (!block)
			return NULL;
		p->blocks[p->nblocks++] = block;
		p->at = block;
		p->left = size;
	}
	void *r = p->at;
	p->at += bytes;
	p->left -= bytes;
	p->last = r;
	p->last_bytes = bytes;
	return r;
}

int model_entry_set_frames(struct model *m, struct model_entry *e, const uint32_t *funcs,
			   const uint64_t *addrs, uint32_t n)
{
	size_t bytes = ((size_t)n * (sizeof(*addrs) + sizeof(*funcs)) + 7) & ~(size_t)7;
	char *at = pool_take(&m->pool, bytes ? bytes : 8);

	if (!at)
		return -1;
	e->addrs = (uint64_t *)at;
	e->funcs = (uint32_t *)(at + (size_t)n * sizeof(*addrs));
	e->n = n;
	if (n) {
		memcpy(e->addrs, addrs, n * sizeof(*addrs));
		memcpy(e->funcs, funcs, n * sizeof(*funcs));
	}
	return 0;
}

int model_entry_add_value(struct model *m, struct model_entry *e, int mm, uint64_t value)
{
	if (e->all) {
		e->all[mm] += value;
		return 0;
	}
	for (unsigned i = 0; i < e->nslots; i++)
		if (e->slot_metric[i] == mm) {
			e->slot[i] += value;
			return 0;
		}
	if (!value)
		return 0;
	if (e->nslots < MODEL_ENTRY_SLOTS) {
		e->slot_metric[e->nslots] = (uint8_t)mm;
		e->slot[e->nslots++] = value;
		return 0;
	}
	uint64_t *all = pool_take(&m->pool, MODEL_METRIC_COUNT * sizeof(*all));
	if (!all)
		return -1;
	memset(all, 0, MODEL_METRIC_COUNT * sizeof(*all));
	for (unsigned i = 0; i < e->nslots; i++)
		all[e->slot_metric[i]] = e->slot[i];
	all[mm] = value;
	e->all = all;
	e->nslots = 0;
	return 0;
}

void model_entry_drop_frames(struct model *m, struct model_entry *e)
{
	struct model_pool *p = &m->pool;

	if (p->last && (char *)e->addrs == p->last) {
		p->at -= p->last_bytes;
		p->left += p->last_bytes;
		p->last = NULL;
	}
	e->funcs = NULL;
	e->addrs = NULL;
	e->n = 0;
}

void model_pool_free(struct model *m)
{
	for (size_t i = 0; i < m->pool.nblocks; i++)
		free(m->pool.blocks[i]);
	free(m->pool.blocks);
	memset(&m->pool, 0, sizeof(m->pool));
}
