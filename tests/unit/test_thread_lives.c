/* SPDX-License-Identifier: MIT
 *
 * test_thread_lives.c — threads.dat's records placed into lives
 * (src/format/exp_thread_lives.c): the sorted index by (tid, start) that
 * finds a life, a COST cut from its END by a block's end, an END whose
 * START was lost.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_records.h"
#include "format/exp_thread_lives.h"
#include "testhelp.h"

static void add_start(struct exp_thread_lives *tl, uint32_t tid, uint64_t at)
{
	struct exp_thread_start r = { 0, tid, at, 0, 0, 0, "t" };

	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_START, &r, sizeof(r)) == 0);
}

static void add_end(struct exp_thread_lives *tl, uint32_t tid, uint64_t at, uint64_t cpu)
{
	struct exp_thread_end r = { 0, tid, at, cpu, 1 };

	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_END, &r, sizeof(r)) == 0);
}

static void add_cost(struct exp_thread_lives *tl, uint32_t tid, uint64_t collector_ns)
{
	struct exp_thread_cost r = { 0, tid, collector_ns, 1, collector_ns, 0, 0, 0 };

	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_COST, &r, sizeof(r)) == 0);
}

static void add_switches(struct exp_thread_lives *tl, uint32_t tid, uint64_t at, uint64_t voluntary)
{
	struct exp_thread_switches r = { 0, tid, at, voluntary, 0, 0 };

	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_SWITCHES, &r, sizeof(r)) == 0);
}

static void add_sched(struct exp_thread_lives *tl, uint32_t tid, uint64_t at, uint64_t run_delay)
{
	struct exp_thread_sched r = { 0, tid, at, 1, run_delay, 1 };

	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_SCHED, &r, sizeof(r)) == 0);
}

static void add_name(struct exp_thread_lives *tl, uint32_t tid, uint64_t at, const char *name)
{
	struct {
		struct exp_thread_name r;
		char name[16];
	} rec = { { 0, tid, at, 0, 0 }, { 0 } };

	strncpy(rec.name, name, sizeof(rec.name) - 1);
	CHECK(exp_thread_lives_add(tl, EXP_REC_THREAD_NAME, &rec, sizeof(rec)) == 0);
}

static void free_proc(struct exp_proc *p)
{
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].handler_hist);
	free(p->threads);
	free(p->thread_order);
}

/* 300 ids of 3 lives each, their STARTs out of order and one copied: each
 * look-up gives the life started last by its time (the first before any),
 * an unknown id none. */
static void index_finds_each_life(void)
{
	struct exp_thread_lives tl = { 0 };
	struct exp_proc p = { 0 };
	size_t cap = 0;

	for (uint32_t life = 3; life-- > 0;)
		for (uint32_t tid = 100; tid < 400; tid++)
			add_start(&tl, tid, 1000000u * (life + 1) + tid);
	add_start(&tl, 250, 2000000u + 250);        /* a staging block's copy */
	CHECK(exp_thread_lives_place(&p, &cap, &tl) == 0);
	CHECKF(p.nthreads == 900, "%zu lives", p.nthreads);
	CHECK(p.thread_order != NULL);
	for (uint32_t tid = 100; tid < 400; tid++) {
		const struct exp_thread_ev *t = exp_thread_life(&p, tid, 5);
		CHECK(t && t->tid == tid && t->start_ns == 1000000u + tid);
		for (uint64_t life = 1; life <= 3; life++) {
			uint64_t start = 1000000u * life + tid;
			t = exp_thread_life(&p, tid, start);
			CHECK(t && t->tid == tid && t->start_ns == start);
			t = exp_thread_life(&p, tid, start + 999);
			CHECK(t && t->tid == tid && t->start_ns == start);
		}
		t = exp_thread_life(&p, tid, UINT64_MAX);
		CHECK(t && t->start_ns == 3000000u + tid);
	}
	CHECK(!exp_thread_life(&p, 99, 5) && !exp_thread_life(&p, 400, 5));
	free_proc(&p);
}

/* Two lives of id 7: the first one's COST comes after another id's END (a
 * block's end between it and its own END), the second's right after its
 * END.  Each life keeps its own COST. */
static void cost_apart_from_its_end(void)
{
	struct exp_thread_lives tl = { 0 };
	struct exp_proc p = { 0 };
	size_t cap = 0;

	add_start(&tl, 7, 100);
	add_start(&tl, 8, 150);
	add_start(&tl, 7, 500);
	add_end(&tl, 7, 200, 10);
	add_end(&tl, 8, 300, 10);
	add_cost(&tl, 7, 11);                      /* the first life's */
	add_end(&tl, 7, 900, 10);
	add_cost(&tl, 7, 22);
	CHECK(exp_thread_lives_place(&p, &cap, &tl) == 0);
	const struct exp_thread_ev *a = exp_thread_life(&p, 7, 100), *b = exp_thread_life(&p, 7, 500);
	CHECK(a && b && a != b);
	CHECKF(a && a->collector_ns == 11, "first life's collector %llu ns",
	       a ? (unsigned long long)a->collector_ns : 0ull);
	CHECKF(b && b->collector_ns == 22, "second life's collector %llu ns",
	       b ? (unsigned long long)b->collector_ns : 0ull);
	free_proc(&p);
}

/* An END after the end of the only life of its id: its START was lost, so
 * it is a life of its own, not the first life's end rewritten. */
static void end_without_start_is_a_life(void)
{
	struct exp_thread_lives tl = { 0 };
	struct exp_proc p = { 0 };
	size_t cap = 0;

	add_start(&tl, 7, 100);
	add_end(&tl, 7, 200, 50);
	add_end(&tl, 7, 900, 70);
	CHECK(exp_thread_lives_place(&p, &cap, &tl) == 0);
	CHECKF(p.nthreads == 2, "%zu lives", p.nthreads);
	const struct exp_thread_ev *a = exp_thread_life(&p, 7, 150);
	CHECK(a && a->start_ns == 100 && a->end_ns == 200 && a->cpu_ns == 50);
	free_proc(&p);
}

/* Id 7's first life [100, 200] with its SWITCHES and SCHED written after
 * its END; a second whose START was lost: named at 600, ended at 900, its
 * own SWITCHES and SCHED after.  The records come in file order, the
 * second life's END first.  The second life starts at the earliest time
 * seen of its own (600, not 0), each life keeps its own records, and a
 * time between the first's end and 600 is the second's.  On the build
 * before, the second life started at 0 and its NAME, SWITCHES and SCHED
 * went to the first. */
static void lost_start_keeps_its_records(void)
{
	struct exp_thread_lives tl = { 0 };
	struct exp_proc p = { 0 };
	size_t cap = 0;

	add_start(&tl, 7, 100);
	add_end(&tl, 7, 900, 70);
	add_switches(&tl, 7, 905, 33);
	add_sched(&tl, 7, 906, 330);
	add_name(&tl, 7, 600, "second");
	add_end(&tl, 7, 200, 50);
	add_switches(&tl, 7, 205, 11);
	add_sched(&tl, 7, 206, 110);
	CHECK(exp_thread_lives_place(&p, &cap, &tl) == 0);
	CHECKF(p.nthreads == 2, "%zu lives", p.nthreads);
	const struct exp_thread_ev *a = exp_thread_life(&p, 7, 150), *b = exp_thread_life(&p, 7, 700);
	CHECK(a && b && a != b);
	if (!a || !b || a == b)
		return;
	CHECK(a->start_ns == 100 && a->end_ns == 200 && a->cpu_ns == 50 && !a->start_lost);
	CHECKF(b->start_ns == 600 && b->end_ns == 900 && b->cpu_ns == 70 && b->start_lost,
	       "second life %llu..%llu", (unsigned long long)b->start_ns, (unsigned long long)b->end_ns);
	CHECKF(a->has_switches && a->voluntary_switches == 11 && a->has_sched && a->run_delay_ns == 110,
	       "first life's switches %llu, run delay %llu", (unsigned long long)a->voluntary_switches,
	       (unsigned long long)a->run_delay_ns);
	CHECKF(b->has_switches && b->voluntary_switches == 33 && b->has_sched && b->run_delay_ns == 330,
	       "second life's switches %llu, run delay %llu", (unsigned long long)b->voluntary_switches,
	       (unsigned long long)b->run_delay_ns);
	CHECKF(strcmp(b->name, "second") == 0 && strcmp(a->name, "t") == 0, "names %s, %s", a->name, b->name);
	CHECK(exp_thread_life(&p, 7, 300) == b);   /* after the first's end: the lost one's */
	CHECK(exp_thread_life(&p, 7, 200) == a);
	free_proc(&p);
}

/* Lives whose START was lost and that have no NAME: id 8's only life
 * starts at its earliest sample less its CPU (400), not before a wait's
 * request (its sync record at 700 waited 250: 450) nor its I/O (600); id
 * 9's second life has a sample whose CPU reaches back before the first
 * life's end, so it starts just after that end (201).  On the build before,
 * both started at their END (900), so the critical path cut them. */
static void lost_start_from_samples(void)
{
	struct exp_thread_lives tl = { 0 };
	struct exp_sample samples[] = {
		{ .tid = 8, .time_ns = 500, .weight_ns = 100 },
		{ .tid = 9, .time_ns = 150, .weight_ns = 40 },
		{ .tid = 9, .time_ns = 250, .weight_ns = 100 },
	};
	struct exp_sync sync[] = { { .tid = 8, .time_ns = 700, .wait_ns = 250 } };
	struct exp_io io[] = { { .tid = 8, .time_ns = 600, .dur_ns = 10 } };
	struct exp_proc p = { .samples = samples, .nsamples = 3, .sync = sync, .nsync = 1, .io = io, .nio = 1 };
	size_t cap = 0;

	add_end(&tl, 8, 900, 300);
	add_start(&tl, 9, 100);
	add_end(&tl, 9, 200, 50);
	add_end(&tl, 9, 900, 60);
	CHECK(exp_thread_lives_place(&p, &cap, &tl) == 0);
	CHECKF(p.nthreads == 3, "%zu lives", p.nthreads);
	const struct exp_thread_ev *a = exp_thread_life(&p, 8, 800), *b = exp_thread_life(&p, 9, 800);
	CHECK(a && b);
	if (!a || !b)
		return;
	CHECKF(a->start_lost && a->start_ns == 400 && a->end_ns == 900, "id 8's life %llu..%llu",
	       (unsigned long long)a->start_ns, (unsigned long long)a->end_ns);
	CHECKF(b->start_lost && b->start_ns == 201 && b->end_ns == 900, "id 9's second life %llu..%llu",
	       (unsigned long long)b->start_ns, (unsigned long long)b->end_ns);
	CHECK(exp_thread_life(&p, 9, 150)->start_ns == 100);
	p.samples = NULL, p.sync = NULL, p.io = NULL;
	free_proc(&p);
}

int main(void)
{
	RUN(index_finds_each_life);
	RUN(cost_apart_from_its_end);
	RUN(end_without_start_is_a_life);
	RUN(lost_start_keeps_its_records);
	RUN(lost_start_from_samples);
	return th_failed_cases != 0;
}
