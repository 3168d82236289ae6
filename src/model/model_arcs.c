/* SPDX-License-Identifier: MIT
 *
 * model_arcs.c — the call-graph arcs of the instrumentation runtime (-pg,
 * -finstrument-functions), symbolized and summed by (caller, callee) over
 * threads and processes.  Called once per process by model_build.c.
 */
#include <stdlib.h>

#include "model/model_build_int.h"

/* frompc is a return address in the caller; selfpc is inside the callee
 * (mcount: the return address of its mcount call; -finstrument-functions:
 * its entry).  An arc out of tally's thread-start wrapper is the thread
 * library calling the start routine: its caller is where the wrapper
 * returns to (logged by the collector). */
int model_build_arcs(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	struct model *m = b->m;
	const char *tcaller = exp_proc_log(c->p, "thread.entry.caller_pc");
	uint64_t thread_caller = tcaller ? strtoull(tcaller, NULL, 16) : 0;

	for (size_t i = 0; i < c->p->narcs; i++) {
		const struct exp_arc_ev *a = &c->p->arcs[i];
		struct frame from, to;
		model_frame_resolve(b, c, a->frompc, true, UINT64_MAX, &from);
		if (from.thread_start && thread_caller)
			model_frame_resolve(b, c, thread_caller, true, UINT64_MAX, &from);
		model_frame_resolve(b, c, a->selfpc, !(a->flags & EXP_ARCS_CYG), UINT64_MAX, &to);
		if ((from.tally && !from.thread_start) || to.tally) {
			if (!o->keep_tally_frames)
				continue;
		}
		uint64_t key = ((uint64_t)from.func << 32 | to.func) + 1;
		bool inserted;
		uint64_t *v = model_map_put(&b->arc_of, key, 0, &inserted);
		if (!v)
			return -1;
		if (inserted) {
			if (exp_grow(&m->arcs, &b->cap_arcs, m->narcs, sizeof(*m->arcs)))
				return -1;
			m->arcs[m->narcs] = (struct model_arc){ from.func, to.func, 0, 0, 0 };
			*model_map_get(&b->arc_of, key) = ++m->narcs;
			v = model_map_get(&b->arc_of, key);
		}
		struct model_arc *ma = &m->arcs[*v - 1];
		ma->count += a->count;
		ma->incl_ns += a->incl_ns;
		ma->flags |= a->flags;
		if ((a->flags & EXP_ARCS_CYG_NET) && a->call_ns > m->cyg_call_ns) {
			m->cyg_call_ns = a->call_ns;
			m->cyg_own_ns = a->own_ns;
		}
	}
	return 0;
}

static int cmp_arc(const void *x, const void *y)
{
	const struct model_arc *a = x, *b = y;

	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

void model_arcs_sort(struct model *m)
{
	if (m->narcs)
		qsort(m->arcs, m->narcs, sizeof(*m->arcs), cmp_arc);
}
