/* SPDX-License-Identifier: MIT
 *
 * model_heap_blocks.c — heap blocks with their lifetimes, for naming the
 * block a data address falls in at a moment (`<Heap: FUNC>`): one replay of
 * allocation and release events in time order, one lookup by address and
 * time.  Serves both data-object paths: precise samples against the heap
 * tracer's events (model_dataspace.c) and clock samples against --data's
 * block records (model_dataclock.c); each turns its records into the events
 * below.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/model_build_int.h"

/* How many blocks starting below an address are looked at (a large block
 * much lower down is missed: its address counts as anonymous). */
#define NEAREST 64

static int cmp_event_time(const void *a, const void *b)
{
	const struct model_block_event *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static int cmp_block_addr(const void *a, const void *b)
{
	const struct model_heap_block *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int model_heap_blocks_replay(struct model_block_event *ev, size_t n, struct model_heap_blocks *out)
{
	struct model_map live = { 0 };        /* addr + 1 -> block index + 1 */
	struct model_heap_block *v = malloc((n + 1) * sizeof(*v));
	size_t nv = 0;

	out->v = NULL;
	out->n = 0;
	if (!v)
		return -1;
	qsort(ev, n, sizeof(*ev), cmp_event_time);
	for (size_t i = 0; i < n; i++) {
		const struct model_block_event *e = &ev[i];
		/* a release ends its block; so does an allocation at a live
		 * address (its release was not seen) */
		uint64_t ends[2] = { e->gone, e->addr && e->size ? e->addr : 0 };
		for (int j = 0; j < 2; j++) {
			uint64_t *k = ends[j] ? model_map_get(&live, ends[j] + 1) : NULL;
			if (k) {
				v[*k - 1].to_ns = e->time_ns;
				model_map_del(&live, ends[j] + 1);
			}
		}
		if (!e->addr || !e->size)
			continue;
		v[nv] = (struct model_heap_block){ e->addr, e->size, e->time_ns, UINT64_MAX, e->stack_id };
		if (!model_map_put(&live, e->addr + 1, ++nv, NULL)) {
			model_map_free(&live);
			free(v);
			return -1;
		}
	}
	model_map_free(&live);
	qsort(v, nv, sizeof(*v), cmp_block_addr);
	out->v = v;
	out->n = nv;
	return 0;
}

const struct model_heap_block *model_heap_block_at(const struct model_heap_blocks *bl, uint64_t addr, uint64_t t)
{
	size_t lo = 0, hi = bl->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (bl->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < NEAREST; k++) {
		const struct model_heap_block *b = &bl->v[i];
		if (addr - b->addr < b->size && b->from_ns <= t && t < b->to_ns)
			return b;
	}
	return NULL;
}

/* n bytes as "512", "4K", "2M", "1G" (n a power of two). */
static void pow2_str(uint64_t n, char *buf, size_t len)
{
	static const char unit[] = " KMGTPE";
	int u = 0;

	while (n >= 1024 && u < 6) {
		n >>= 10;
		u++;
	}
	if (u)
		snprintf(buf, len, "%llu%c", (unsigned long long)n, unit[u]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
}

void model_heap_size_class(uint64_t size, char *name, size_t len)
{
	uint64_t hi = 1;
	char a[16], z[16];

	while (hi < size && hi < (UINT64_C(1) << 62))
		hi <<= 1;
	if (hi <= 16) {
		snprintf(name, len, "<Heap: 1-16 bytes>");
		return;
	}
	pow2_str(hi / 2, a, sizeof(a));
	pow2_str(hi, z, sizeof(z));
	snprintf(name, len, "<Heap: %s-%s bytes>", a, z);
}

bool model_heap_block_name(struct build *b, struct proc_ctx *c, const struct model_heap_blocks *bl,
			   uint64_t addr, uint64_t t, char *name, size_t len, uint64_t *size)
{
	const struct model_heap_block *k = model_heap_block_at(bl, addr, t);
	uint64_t pcs[1];
	uint16_t flags;
	struct frame fr;

	if (!k)
		return false;
	if (!k->stack_id) {
		model_heap_size_class(k->size, name, len);     /* --data without -H */
	} else if (exp_stack_frames(c->p, k->stack_id, pcs, 1, &flags) == 1) {
		model_frame_resolve(b, c, pcs[0], true, k->from_ns, &fr);
		snprintf(name, len, "<Heap: %s>", b->m->funcs[fr.func].name);
	} else {
		snprintf(name, len, "<Heap>");
	}
	*size = k->size;
	return true;
}

int model_heap_blocks_of(const struct exp_proc *p, bool with_heap, struct model_heap_blocks *out)
{
	size_t nheap = with_heap ? p->nheap : 0;
	struct model_block_event *ev = malloc((nheap + p->ndblocks + 1) * sizeof(*ev));

	if (!ev)
		return -1;
	for (size_t i = 0; i < nheap; i++) {
		const struct exp_heap *h = &p->heap[i];
		bool frees = h->op == EXP_HEAP_FREE || h->op == EXP_HEAP_DELETE || h->op == EXP_HEAP_REALLOC;
		bool allocates = h->op != EXP_HEAP_FREE && h->op != EXP_HEAP_DELETE;
		ev[i] = (struct model_block_event){ h->time_ns,
						    frees ? (h->op == EXP_HEAP_REALLOC ? h->old_addr : h->addr) : 0,
						    allocates ? h->addr : 0, allocates ? h->size : 0, h->stack_id };
	}
	for (size_t i = 0; i < p->ndblocks; i++) {
		const struct exp_data_block *d = &p->dblocks[i];
		ev[nheap + i] = (struct model_block_event){ d->time_ns, d->addr, d->size ? d->addr : 0, d->size,
							    d->stack_id };
	}
	int rc = model_heap_blocks_replay(ev, nheap + p->ndblocks, out);
	free(ev);
	return rc;
}

void model_heap_blocks_free(struct model_heap_blocks *bl)
{
	free(bl->v);
	bl->v = NULL;
	bl->n = 0;
}
