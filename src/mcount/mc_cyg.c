/* SPDX-License-Identifier: MIT
 *
 * mc_cyg.c — -finstrument-functions: __cyg_profile_func_enter/exit.
 *
 * Enter counts the arc (call site -> function) like mcount and pushes the
 * activation on a per-thread shadow stack with its start time; exit pops it
 * and adds the time from entry to exit to the arc: the paper's first timing
 * method, exact per call (wall-clock, CLOCK_MONOTONIC).  Under recursion
 * only a function's outermost activation adds time, so no function's
 * inclusive time exceeds the run's: a per-thread table counts how many
 * activations of each function are live.  Exits skipped by longjmp are
 * found when a later exit names a function deeper in the shadow stack.
 *
 * The runtime's own time is taken out of every activation's: each enter
 * and exit costs about the same (two clock reads, a probe, a push and a
 * pop), measured once per process at the first enter (the fastest of a few
 * batches of enter/exit pairs through the entry points themselves, on a
 * function of the collector's, whose arc the analyzer leaves out): the
 * whole pair (call_ns) and the part of it between the two clock reads,
 * inside the activation's own interval (own_ns).  An activation's time
 * loses own_ns, and call_ns per call made inside it (a per-thread count of
 * enters, read at its entry and exit).  Measuring each call's runtime
 * instead would take two more clock reads per call; TAU's overhead
 * compensation works the same way.  The table says how much
 * (EXP_ARCS_CYG_NET).
 */
#include <stdlib.h>
#include <time.h>

#include "mcount/mc_internal.h"

#define SHADOW_MAX 4096
#define LIVE_SLOTS 1024             /* live-function table, a power of two */

struct activation {
	uint64_t fn;
	struct exp_arc *arc;
	uint64_t start_ns;
	uint64_t calls0;                 /* the thread's enters before this one's */
	int outermost;
};

struct live {
	uint64_t fn;
	uint32_t depth;
};

struct cyg_thread {
	int depth;                       /* shadow stack height (may exceed SHADOW_MAX) */
	uint64_t calls;                  /* enters in this thread */
	bool calibrating;                /* pop: sum the intervals, add to no arc */
	uint64_t calibrated_ns;          /*   (this thread's calibrate()) */
	struct activation stack[SHADOW_MAX];
	struct live live[LIVE_SLOTS];
};

static __thread struct cyg_thread *cyg __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The live-activation counter of fn (open addressing; a full table gives
 * NULL and that function's time is then not measured). */
static struct live *live_of(struct cyg_thread *c, uint64_t fn)
{
	uint32_t i = (uint32_t)((fn * 0x9e3779b97f4a7c15ull) >> 54);
	struct live *reuse = NULL;

	for (int k = 0; k < LIVE_SLOTS; k++, i = (i + 1) & (LIVE_SLOTS - 1)) {
		struct live *l = &c->live[i];
		if (l->fn == fn)
			return l;
		if (l->fn == 0) {
			l = reuse ? reuse : l;
			l->fn = fn;
			l->depth = 0;
			return l;
		}
		if (!reuse && l->depth == 0)
			reuse = l;                 /* an idle function's slot */
	}
	if (reuse) {
		reuse->fn = fn;
		reuse->depth = 0;
	}
	return reuse;
}

uint32_t mc_cyg_call_ns, mc_cyg_own_ns;

/* Push an activation of fn (its arc: where its time goes, or NULL). */
static void push(struct cyg_thread *c, uint64_t fn, struct exp_arc *arc)
{
	int d = c->depth++;

	c->calls++;
	if (d >= SHADOW_MAX)
		return;
	struct live *l = live_of(c, fn);
	c->stack[d].fn = fn;
	c->stack[d].arc = arc;
	c->stack[d].calls0 = c->calls;
	c->stack[d].outermost = l && l->depth++ == 0;
	c->stack[d].start_ns = now_ns();
}

/* Pop fn's activation, taken out at `end`: its time, less the runtime's in
 * the calls made inside it, to its arc if it was fn's outermost. */
static void pop(struct cyg_thread *c, uint64_t fn, uint64_t end)
{
	if (c->depth <= 0)
		return;
	if (c->depth > SHADOW_MAX) {
		c->depth--;
		return;
	}
	/* Pop to this function's activation (exits skipped by longjmp). */
	int d = c->depth - 1;
	while (d > 0 && c->stack[d].fn != fn)
		d--;
	if (c->stack[d].fn != fn)
		return;                          /* not ours: an exit without enter */
	for (int i = c->depth - 1; i >= d; i--) {
		struct activation *a = &c->stack[i];
		struct live *l = live_of(c, a->fn);
		if (l && l->depth)
			l->depth--;
		uint64_t ns = end > a->start_ns ? end - a->start_ns : 0;
		if (c->calibrating && i == d)
			c->calibrated_ns += ns;
		else if (a->outermost && a->arc && i == d) {
			uint64_t runtime = mc_cyg_own_ns + (c->calls - a->calls0) * (uint64_t)mc_cyg_call_ns;
			a->arc->incl_ns += ns > runtime ? ns - runtime : 0;
		}
	}
	c->depth = d;
}

MC_API void __cyg_profile_func_enter(void *this_fn, void *call_site);
MC_API void __cyg_profile_func_exit(void *this_fn, void *call_site);

/* The runtime's time per enter and exit, through the entry points: the
 * fastest of a few batches (the others met a preemption or a cold cache).
 * The function timed is this one, the collector's own: the analyzer
 * leaves its arc out.  Then the thread's table, made meanwhile, says it. */
static void calibrate(struct cyg_thread *c)
{
	void *fn = (void *)(uintptr_t)calibrate, *site = (char *)fn + 1;
	uint64_t calls = c->calls, best = UINT64_MAX, best_own = UINT64_MAX;

	c->calibrating = true;
	for (int batch = 0; batch < 5; batch++) {
		uint64_t own0 = c->calibrated_ns, t0 = now_ns();
		for (int i = 0; i < 64; i++) {
			__cyg_profile_func_enter(fn, site);
			__cyg_profile_func_exit(fn, site);
		}
		uint64_t t = now_ns() - t0, own = c->calibrated_ns - own0;
		if (t < best)
			best = t;
		if (own < best_own)
			best_own = own;
	}
	c->calibrating = false;
	c->calls = calls;
	mc_cyg_own_ns = (uint32_t)(best_own / 64);
	mc_cyg_call_ns = (uint32_t)(best / 64);
	mc_arcs_note_cyg_net();
}

MC_API void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	struct cyg_thread *c = cyg;

	if (!c) {
		if (mc_self.disabled || !(c = calloc(1, sizeof(*c))))
			goto count;
		cyg = c;
		if (mc_kind != EXP_ARCS_CYG) {      /* the process's first */
			mc_kind = EXP_ARCS_CYG;
			calibrate(c);
		}
	}
	push(c, (uint64_t)(uintptr_t)this_fn,
	     mc_arc_slot((uint64_t)(uintptr_t)call_site, (uint64_t)(uintptr_t)this_fn));
	return;
count:
	if (mc_kind != EXP_ARCS_CYG)
		mc_kind = EXP_ARCS_CYG;
	mc_arc_slot((uint64_t)(uintptr_t)call_site, (uint64_t)(uintptr_t)this_fn);
}

MC_API void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	struct cyg_thread *c = cyg;
	uint64_t end = now_ns();

	(void)call_site;
	if (c)
		pop(c, (uint64_t)(uintptr_t)this_fn, end);
}
