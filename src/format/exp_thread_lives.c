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

const struct exp_thread_ev *exp_thread_life(const struct exp_proc *p, uint32_t tid, uint64_t at)
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

/* A new life of tid in p; NULL without memory. */
static struct exp_thread_ev *new_life(struct exp_proc *p, size_t *cap, uint32_t tid)
{
	if (exp_grow(&p->threads, cap, p->nthreads, sizeof(*p->threads)))
		return NULL;
	struct exp_thread_ev *t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* Tid's life at `at` in p, a new one if it has none; NULL without memory. */
static struct exp_thread_ev *life_at(struct exp_proc *p, size_t *cap, uint32_t tid, uint64_t at)
{
	const struct exp_thread_ev *t = exp_thread_life(p, tid, at);

	return t ? &p->threads[t - p->threads] : new_life(p, cap, tid);
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

static int place_start(struct exp_proc *p, size_t *cap, const struct exp_thread_rec *r)
{
	struct exp_thread_start ts;
	struct exp_thread_ev *t = NULL;

	memcpy(&ts, r->rec, sizeof(ts));
	for (size_t i = 0; i < p->nthreads && !t; i++)
		if (p->threads[i].tid == ts.tid && p->threads[i].start_ns == ts.time_ns)
			t = &p->threads[i];
	if (!t && !(t = new_life(p, cap, ts.tid)))
		return -ENOMEM;
	t->start_ns = ts.time_ns;
	t->start_routine = ts.start_routine;
	t->creator_tid = ts.creator_tid;
	if (!t->name_ns) {              /* a THREAD_NAME record renamed it later */
		memcpy(t->name, ts.name, 16);
		t->name[16] = 0;
	}
	return 0;
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

/* Record r (not a START) into its life; `ended`: the life of the last END
 * of r's id before it in the file, for a COST (no time of its own: the
 * collector writes it after the END).  -ENOMEM without memory. */
static int place_rest(struct exp_proc *p, size_t *cap, const struct exp_thread_rec *r, size_t *ended)
{
	uint32_t tid = rec_tid(r);
	uint64_t at = r->type == EXP_REC_THREAD_COST ? UINT64_MAX : rec_time(r);
	struct exp_thread_ev *t;

	if (r->type == EXP_REC_THREAD_COST && *ended < p->nthreads && p->threads[*ended].tid == tid)
		t = &p->threads[*ended];
	else if (!(t = life_at(p, cap, tid, at)))
		return -ENOMEM;
	switch (r->type) {
	case EXP_REC_THREAD_END: {
		struct exp_thread_end te;
		memcpy(&te, r->rec, sizeof(te));
		t->end_ns = te.time_ns;
		t->cpu_ns = te.cpu_ns;
		t->samples = te.samples;
		*ended = (size_t)(t - p->threads);
		break;
	}
	case EXP_REC_THREAD_SCHED: {
		struct exp_thread_sched ts;
		memcpy(&ts, r->rec, sizeof(ts));
		t->sched_cpu_ns = ts.cpu_ns;
		t->run_delay_ns = ts.run_delay_ns;
		t->has_sched = true;
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
	int rc = 0;
	size_t ended = SIZE_MAX;

	for (size_t i = 0; i < tl->n && !rc; i++)
		if (tl->recs[i].type == EXP_REC_THREAD_START)
			rc = place_start(p, cap, &tl->recs[i]);
	for (size_t i = 0; i < tl->n && !rc; i++)
		if (tl->recs[i].type != EXP_REC_THREAD_START)
			rc = place_rest(p, cap, &tl->recs[i], &ended);
	for (size_t i = 0; i < tl->n; i++)
		free(tl->recs[i].rec);
	free(tl->recs);
	*tl = (struct exp_thread_lives){ 0 };
	return rc;
}
