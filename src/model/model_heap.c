/* SPDX-License-Identifier: MIT
 *
 * model_heap.c — heap events replayed in time order (the file order is not:
 * see exp_records.h, EXP_REC_MIRROR): heap.bytes and heap.count by the stack
 * that allocated, heap.leak for the blocks never freed, and the peak of live
 * bytes with the allocation that reached it.  Called once per process by
 * model_build.c.
 */
#include <stdlib.h>

#include "model/model_build_int.h"

static const struct exp_proc *heap_sort_proc;

static int cmp_heap_time(const void *a, const void *b)
{
	const struct exp_heap *x = &heap_sort_proc->heap[*(const uint32_t *)a];
	const struct exp_heap *y = &heap_sort_proc->heap[*(const uint32_t *)b];

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Charge the blocks still live at the end to the entries that allocated them. */
static void charge_leaks(struct model *m, uint32_t proc, const struct model_map *live,
			 const struct model_map *live_size)
{
	for (size_t j = 0; j < live->cap; j++) {
		uint64_t addr = live->slots[j].key;
		if (addr == 0 || addr == UINT64_MAX)
			continue;
		uint64_t *sz = model_map_get(live_size, addr);
		struct model_entry *e = &m->entries[live->slots[j].val - 1];
		if (!sz || (e->flags & MODEL_ENTRY_FILTERED))
			continue;
		e->v[MODEL_HEAP_LEAK] += *sz;
		m->procs[proc].v[MODEL_HEAP_LEAK] += *sz;
		m->total[MODEL_HEAP_LEAK] += *sz;
		m->present |= 1u << MODEL_HEAP_LEAK;
	}
}

int model_heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	struct model_map live = { 0 };      /* address -> entry + 1 */
	struct model_map live_size = { 0 }; /* address -> size */
	uint64_t live_bytes = 0;
	uint32_t *order = malloc(p->nheap * sizeof(*order));
	int rc = 0;

	if (!order)
		return p->nheap ? -1 : 0;
	for (uint32_t i = 0; i < p->nheap; i++)
		order[i] = i;
	heap_sort_proc = p;
	qsort(order, p->nheap, sizeof(*order), cmp_heap_time);
	for (size_t i = 0; i < p->nheap && !rc; i++) {
		const struct exp_heap *h = &p->heap[order[i]];
		if (!model_keep(c, o, h->tid, h->time_ns))
			continue;
		uint64_t freed = 0;
		if (h->op == EXP_HEAP_FREE || h->op == EXP_HEAP_DELETE || h->op == EXP_HEAP_REALLOC) {
			uint64_t old = h->op == EXP_HEAP_REALLOC ? h->old_addr : h->addr;
			uint64_t *sz = old ? model_map_get(&live_size, old) : NULL;
			if (sz) {
				freed = *sz;
				live_bytes -= freed;
				model_map_del(&live_size, old);
				model_map_del(&live, old);
			} else if (old) {
				m->heap_unpaired.frees++;
			}
		}
		if (h->op == EXP_HEAP_FREE || h->op == EXP_HEAP_DELETE || !h->addr)
			continue;
		long e;
		if (model_add(b, c, o, h->tid, h->time_ns, h->stack_id, MODEL_HEAP_BYTES, h->size, &e) ||
		    model_add(b, c, o, h->tid, h->time_ns, h->stack_id, MODEL_HEAP_COUNT, 1, NULL)) {
			rc = -1;
			break;
		}
		if (h->addr == UINT64_MAX)
			continue;          /* no allocator returns it (a corrupt record): not tracked */
		bool fresh;
		uint64_t *size = model_map_put(&live_size, h->addr, h->size, &fresh);
		uint64_t *entry = model_map_put(&live, h->addr, 0, NULL);
		if (!size || !entry) {     /* out of memory */
			rc = -1;
			break;
		}
		if (!fresh) {
			live_bytes -= *size;   /* its release was not seen */
			m->heap_unpaired.reuses++;
		}
		*size = h->size;
		*entry = (uint64_t)e + 1;
		live_bytes += h->size;
		if (live_bytes > m->heap_peak.bytes) {
			m->heap_peak.bytes = live_bytes;
			m->heap_peak.time_ns = h->time_ns;
			m->heap_peak.entry = (uint32_t)e + 1;
		}
	}
	charge_leaks(m, c->index, &live, &live_size);
	if (p->nheap)
		m->present |= 1u << MODEL_HEAP_LEAK;
	model_map_free(&live);
	model_map_free(&live_size);
	free(order);
	return rc;
}
