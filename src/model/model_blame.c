/* SPDX-License-Identifier: MIT
 *
 * model_blame.c — lock-holder blame (`tally record -s`, tracers/
 * sync_holders.c): each SYNC_HELD record says which thread held the object
 * of a wait, from which stack it took it, and for how much of the wait.  It
 * is joined to its wait (the SYNC record of the same thread, grant time and
 * object) for the waiting stack, and summed by (process, waiting stack,
 * object, holder's stack, holder thread, reason unknown) into
 * model.blames, which report_blame.c groups by function and line.
 * A holder record whose wait is not in the experiment (its block lost) is
 * counted in model.blame_unmatched, not shown.  Called by model_build.c
 * once per process, after model_sync.c.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

static uint64_t wait_key(uint32_t tid, uint64_t time_ns, uint64_t object)
{
	return model_hash64(model_hash64((uint64_t)tid << 32 ^ time_ns) ^ object) | 1;
}

/* The blame row of these fields, made on first use; its index, or -1 if
 * out of memory. */
static long blame_of(struct build *b, const struct model_blame *want)
{
	struct model *m = b->m;
	uint64_t key = model_hash64(model_hash64(model_hash64((uint64_t)want->proc << 32 ^ want->waiter_entry) ^
						 want->addr) ^
				    ((uint64_t)want->holder_entry << 32 ^ want->holder_tid) ^
				    (uint64_t)want->why << 60) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->blame_of, key);
		if (!v)
			break;
		const struct model_blame *x = &m->blames[*v - 1];
		if (x->proc == want->proc && x->waiter_entry == want->waiter_entry && x->addr == want->addr &&
		    x->holder_entry == want->holder_entry && x->holder_tid == want->holder_tid &&
		    x->why == want->why && x->kind == want->kind)
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&m->blames, &b->cap_blames, m->nblames, sizeof(*m->blames)))
		return -1;
	m->blames[m->nblames] = *want;
	m->blames[m->nblames].held_ns = 0;
	m->blames[m->nblames].waits = 0;
	if (!model_map_put(&b->blame_of, key, m->nblames + 1, NULL))
		return -1;
	return (long)m->nblames++;
}

int model_build_blame(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model_map waits = { 0 };
	int rc = 0;

	if (!p->nheld)
		return 0;
	for (size_t i = 0; i < p->nsync; i++)
		if (!model_map_put(&waits, wait_key(p->sync[i].tid, p->sync[i].time_ns, p->sync[i].object), i + 1,
				   NULL)) {
			model_map_free(&waits);
			return -1;
		}
	for (size_t i = 0; i < p->nheld && !rc; i++) {
		const struct exp_sync_held *h = &p->held[i];
		uint64_t *v = model_map_get(&waits, wait_key(h->tid, h->time_ns, h->object));
		const struct exp_sync *s = v ? &p->sync[*v - 1] : NULL;
		if (!s || s->tid != h->tid || s->time_ns != h->time_ns || s->object != h->object) {
			b->m->blame_unmatched++;
			continue;
		}
		if (!model_keep(c, o, s->tid, s->time_ns))
			continue;
		long we = model_entry_for(b, c, s->stack_id, s->time_ns, o);
		if (we < 0) {
			rc = -1;
			break;
		}
		if (b->m->entries[we].flags & MODEL_ENTRY_FILTERED)
			continue;
		long he = -1;
		if (h->why == EXP_HELD_KNOWN && h->stack_id && (he = model_entry_for(b, c, h->stack_id, h->time_ns, o)) < 0) {
			rc = -1;
			break;
		}
		const struct model_entry *hx = he >= 0 ? &b->m->entries[he] : NULL;
		struct model_blame want = { .proc = c->index, .kind = s->op, .addr = h->object,
					    .holder_func = hx && hx->n ? hx->funcs[hx->n - 1] : 0,
					    .holder_funcs = hx && hx->n ? hx->funcs : NULL,
					    .holder_n = hx ? hx->n : 0,
					    .holder_addr = hx && hx->n ? hx->addrs[hx->n - 1] : 0,
					    .waiter_entry = (uint32_t)we,
					    .holder_entry = he >= 0 ? (uint32_t)he : MODEL_BLAME_UNKNOWN,
					    .holder_tid = h->why == EXP_HELD_KNOWN ? h->holder_tid : 0,
					    .why = h->why };
		long k = blame_of(b, &want);
		if (k < 0) {
			rc = -1;
			break;
		}
		b->m->blames[k].held_ns += h->held_ns;
		b->m->blames[k].waits++;
	}
	model_map_free(&waits);
	return rc;
}
