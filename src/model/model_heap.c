/* SPDX-License-Identifier: MIT
 *
 * model_heap.c — heap.bytes and heap.count by the stack that allocated,
 * heap.leak for the blocks never freed, and the peak of live bytes with the
 * allocation that reached it.  Since format 5 (exp_records.h) the collector
 * keeps them in tables: sums by thread and stack (at the time of the stack's
 * first allocation, which a --time window tests), the blocks live at the end,
 * the peak.  Before, and for Java objects, heap events are replayed in time
 * order (the file order is not: see exp_records.h, EXP_REC_MIRROR).  Called
 * once per process by model_build.c.
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

/* Charge the blocks still live at the end to the entries that allocated
 * them.  0, or -1 if out of memory. */
static int charge_leaks(struct model *m, uint32_t proc, const struct model_map *live,
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
		if (model_entry_add_value(m, e, MODEL_HEAP_LEAK, *sz))
			return -1;
		m->procs[proc].v[MODEL_HEAP_LEAK] += *sz;
		m->total[MODEL_HEAP_LEAK] += *sz;
		m->present |= 1u << MODEL_HEAP_LEAK;
	}
	return 0;
}

/* Each stripe's complete live-block table of the highest generation. */
static int best_generations(const struct exp_proc *p, struct model_map *best)
{
	for (size_t i = 0; i < p->nheap_live; i++) {
		const struct exp_heap_live_ev *l = &p->heap_live[i];
		if (!l->complete)
			continue;
		bool fresh;
		uint64_t *g = model_map_put(best, (uint64_t)l->stripe + 1, l->gen, &fresh);
		if (!g)
			return -1;
		if (l->gen > *g)
			*g = l->gen;
	}
	return 0;
}

/* Format 5's tables (exp_records.h HEAP_SUMS, HEAP_LIVE, HEAP_STATE). */
static int heap_tables(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	struct model_map first = { 0 };     /* stack id + 1 -> time of its first allocation */
	struct model_map best = { 0 };      /* stripe + 1 -> generation */
	struct model_map seen = { 0 };      /* address -> 1 */
	int rc = 0;

	for (size_t i = 0; i < p->nheap_sums && !rc; i++) {
		const struct exp_heap_sum_ev *s = &p->heap_sums[i];
		bool fresh;
		uint64_t *t = model_map_put(&first, (uint64_t)s->stack_id + 1, s->first_ns, &fresh);
		if (!t)
			rc = -1;
		else if (s->first_ns < *t)
			*t = s->first_ns;
		if (rc || !model_keep(c, o, s->tid, s->first_ns))
			continue;
		if (model_add(b, c, o, s->tid, s->first_ns, s->stack_id, MODEL_HEAP_BYTES, s->bytes, NULL) ||
		    model_add(b, c, o, s->tid, s->first_ns, s->stack_id, MODEL_HEAP_COUNT, s->count, NULL))
			rc = -1;
	}
	if (!rc)
		rc = best_generations(p, &best);
	for (size_t i = 0; i < p->nheap_live && !rc; i++) {
		const struct exp_heap_live_ev *l = &p->heap_live[i];
		uint64_t *g = model_map_get(&best, (uint64_t)l->stripe + 1);
		if (!l->complete || !g || *g != l->gen || l->addr == UINT64_MAX)
			continue;
		bool fresh;
		if (!model_map_put(&seen, l->addr, 1, &fresh)) {
			rc = -1;
			break;
		}
		uint64_t *t = model_map_get(&first, (uint64_t)l->stack_id + 1);
		uint64_t when = t ? *t : p->start_ns;
		if (!fresh || !model_keep(c, o, l->tid, when))
			continue;
		if (model_add(b, c, o, l->tid, when, l->stack_id, MODEL_HEAP_LEAK, l->size, NULL))
			rc = -1;
	}
	const struct exp_heap_state *st = &p->heap_state;
	if (!rc && p->has_heap_state) {
		m->heap_unpaired.frees += st->unpaired_frees;
		m->heap_unpaired.reuses += st->reuses;
		m->heap_unpaired.untracked += st->untracked;
		long e;
		if (st->peak_bytes > m->heap_peak.bytes && model_keep(c, o, st->peak_tid, st->peak_time_ns)) {
			if (model_add(b, c, o, st->peak_tid, st->peak_time_ns, st->peak_stack, MODEL_HEAP_BYTES, 0, &e))
				rc = -1;
			else
				m->heap_peak = (struct model_heap_peak){ st->peak_bytes, st->peak_time_ns,
									 (uint32_t)e + 1 };
		}
	}
	if (p->nheap_sums)
		m->present |= 1u << MODEL_HEAP_LEAK;
	model_map_free(&first);
	model_map_free(&best);
	model_map_free(&seen);
	return rc;
}

int model_heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	if (heap_tables(b, c, o))
		return -1;

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
	if (charge_leaks(m, c->index, &live, &live_size))
		rc = -1;
	if (p->nheap)
		m->present |= 1u << MODEL_HEAP_LEAK;
	model_map_free(&live);
	model_map_free(&live_size);
	free(order);
	return rc;
}
