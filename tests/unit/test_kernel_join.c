/* SPDX-License-Identifier: MIT
 *
 * test_kernel_join.c — kernel.dat's samples joined to clock samples
 * (format/exp_read_kernel.h), on experiments made in memory: each clock
 * sample takes its thread's kernel ticks since its previous sample, one
 * period each, above its user stack; what a window cannot take goes to the
 * thread's next window with ticks; the weight of every thread is kept; a
 * chain met twice on the same user stack is one stack; ticks of another
 * process, another thread or after a thread's last sample join nothing and
 * are counted.  With --states, each off-CPU interval takes the last switch
 * of its thread after its previous interval ended (a switch whose interval
 * the collector lost is passed over); an interval with no user stack, or
 * with no switch in its span, keeps its stack and is counted.
 */
#include <stdlib.h>

#include "format/exp_read_kernel.h"
#include "testhelp.h"

#define MS 1000000ull

static const uint64_t user_a[] = { 0x401000, 0x402000 };   /* leaf first */
static const uint64_t user_b[] = { 0x401800, 0x402000 };
static const uint64_t chain_x[] = { 0xffffffff81000100ull, 0xffffffff81000200ull };
static const uint64_t chain_y[] = { 0xffffffff81000300ull };

/* One process (pid 100) with stacks 1 (user_a) and 2 (user_b). */
static void make(struct exp_experiment *e, struct exp_proc *p)
{
	memset(e, 0, sizeof(*e));
	memset(p, 0, sizeof(*p));
	e->procs = p;
	e->nprocs = 1;
	p->pid = 100;
	p->start_ns = 1000 * MS;
	p->nstacks = 3;
	p->stacks = calloc(3, sizeof(*p->stacks));
	p->stacks[1] = (struct exp_stack_ref){ .pcs = user_a, .n = 2, .depth = 2 };
	p->stacks[2] = (struct exp_stack_ref){ .pcs = user_b, .n = 2, .depth = 2 };
	p->kinfo.period_ns = MS;
}

static void sample(struct exp_proc *p, uint32_t tid, uint64_t t_ms, uint32_t stack, uint64_t w_ns)
{
	p->samples = realloc(p->samples, (p->nsamples + 1) * sizeof(*p->samples));
	p->samples[p->nsamples++] = (struct exp_sample){ .tid = tid, .time_ns = 1000 * MS + t_ms * MS,
							 .stack_id = stack, .weight_ns = w_ns };
}

static void tick(struct exp_proc *p, uint32_t pid, uint32_t tid, uint64_t t_us, const uint64_t *chain,
		 uint16_t n)
{
	p->ksamples = realloc(p->ksamples, (p->nksamples + 1) * sizeof(*p->ksamples));
	p->kpcs = realloc(p->kpcs, (p->nkpcs + n) * sizeof(*p->kpcs));
	memcpy(p->kpcs + p->nkpcs, chain, n * sizeof(*chain));
	p->ksamples[p->nksamples++] = (struct exp_ksample_ev){ pid, tid, 1000 * MS + t_us * 1000, p->nkpcs, n };
	p->nkpcs += n;
}

/* A switch out of a CPU (KERNEL_SWITCH) at t_us. */
static void switch_out(struct exp_proc *p, uint32_t tid, uint64_t t_us, const uint64_t *chain,
		       uint16_t n)
{
	p->kswitches = realloc(p->kswitches, (p->nkswitches + 1) * sizeof(*p->kswitches));
	p->kpcs = realloc(p->kpcs, (p->nkpcs + n) * sizeof(*p->kpcs));
	memcpy(p->kpcs + p->nkpcs, chain, n * sizeof(*chain));
	p->kswitches[p->nkswitches++] = (struct exp_ksample_ev){ 100, tid, 1000 * MS + t_us * 1000,
								 p->nkpcs, n };
	p->nkpcs += n;
}

/* An interval off the CPU from off_us to on_us at user stack `stack`. */
static void state(struct exp_proc *p, uint32_t tid, uint64_t off_us, uint64_t on_us, uint32_t stack,
		  uint16_t flags)
{
	p->states = realloc(p->states, (p->nstates + 1) * sizeof(*p->states));
	p->states[p->nstates++] = (struct exp_state){ .tid = tid, .off_ns = 1000 * MS + off_us * 1000,
						      .on_ns = 1000 * MS + on_us * 1000,
						      .stack_id = stack, .flags = flags };
}

static void done(struct exp_proc *p)
{
	free(p->states);
	free(p->samples);
	free(p->stacks);
	exp_kernel_free(p);
}

/* The weight of thread tid in samples whose stack has a kernel node above
 * user stack `user` (and, if `first` is given, whose kernel leaf is it). */
static uint64_t kernel_weight(const struct exp_proc *p, uint32_t tid, uint32_t user, uint64_t first)
{
	uint64_t w = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct exp_stack_ref *s = &p->stacks[p->samples[i].stack_id];
		if (p->samples[i].tid == tid && (s->flags & EXP_STACK_KERNEL) && s->parent == user &&
		    (!first || s->pcs[0] == first))
			w += p->samples[i].weight_ns;
	}
	return w;
}

static uint64_t weight_of(const struct exp_proc *p, uint32_t tid)
{
	uint64_t w = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		w += p->samples[i].tid == tid ? p->samples[i].weight_ns : 0;
	return w;
}

static void ticks_take_one_period_each(void)
{
	struct exp_experiment e;
	struct exp_proc p;

	make(&e, &p);
	sample(&p, 100, 10, 1, 10 * MS);        /* window (start, 10 ms]: 3 ticks */
	sample(&p, 100, 20, 2, 10 * MS);        /* (10, 20]: none */
	sample(&p, 100, 30, 1, 10 * MS);        /* (20, 30]: 2 ticks, chain y */
	tick(&p, 100, 100, 2000, chain_x, 2);
	tick(&p, 100, 100, 5000, chain_x, 2);
	tick(&p, 100, 100, 9000, chain_y, 1);
	tick(&p, 100, 100, 25000, chain_y, 1);
	tick(&p, 100, 100, 30000, chain_y, 1);  /* at the sample's time: its own */
	CHECK(exp_kernel_join(&e) == 0);
	CHECK(weight_of(&p, 100) == 30 * MS);
	CHECKF(kernel_weight(&p, 100, 1, chain_x[0]) == 2 * MS, "%llu",
	       (unsigned long long)kernel_weight(&p, 100, 1, chain_x[0]));
	CHECK(kernel_weight(&p, 100, 1, chain_y[0]) == 3 * MS);
	CHECK(kernel_weight(&p, 100, 2, 0) == 0);
	CHECK(p.kernel_matched == 2 && p.kernel_unmatched == 0);
	/* chain x twice above stack 1: one stack; y above 1 once: 2 new stacks */
	CHECKF(p.nstacks == 5, "%u stacks", p.nstacks);
	uint64_t pcs[8];
	uint16_t flags;
	for (uint32_t id = 3; id < p.nstacks; id++) {
		int n = exp_stack_frames(&p, id, pcs, 8, &flags);
		CHECK(n == p.stacks[id].n + 2 && pcs[n - 2] == user_a[0] && pcs[n - 1] == user_a[1]);
		CHECK(pcs[0] >= EXP_KERNEL_ADDR_MIN && (flags & EXP_STACK_KERNEL));
	}
	done(&p);
}

static void a_full_window_carries_over(void)
{
	struct exp_experiment e;
	struct exp_proc p;

	make(&e, &p);
	sample(&p, 7, 1, 1, 1 * MS);            /* 1 ms of weight, 3 ticks */
	sample(&p, 7, 2, 1, 1 * MS);            /* 1 ms, 1 tick: takes 1 of the 2 owed... */
	sample(&p, 7, 4, 2, 2 * MS);            /* 2 ms, 1 tick: the rest */
	tick(&p, 100, 7, 100, chain_x, 2);
	tick(&p, 100, 7, 500, chain_x, 2);
	tick(&p, 100, 7, 900, chain_x, 2);
	tick(&p, 100, 7, 1500, chain_y, 1);
	tick(&p, 100, 7, 3000, chain_y, 1);
	CHECK(exp_kernel_join(&e) == 0);
	CHECK(weight_of(&p, 7) == 4 * MS);
	/* 5 ticks, 5 ms owed, 4 ms of weight: all of it is the kernel's */
	CHECKF(kernel_weight(&p, 7, 1, 0) + kernel_weight(&p, 7, 2, 0) == 4 * MS, "%llu + %llu",
	       (unsigned long long)kernel_weight(&p, 7, 1, 0), (unsigned long long)kernel_weight(&p, 7, 2, 0));
	CHECK(kernel_weight(&p, 7, 2, chain_y[0]) == 2 * MS);
	done(&p);
}

static void strangers_join_nothing(void)
{
	struct exp_experiment e;
	struct exp_proc p;

	make(&e, &p);
	p.start_ns += MS;                       /* started at 1 ms */
	sample(&p, 100, 10, 1, 10 * MS);
	sample(&p, 101, 10, 2, 10 * MS);
	tick(&p, 200, 100, 5000, chain_x, 2);   /* another process */
	tick(&p, 100, 102, 5000, chain_x, 2);   /* a thread with no samples */
	tick(&p, 100, 101, 15000, chain_y, 1);  /* after its thread's last sample */
	tick(&p, 100, 101, 500, chain_y, 1);    /* before the process started */
	size_t before = p.nsamples;
	CHECK(exp_kernel_join(&e) == 0);
	CHECK(p.nsamples == before && p.nstacks == 3);
	CHECKF(p.kernel_unmatched == 3, "%llu", (unsigned long long)p.kernel_unmatched);
	CHECK(p.kernel_ticks == 4);
	done(&p);
}

/* Thread 7's intervals: [10, 20] at user_a after a switch at 9.99 ms;
 * [30, 40] at user_b, whose switch at 29.99 ms follows one at 25 ms
 * (an interval the collector lost: passed over); [50, 60] with no stack
 * (the ring way) and [70, 80] with no switch in its span keep theirs.
 * Thread 8's interval [10, 20] takes its own thread's switch only. */
static void switches_above_intervals(void)
{
	struct exp_experiment e;
	struct exp_proc p;

	make(&e, &p);
	switch_out(&p, 7, 9990, chain_x, 2);
	switch_out(&p, 7, 25000, chain_y, 1);
	switch_out(&p, 7, 29990, chain_x, 2);
	switch_out(&p, 7, 49990, chain_y, 1);
	switch_out(&p, 8, 9995, chain_y, 1);
	state(&p, 7, 10000, 20000, 1, 0);
	state(&p, 7, 30000, 40000, 2, 0);
	state(&p, 7, 50000, 60000, 0, EXP_STATE_NO_STACK);
	state(&p, 7, 70000, 80000, 1, 0);
	state(&p, 8, 10000, 20000, 2, 0);
	CHECK(exp_kernel_join(&e) == 0);
	const struct exp_stack_ref *s0 = &p.stacks[p.states[0].stack_id];
	const struct exp_stack_ref *s1 = &p.stacks[p.states[1].stack_id];
	const struct exp_stack_ref *s4 = &p.stacks[p.states[4].stack_id];
	CHECK((s0->flags & EXP_STACK_KERNEL) && s0->parent == 1 && s0->n == 2 && s0->pcs[0] == chain_x[0]);
	CHECK((s1->flags & EXP_STACK_KERNEL) && s1->parent == 2 && s1->n == 2 && s1->pcs[0] == chain_x[0]);
	CHECK(p.states[2].stack_id == 0);
	CHECK(p.states[3].stack_id == 1);
	CHECK((s4->flags & EXP_STACK_KERNEL) && s4->parent == 2 && s4->n == 1 && s4->pcs[0] == chain_y[0]);
	CHECK(p.kswitch_matched == 3 && p.kswitch_unmatched == 1);
	CHECK(p.kernel_switches == 5);
	done(&p);
}

int main(void)
{
	RUN(ticks_take_one_period_each);
	RUN(a_full_window_carries_over);
	RUN(strangers_join_nothing);
	RUN(switches_above_intervals);
	return th_failed_cases != 0;
}
