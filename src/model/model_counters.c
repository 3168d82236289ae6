/* SPDX-License-Identifier: MIT
 *
 * model_counters.c — counter samples (`tally record -c EVENT`): each
 * counter's events by call stack, in the metric named after the event
 * (model_metric_counter).  Called once per process by model_build.c (data
 * samples: model_dataspace.c).  A sample of a counter
 * whose definition is missing (a damaged file) is left out and counted in
 * model.unknown_counters.
 */
#include "model/model_build_int.h"

/* The metric of counter `index` of process p, or -1. */
static int metric_of(const struct exp_proc *p, uint16_t index)
{
	if (index >= EXP_MAX_COUNTERS || !(p->counter_mask & (1u << index)))
		return -1;
	const struct exp_counter_def *d = &p->counter_defs[index];
	return model_metric_counter(d->name, d->type, d->config);
}

int model_build_counters(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->ncsamples; i++) {
		const struct exp_counter_sample *s = &p->csamples[i];
		int mm = metric_of(p, s->index);
		if (mm < 0) {
			b->m->unknown_counters++;
			continue;
		}
		if (model_keep(c, o, s->tid, s->time_ns) &&
		    model_add(b, c, o, s->tid, s->time_ns, s->stack_id, (enum model_metric)mm, s->count, NULL))
			return -1;
	}
	return 0;
}
