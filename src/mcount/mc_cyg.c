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
	int outermost;
};

struct live {
	uint64_t fn;
	uint32_t depth;
};

struct cyg_thread {
	int depth;                       /* shadow stack height (may exceed SHADOW_MAX) */
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

MC_API void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	struct cyg_thread *c = cyg;

	if (mc_kind != EXP_ARCS_CYG)
		mc_kind = EXP_ARCS_CYG;
	struct exp_arc *arc = mc_arc_slot((uint64_t)(uintptr_t)call_site, (uint64_t)(uintptr_t)this_fn);
	if (!c) {
		if (mc_self.disabled || !(c = calloc(1, sizeof(*c))))
			return;
		cyg = c;
	}
	int d = c->depth++;
	if (d >= SHADOW_MAX)
		return;
	struct live *l = live_of(c, (uint64_t)(uintptr_t)this_fn);
	c->stack[d].fn = (uint64_t)(uintptr_t)this_fn;
	c->stack[d].arc = arc;
	c->stack[d].outermost = l && l->depth++ == 0;
	c->stack[d].start_ns = now_ns();
}

MC_API void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	struct cyg_thread *c = cyg;
	uint64_t end = now_ns();

	(void)call_site;
	if (!c || c->depth <= 0)
		return;
	if (c->depth > SHADOW_MAX) {
		c->depth--;
		return;
	}
	/* Pop to this function's activation (exits skipped by longjmp). */
	int d = c->depth - 1;
	while (d > 0 && c->stack[d].fn != (uint64_t)(uintptr_t)this_fn)
		d--;
	if (c->stack[d].fn != (uint64_t)(uintptr_t)this_fn)
		return;                          /* not ours: an exit without enter */
	for (int i = c->depth - 1; i >= d; i--) {
		struct activation *a = &c->stack[i];
		struct live *l = live_of(c, a->fn);
		if (l && l->depth)
			l->depth--;
		if (a->outermost && a->arc && i == d)
			a->arc->incl_ns += end - a->start_ns;
	}
	c->depth = d;
}
