/* SPDX-License-Identifier: MIT
 *
 * model_counters.c — counter samples (`tally record -c EVENT`): each
 * counter's events by call stack, in the metric named after the event
 * (model_metric_counter).  What a thread's counter counted after its last
 * sample (its COUNTER_END total less its samples' counts: the Sun
 * analyzer's counts accrued after the last overflow) goes to the
 * pseudo-function <Counts after the last overflow>, a root of its own, so
 * the metric's total is the counters' own and no function is given events
 * it did not cause.  Called once per process by model_build.c (data
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

/* (thread, counter) as a map key. */
static uint64_t key_of(uint32_t tid, uint16_t index)
{
	return ((uint64_t)tid << 16 | index) + 1;
}

/* Each COUNTER_END's rest, past the thread's samples, at the pseudo-function;
 * `sampled` holds each (thread, counter)'s sum of samples.  0, or -1 if out
 * of memory. */
static int after_last(struct build *b, struct proc_ctx *c, const struct model_options *o,
		      const struct model_map *sampled)
{
	const struct exp_proc *p = c->p;
	long e = -2;

	for (size_t i = 0; i < p->ncends; i++) {
		const struct exp_counter_end *end = &p->cends[i];
		int mm = metric_of(p, end->index);
		const uint64_t *got = model_map_get(sampled, key_of(end->tid, end->index));
		uint64_t rest = end->total - (got ? *got : 0);
		if (mm < 0 || (got && *got >= end->total) || !model_keep(c, o, end->tid, end->time_ns))
			continue;
		if (e == -2) {
			uint32_t f = model_func_by_name(b, "<Counts after the last overflow>", "",
							MODEL_FUNC_ARTIFICIAL);
			uint64_t addr = 0;
			if (b->oom || (e = model_entry_of_frames(b, c, &f, &addr, 1, MODEL_OMP_NONE)) < 0)
				return -1;
		}
		if (model_add_entry(b, c, o, end->tid, end->time_ns, e, (enum model_metric)mm, rest))
			return -1;
	}
	return 0;
}

int model_build_counters(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model_map sampled = { 0 };
	int rc = 0;

	for (size_t i = 0; i < p->ncsamples; i++) {
		const struct exp_counter_sample *s = &p->csamples[i];
		int mm = metric_of(p, s->index);
		if (mm < 0) {
			b->m->unknown_counters++;
			continue;
		}
		uint64_t *sum = model_map_put(&sampled, key_of(s->tid, s->index), 0, NULL);
		if (!sum)
			goto oom;
		*sum += s->count;
		if (model_keep(c, o, s->tid, s->time_ns) &&
		    model_add(b, c, o, s->tid, s->time_ns, s->stack_id, (enum model_metric)mm, s->count, NULL))
			goto oom;
	}
	if (p->ncends)
		rc = after_last(b, c, o, &sampled);
	model_map_free(&sampled);
	return rc;
oom:
	model_map_free(&sampled);
	return -1;
}
