/* SPDX-License-Identifier: MIT
 *
 * exp_thread_lives.c — threads.dat's records sorted into threads' lives
 * (see exp_thread_lives.h).
 *
 * Before, every record of an id went to one thread: two raw threads that
 * had one id one after the other (the collector writes a START and an END
 * for each, col_rawthread.c) were one row with every life's samples
 * against the last life's CPU.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_cost.h"
#include "format/exp_read_code.h"
#include "format/exp_records.h"
#include "format/exp_thread_lives.h"

struct exp_thread_rec {
	uint32_t type, len;
	void *rec;
};

int exp_thread_lives_add(struct exp_thread_lives *tl, uint32_t type, const void *rec, uint32_t len)
{
	void *copy = malloc(len ? len : 1);

	if (!copy || exp_grow(&tl->recs, &tl->cap, tl->n, sizeof(*tl->recs))) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, rec, len);
	tl->recs[tl->n++] = (struct exp_thread_rec){ type, len, copy };
	return 0;
}

/* Placing one process's records: the lives and their order, grown together. */
struct placing {
	struct exp_proc *p;
	size_t *cap;                    /* p->threads' room */
	size_t order_cap;               /* p->thread_order's room */
	size_t ended;                   /* the life of the last END read, SIZE_MAX: none */
	size_t *end_life;               /* each END record's life, by its place in the file */
	uint64_t *seen;                 /* each life's earliest record time (START lost) */
	size_t seen_cap;
};

/* Does life a come before (tid, start_ns, index) key b in p->thread_order? */
static bool before(const struct exp_proc *p, uint32_t a, uint32_t tid, uint64_t start, uint32_t index)
{
	const struct exp_thread_ev *t = &p->threads[a];

	if (t->tid != tid)
		return t->tid < tid;
	if (t->start_ns != start)
		return t->start_ns < start;
	return a < index;
}

/* The first position in p->thread_order not before the key. */
static size_t lower_bound(const struct exp_proc *p, uint32_t tid, uint64_t start, uint32_t index)
{
	size_t lo = 0, hi = p->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(p, p->thread_order[mid], tid, start, index))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Without an order (a model's test fixture): every life looked at. */
static const struct exp_thread_ev *life_by_scan(const struct exp_proc *p, uint32_t tid, uint64_t at)
{
	const struct exp_thread_ev *best = NULL, *first = NULL;

	for (size_t i = 0; p && i < p->nthreads; i++) {
		const struct exp_thread_ev *t = &p->threads[i];
		if (t->tid != tid)
			continue;
		if (!first || t->start_ns < first->start_ns)
			first = t;
		if (t->start_ns <= at && (!best || t->start_ns >= best->start_ns))
			best = t;
	}
	return best ? best : first;
}

const struct exp_thread_ev *exp_thread_life(const struct exp_proc *p, uint32_t tid, uint64_t at)
{
	if (!p || !p->thread_order)
		return life_by_scan(p, tid, at);
	size_t first = lower_bound(p, tid, 0, 0);
	if (first == p->nthreads || p->threads[p->thread_order[first]].tid != tid)
		return NULL;
	/* The last life of tid started by `at`: the one before the first
	 * started after it (or of a greater id). */
	size_t after;
	if (at < UINT64_MAX)
		after = lower_bound(p, tid, at + 1, 0);
	else
		after = tid < UINT32_MAX ? lower_bound(p, tid + 1, 0, 0) : p->nthreads;
	const struct exp_thread_ev *t = &p->threads[p->thread_order[after > first ? after - 1 : first]];
	/* After its end, before a life whose START was lost: that life's (its
	 * start is the earliest time it was seen, later than its true one). */
	if (t->end_ns && t->end_ns < at && t->start_ns <= at && after < p->nthreads) {
		const struct exp_thread_ev *next = &p->threads[p->thread_order[after]];
		if (next->tid == tid && next->start_lost)
			return next;
	}
	return t;
}

/* A new life of tid at the end of p->threads (not in its order); NULL
 * without memory. */
static struct exp_thread_ev *append_life(struct placing *pl, uint32_t tid)
{
	struct exp_proc *p = pl->p;

	if (exp_grow(&p->threads, pl->cap, p->nthreads, sizeof(*p->threads)) ||
	    exp_grow(&p->thread_order, &pl->order_cap, p->nthreads, sizeof(*p->thread_order)) ||
	    exp_grow(&pl->seen, &pl->seen_cap, p->nthreads, sizeof(*pl->seen)))
		return NULL;
	pl->seen[p->nthreads] = UINT64_MAX;
	struct exp_thread_ev *t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* A new life of tid whose START was lost, in p's order too, started for
 * now just after the life before it (`from`: its end + 1, or 0): the
 * records up to its END are its own by their time.  Its start becomes the
 * earliest of their times once all are placed (lost_starts_seen).  NULL
 * without memory. */
static struct exp_thread_ev *new_life(struct placing *pl, uint32_t tid, uint64_t from)
{
	struct exp_proc *p = pl->p;
	size_t n = p->nthreads;
	struct exp_thread_ev *t = append_life(pl, tid);

	if (!t)
		return NULL;
	t->start_ns = from;
	t->start_lost = true;
	p->nthreads = n;                /* the search sees the lives before it */
	size_t at = lower_bound(p, tid, from, (uint32_t)n);
	p->nthreads = n + 1;
	memmove(&p->thread_order[at + 1], &p->thread_order[at], (n - at) * sizeof(*p->thread_order));
	p->thread_order[at] = (uint32_t)n;
	return t;
}

/* Tid's life at `at` in p, a new one if it has none; NULL without memory. */
static struct exp_thread_ev *life_at(struct placing *pl, uint32_t tid, uint64_t at)
{
	const struct exp_thread_ev *t = exp_thread_life(pl->p, tid, at);

	return t ? &pl->p->threads[t - pl->p->threads] : new_life(pl, tid, 0);
}

/* The life of an END of tid at `at`, its ENDs placed in time order: the
 * life started by then with no END yet (or this one, a copy's); else one
 * whose START was lost, begun after the life before it.  NULL without
 * memory. */
static struct exp_thread_ev *end_life(struct placing *pl, uint32_t tid, uint64_t at)
{
	struct exp_thread_ev *t = life_at(pl, tid, at);

	if (!t || (t->start_ns <= at && (!t->end_ns || t->end_ns == at)))
		return t;
	bool after = t->start_ns <= at;  /* else before tid's first START */
	return new_life(pl, tid, after ? t->end_ns + 1 : 0);
}

/* The life a SCHED or SWITCHES record of tid at `at` closes: both are
 * written at a thread's end, after its END, so the life whose END came
 * last by then and has none of that kind yet (`sched`: SCHED, else
 * SWITCHES); else the life at its time. */
static struct exp_thread_ev *closing_life(struct placing *pl, uint32_t tid, uint64_t at, bool sched)
{
	struct exp_proc *p = pl->p;
	struct exp_thread_ev *best = NULL;

	for (size_t k = lower_bound(p, tid, 0, 0); k < p->nthreads; k++) {
		struct exp_thread_ev *t = &p->threads[p->thread_order[k]];
		if (t->tid != tid)
			break;
		if (t->end_ns && t->end_ns <= at && !(sched ? t->has_sched : t->has_switches) &&
		    (!best || t->end_ns >= best->end_ns))
			best = t;
	}
	return best ? best : life_at(pl, tid, at);
}

static uint32_t rec_tid(const struct exp_thread_rec *r)
{
	uint32_t tid;

	memcpy(&tid, (const char *)r->rec + 4, 4);
	return tid;
}

/* A timed record's time (its 8 bytes after word and tid). */
static uint64_t rec_time(const struct exp_thread_rec *r)
{
	uint64_t at;

	memcpy(&at, (const char *)r->rec + 8, 8);
	return at;
}

static void fill_start(struct exp_thread_ev *t, const struct exp_thread_rec *r)
{
	struct exp_thread_start ts;

	memcpy(&ts, r->rec, sizeof(ts));
	t->start_ns = ts.time_ns;
	t->start_routine = ts.start_routine;
	t->creator_tid = ts.creator_tid;
	if (!t->name_ns) {              /* a THREAD_NAME record renamed it later */
		memcpy(t->name, ts.name, 16);
		t->name[16] = 0;
	}
}

/* A START (or a life) by its id, time and place: sorted, copies of one
 * START are neighbours, the first in the file first. */
struct start_key {
	uint32_t tid;
	uint64_t at;
	size_t index;                   /* in the records (or the lives) */
};

static int cmp_start_key(const void *a, const void *b)
{
	const struct start_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* One life's STARTs: keys[begin..end) of the sorted ones; `first`: the
 * first one's place in the file. */
struct start_group {
	size_t first, begin, end;
};

static int cmp_group_first(const void *a, const void *b)
{
	size_t x = ((const struct start_group *)a)->first, y = ((const struct start_group *)b)->first;

	return (x > y) - (x < y);
}

/* A life per START, its copies (the same id and time) the same life, in
 * the order of their first copies in the file; then p->thread_order.
 * Sorting, not a search per START: 32,000 threads took 1 s of scans. */
static int place_starts(struct placing *pl, const struct exp_thread_lives *tl)
{
	struct exp_proc *p = pl->p;
	size_t n = 0;
	int rc = -ENOMEM;

	for (size_t i = 0; i < tl->n; i++)
		n += tl->recs[i].type == EXP_REC_THREAD_START;
	struct start_key *keys = malloc((n + p->nthreads + 1) * sizeof(*keys));
	struct start_group *groups = malloc((n + 1) * sizeof(*groups));
	if (!keys || !groups)
		goto out;
	n = 0;
	for (size_t i = 0; i < tl->n; i++)
		if (tl->recs[i].type == EXP_REC_THREAD_START)
			keys[n++] = (struct start_key){ rec_tid(&tl->recs[i]), rec_time(&tl->recs[i]), i };
	qsort(keys, n, sizeof(*keys), cmp_start_key);
	size_t ngroups = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || keys[i].tid != keys[i - 1].tid || keys[i].at != keys[i - 1].at)
			groups[ngroups++] = (struct start_group){ keys[i].index, i, i + 1 };
		else
			groups[ngroups - 1].end = i + 1;
	qsort(groups, ngroups, sizeof(*groups), cmp_group_first);
	for (size_t g = 0; g < ngroups; g++) {
		struct exp_thread_ev *t = append_life(pl, keys[groups[g].begin].tid);
		if (!t)
			goto out;
		for (size_t k = groups[g].begin; k < groups[g].end; k++)
			fill_start(t, &tl->recs[keys[k].index]);
	}
	for (size_t i = 0; i < p->nthreads; i++)
		keys[i] = (struct start_key){ p->threads[i].tid, p->threads[i].start_ns, i };
	qsort(keys, p->nthreads, sizeof(*keys), cmp_start_key);
	if (exp_grow(&p->thread_order, &pl->order_cap, p->nthreads, sizeof(*p->thread_order)))
		goto out;
	for (size_t i = 0; i < p->nthreads; i++)
		p->thread_order[i] = (uint32_t)keys[i].index;
	rc = 0;
out:
	free(keys);
	free(groups);
	return rc;
}

static void fill_cost(struct exp_thread_ev *t, const struct exp_thread_rec *r)
{
	struct exp_thread_cost tc;

	memcpy(&tc, r->rec, sizeof(tc));
	t->collector_ns += tc.collector_ns;
	t->collector_after_end_ns += tc.after_end_ns;
	t->handlers += tc.handlers;
	if (tc.max_ns > t->handler_max_ns)
		t->handler_max_ns = tc.max_ns;
	const uint8_t *counts = (const uint8_t *)r->rec + sizeof(tc);
	for (uint32_t i = 0; i < tc.nbuckets; i++) {
		uint32_t c;
		memcpy(&c, counts + 4 * i, 4);
		t->handler_hist[tc.first_bucket + i] += c;
	}
}

/* The life of tid whose COST r is when it does not follow its own END
 * (a block's end between them): the first by start with an END and no
 * COST yet, else the last. */
static struct exp_thread_ev *cost_life(struct placing *pl, uint32_t tid)
{
	struct exp_proc *p = pl->p;

	for (size_t k = lower_bound(p, tid, 0, 0); k < p->nthreads; k++) {
		struct exp_thread_ev *t = &p->threads[p->thread_order[k]];
		if (t->tid != tid)
			break;
		if (t->end_ns && !t->handler_hist)
			return t;
	}
	return life_at(pl, tid, UINT64_MAX);
}

/* Every END into its life (end_life), in time order per id, before the
 * rest: an END after the end of the life it falls in has lost its START,
 * and the lives those make are where the records up to it go.  -ENOMEM
 * without memory. */
static int place_ends(struct placing *pl, const struct exp_thread_lives *tl)
{
	struct exp_proc *p = pl->p;
	size_t n = 0;

	pl->end_life = malloc((tl->n + 1) * sizeof(*pl->end_life));
	struct start_key *keys = malloc((tl->n + 1) * sizeof(*keys));
	if (!pl->end_life || !keys) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->n; i++)
		if (tl->recs[i].type == EXP_REC_THREAD_END)
			keys[n++] = (struct start_key){ rec_tid(&tl->recs[i]), rec_time(&tl->recs[i]), i };
	qsort(keys, n, sizeof(*keys), cmp_start_key);
	for (size_t k = 0; k < n; k++) {
		struct exp_thread_ev *t = end_life(pl, keys[k].tid, keys[k].at);
		if (!t) {
			free(keys);
			return -ENOMEM;
		}
		struct exp_thread_end te;
		memcpy(&te, tl->recs[keys[k].index].rec, sizeof(te));
		t->end_ns = te.time_ns;
		t->cpu_ns = te.cpu_ns;
		t->samples = te.samples;
		size_t life = (size_t)(t - p->threads);
		pl->end_life[keys[k].index] = life;
		if (te.time_ns < pl->seen[life])
			pl->seen[life] = te.time_ns;
	}
	free(keys);
	return 0;
}

/* Record time `at` of tid, begun by `from` (a sample's CPU before it, a
 * wait's start): a lost life's evidence of being alive by then. */
static void seen_by(struct placing *pl, uint32_t tid, uint64_t at, uint64_t from)
{
	const struct exp_thread_ev *t = exp_thread_life(pl->p, tid, at);

	if (t && t->start_lost && from < pl->seen[t - pl->p->threads])
		pl->seen[t - pl->p->threads] = from;
}

/* The lives whose START was lost start at the earliest time seen of their
 * own: END, NAME, and the samples (less their CPU), waits (from their
 * request) and I/O calls keyed to them, but not before the life ahead of
 * them ended (the start new_life gave them).  Before, a life with no NAME
 * started at its END: the critical path cut it and its lifetime was 0.
 * p's order is sorted again.  -ENOMEM without memory. */
static int lost_starts_seen(struct placing *pl)
{
	struct exp_proc *p = pl->p;
	bool moved = false, lost = false;

	for (size_t i = 0; i < p->nthreads && !lost; i++)
		lost = p->threads[i].start_lost;
	if (!lost)
		return 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct exp_sample *s = &p->samples[i];
		seen_by(pl, s->tid, s->time_ns, s->time_ns - (s->weight_ns < s->time_ns ? s->weight_ns : s->time_ns));
	}
	for (size_t i = 0; i < p->nsync; i++) {
		const struct exp_sync *s = &p->sync[i];
		seen_by(pl, s->tid, s->time_ns, s->time_ns - (s->wait_ns < s->time_ns ? s->wait_ns : s->time_ns));
	}
	for (size_t i = 0; i < p->nio; i++)
		seen_by(pl, p->io[i].tid, p->io[i].time_ns, p->io[i].time_ns);
	for (size_t i = 0; i < p->nthreads; i++) {
		struct exp_thread_ev *t = &p->threads[i];
		if (!t->start_lost || pl->seen[i] == UINT64_MAX)
			continue;
		uint64_t start = pl->seen[i] > t->start_ns ? pl->seen[i] : t->start_ns;
		if (start != t->start_ns) {
			t->start_ns = start;
			moved = true;
		}
	}
	if (!moved)
		return 0;
	struct start_key *keys = malloc((p->nthreads + 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < p->nthreads; i++)
		keys[i] = (struct start_key){ p->threads[i].tid, p->threads[i].start_ns, i };
	qsort(keys, p->nthreads, sizeof(*keys), cmp_start_key);
	for (size_t i = 0; i < p->nthreads; i++)
		p->thread_order[i] = (uint32_t)keys[i].index;
	free(keys);
	return 0;
}

/* Record `index` (not a START) into its life: an END where place_ends put
 * it; a SCHED or SWITCHES into the life it closes; a NAME by its time; a
 * COST (no time of its own: the collector writes it after the END) with
 * its id's END just before it in the file, else by cost_life.  -ENOMEM
 * without memory. */
static int place_rest(struct placing *pl, const struct exp_thread_lives *tl, size_t index)
{
	struct exp_proc *p = pl->p;
	const struct exp_thread_rec *r = &tl->recs[index];
	uint32_t tid = rec_tid(r);
	struct exp_thread_ev *t;

	if (r->type == EXP_REC_THREAD_END) {
		pl->ended = pl->end_life[index];   /* placed first, in time order */
		return 0;
	}
	if (r->type == EXP_REC_THREAD_COST)
		t = pl->ended < p->nthreads && p->threads[pl->ended].tid == tid ? &p->threads[pl->ended]
										  : cost_life(pl, tid);
	else if (r->type == EXP_REC_THREAD_SCHED || r->type == EXP_REC_THREAD_SWITCHES)
		t = closing_life(pl, tid, rec_time(r), r->type == EXP_REC_THREAD_SCHED);
	else
		t = life_at(pl, tid, rec_time(r));
	if (!t)
		return -ENOMEM;
	size_t life = (size_t)(t - p->threads);
	if (r->type == EXP_REC_THREAD_NAME && rec_time(r) < pl->seen[life])
		pl->seen[life] = rec_time(r);
	switch (r->type) {
	case EXP_REC_THREAD_SCHED: {
		struct exp_thread_sched ts;
		memcpy(&ts, r->rec, sizeof(ts));
		t->sched_cpu_ns = ts.cpu_ns;
		t->run_delay_ns = ts.run_delay_ns;
		t->has_sched = true;
		t->sched_ns = ts.time_ns;
		break;
	}
	case EXP_REC_THREAD_SWITCHES: {
		struct exp_thread_switches ts;
		memcpy(&ts, r->rec, sizeof(ts));
		t->voluntary_switches = ts.voluntary;
		t->involuntary_switches = ts.involuntary;
		t->start_wait_ns = ts.start_wait_ns;
		t->has_switches = true;
		break;
	}
	case EXP_REC_THREAD_COST:
		if (!t->handler_hist && !(t->handler_hist = calloc(EXP_COST_BUCKETS, 8)))
			return -ENOMEM;
		fill_cost(t, r);
		break;
	case EXP_REC_THREAD_NAME: {
		char cause[256];
		if (exp_take_thread_name(t, r->rec, r->len, cause, sizeof(cause)) < 0)
			return -ENOMEM;
		break;
	}
	}
	return 0;
}

int exp_thread_lives_place(struct exp_proc *p, size_t *cap, struct exp_thread_lives *tl)
{
	struct placing pl = { p, cap, 0, SIZE_MAX, NULL, NULL, 0 };
	int rc = place_starts(&pl, tl);

	if (!rc)
		rc = place_ends(&pl, tl);
	for (size_t i = 0; i < tl->n && !rc; i++)
		if (tl->recs[i].type != EXP_REC_THREAD_START)
			rc = place_rest(&pl, tl, i);
	if (!rc)
		rc = lost_starts_seen(&pl);
	free(pl.end_life);
	free(pl.seen);
	for (size_t i = 0; i < tl->n; i++)
		free(tl->recs[i].rec);
	free(tl->recs);
	*tl = (struct exp_thread_lives){ 0 };
	return rc;
}
