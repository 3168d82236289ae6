/* SPDX-License-Identifier: MIT
 *
 * model_omp.c — the OpenMP user view of a worker thread's events, by time
 * (model_build_int.h lists the neighbours; docs/structure.md the rules).
 *
 * A runtime worker's stack starts in the runtime (libgomp's or libomp's
 * thread start), with no trace of who opened the parallel region.  The
 * threads that open regions (their stacks hold a body or end in the runtime
 * under user code) are sampled too, so a worker's event at time t is placed
 * under the region open at t, as seen in the opening thread's sample
 * nearest in time (for a body, the nearest that runs the same body):
 *  - a worker's stack with a body: the opener's frames down to the caller of
 *    its body, then the worker's frames from its body on (the Sun analyzer's imputed
 *    call from the region's function to the body, on every thread);
 *  - a worker's stack in the runtime only, through an entry point that names
 *    its wait (GOMP_barrier, tail-called by a body): the opener's frames,
 *    then that <OMP-barrier> or <OMP-lock>;
 *  - a worker's stack in the runtime only, while a region is open: the
 *    opener's frames, then <OMP-barrier> (done with its share, the worker
 *    waits for the region to end);
 *  - the same while no region is open: <OMP-idle>, under <Total>.
 * Without any opener's sample, a body is placed under its parent alone
 * (model_struct_impute) and a runtime-only stack is <OMP-idle>.
 *
 * Two passes per process (model_build.c): every sample is noted first, then
 * events are added and worker entries placed.  Placed stacks are entries
 * made by model_entry_of_frames, cached per (worker entry, opener's entry).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

struct omp_sample {
	uint64_t t;
	uint32_t entry;
	uint32_t tid;
};

int model_omp_note(struct build *b, struct proc_ctx *c, uint32_t tid, uint64_t t, long e)
{
	uint32_t kind = b->m->entries[e].omp;

	if (kind == MODEL_OMP_WORKER || kind == MODEL_OMP_PLACED)
		return 0;
	if (exp_grow(&c->timeline, &c->cap_timeline, c->ntimeline, sizeof(*c->timeline)))
		return -1;
	c->timeline[c->ntimeline++] = (struct omp_sample){ t, (uint32_t)e, tid };
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct omp_sample *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Keep only the samples of threads that opened a region at least once,
 * sorted by time. */
void model_omp_ready(struct build *b, struct proc_ctx *c)
{
	uint32_t *openers = malloc((c->ntimeline + 1) * sizeof(*openers));
	size_t nopen = 0, k = 0;

	if (!openers) {
		c->ntimeline = 0;           /* placing degrades to the fallback */
		return;
	}
	for (size_t i = 0; i < c->ntimeline; i++)
		if (b->m->entries[c->timeline[i].entry].omp == MODEL_OMP_IN_REGION)
			openers[nopen++] = c->timeline[i].tid;
	if (nopen)
		qsort(openers, nopen, sizeof(*openers), cmp_u32);
	for (size_t i = 0; i < c->ntimeline; i++) {
		uint32_t tid = c->timeline[i].tid;
		if (bsearch(&tid, openers, nopen, sizeof(*openers), cmp_u32))
			c->timeline[k++] = c->timeline[i];
	}
	c->ntimeline = k;
	free(openers);
	if (c->ntimeline)
		qsort(c->timeline, c->ntimeline, sizeof(*c->timeline), cmp_sample);
}

static bool has_func(const struct model_entry *e, uint32_t f)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (e->funcs[i] == f)
			return true;
	return false;
}

/* Index of the noted sample nearest to t (the timeline is not empty) that
 * is inside a region and runs `body` (with `in_region`; body 0: any body),
 * or just the nearest one; -1 if none is. */
static long nearest(const struct build *b, const struct proc_ctx *c, uint64_t t, bool in_region,
		    uint32_t body)
{
	size_t lo = 0, hi = c->ntimeline;

	while (lo < hi) {                  /* first sample after t */
		size_t mid = (lo + hi) / 2;
		if (c->timeline[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	long before = (long)lo - 1, after = (long)lo;
	for (;;) {
		bool has_b = before >= 0, has_a = after < (long)c->ntimeline;
		if (!has_b && !has_a)
			return -1;
		long pick = !has_a ? before : !has_b ? after :
			    t - c->timeline[before].t <= c->timeline[after].t - t ? before : after;
		const struct model_entry *e = &b->m->entries[c->timeline[pick].entry];
		if (!in_region || (e->omp == MODEL_OMP_IN_REGION && (!body || has_func(e, body))))
			return pick;
		if (pick == before)
			before--;
		else
			after++;
	}
}

/* Frames of the opener's entry before its first body or <OMP-*> function. */
static uint32_t opener_prefix(const struct build *b, const struct model_entry *op)
{
	uint32_t p = 0;

	while (p < op->n && !(b->m->funcs[op->funcs[p]].flags & MODEL_FUNC_OMP_BODY)) {
		bool pseudo = false;
		for (int i = 0; i < MODEL_OMP_FN_COUNT; i++)
			pseudo |= op->funcs[p] == b->omp_fn[i];
		if (pseudo)
			break;
		p++;
	}
	return p;
}

/* The placed entry: opener's prefix (of entry `op`, or none), then the
 * worker's frames, or `pseudo` when the worker has none. */
static long place(struct build *b, struct proc_ctx *c, long e, long op, uint32_t pseudo)
{
	uint64_t key = model_hash64(((uint64_t)e << 32) | (uint64_t)(op + 1)) | 1;
	uint64_t *v = model_map_get(&c->derived, key);

	if (v)
		return (long)*v - 1;
	const struct model_entry *w = &b->m->entries[e];
	uint32_t np = op >= 0 ? opener_prefix(b, &b->m->entries[op]) : 0;
	uint32_t cap = 2 * (np + w->n) + 4, n = np;
	uint32_t *funcs = malloc(cap * sizeof(*funcs));
	uint64_t *addrs = malloc(cap * sizeof(*addrs));
	long r = -1;

	if (funcs && addrs) {
		if (np) {
			memcpy(funcs, b->m->entries[op].funcs, np * sizeof(*funcs));
			memcpy(addrs, b->m->entries[op].addrs, np * sizeof(*addrs));
		}
		if (w->n) {
			memcpy(funcs + n, w->funcs, w->n * sizeof(*funcs));
			memcpy(addrs + n, w->addrs, w->n * sizeof(*addrs));
			n += w->n;
			n = model_struct_impute(b, funcs, addrs, n, np, cap);
		} else {
			funcs[n] = pseudo;
			addrs[n++] = 0;
		}
		r = model_entry_of_frames(b, c, funcs, addrs, n, MODEL_OMP_PLACED);
	}
	free(funcs);
	free(addrs);
	if (r >= 0 && !model_map_put(&c->derived, key, (uint64_t)r + 1, NULL))
		return -1;
	return r;
}

long model_omp_place(struct build *b, struct proc_ctx *c, long e, uint64_t t)
{
	if (e < 0 || b->m->entries[e].omp != MODEL_OMP_WORKER)
		return e;
	/* A worker's body is placed under a sample running the same body: the
	 * opener may sleep in the region's last barrier, with no samples. */
	const struct model_entry *w = &b->m->entries[e];
	bool has_body = w->n > 0;
	bool named_wait = has_body && (b->m->funcs[w->funcs[0]].flags & MODEL_FUNC_ARTIFICIAL);
	long i = c->ntimeline ? nearest(b, c, t, has_body, has_body && !named_wait ? w->funcs[0] : 0) : -1;
	if (i < 0 && has_body && c->ntimeline)
		i = nearest(b, c, t, true, 0);
	long op = i >= 0 ? (long)c->timeline[i].entry : -1;

	if (op >= 0 && b->m->entries[op].omp != MODEL_OMP_IN_REGION)
		op = -1;                    /* the opener runs serial code: idle */
	uint32_t pseudo = op >= 0 ? b->omp_fn[MODEL_OMP_FN_BARRIER] : b->omp_fn[MODEL_OMP_FN_IDLE];
	return place(b, c, e, op, pseudo);
}

void model_omp_free(struct proc_ctx *c)
{
	free(c->timeline);
	c->timeline = NULL;
	c->ntimeline = c->cap_timeline = 0;
	model_map_free(&c->derived);
	model_map_free(&c->entry_by_funcs);
}
