/* SPDX-License-Identifier: MIT
 *
 * report_states.c — thread states (`tally record --states`): each thread's
 * wall-clock time by state (the overview's table), and `tally report
 * --states`: per thread, a row per state and the stacks that spent the most
 * time in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define TOP_STACKS 3          /* stacks shown per thread and state */
#define STACK_FRAMES 8        /* frames of each, leaf first */

static const enum model_metric states[] = {
	MODEL_CPU_USER, MODEL_CPU_SYSTEM, MODEL_WAIT_CPU, MODEL_WAIT_LOCK, MODEL_WAIT_IO, MODEL_WAIT_SLEEP,
	MODEL_WAIT_STOPPED,
};
#define NSTATES (sizeof(states) / sizeof(states[0]))

void report_states_overview(struct report_doc *d, const struct model *m)
{
	if (!(m->present & (1u << MODEL_WALL)))
		return;
	struct report_table *t = report_table_new("thread_states", "States by thread");
	report_thread_cols(t, m);
	report_col(t, "wall", "Wall s", COL_SEC);
	for (size_t k = 0; k < NSTATES; k++) {
		const struct model_metric_info *mi = model_metric_info(states[k]);
		report_col(t, mi->name, mi->title, COL_SEC);
	}
	report_col(t, "lifetime", "Lifetime s", COL_SEC);
	report_col(t, "accounted_pct", "Accounted %", COL_PCT);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *th = &m->threads[i];
		uint64_t life = report_thread_lifetime(m, th);
		report_row(t);
		report_thread_cells(t, m, th);
		report_u64(t, th->v[MODEL_WALL]);
		for (size_t k = 0; k < NSTATES; k++)
			report_u64(t, th->v[states[k]]);
		report_u64(t, life);
		report_pct(t, report_pct_of(th->v[MODEL_WALL], life));
	}
	report_table_emit(d, t);
}

/* "leaf <- caller <- ..." of entry e, at most STACK_FRAMES frames.  The
 * kernel's frames above the user stack (where a thread blocked, or was
 * stopped, in the kernel: often ten or more) show as their leaf and their
 * count, so that the user code that got there stays in view. */
static const char *stack_text(const struct model *m, uint32_t e, char *out, size_t len)
{
	const struct model_entry *en = &m->entries[e];
	char name[512];
	size_t used = 0;
	uint32_t i = en->n, k = 0;

	out[0] = 0;
	while (i-- > 0 && k < STACK_FRAMES) {
		const char *f = report_func_label(m, en->funcs[i], name, sizeof(name));
		int w = snprintf(out + used, len - used, "%s%s", k++ ? " <- " : "", f);
		if (w < 0 || (size_t)w >= len - used)
			return out;
		used += (size_t)w;
		uint32_t more = 0;
		while (k == 1 && i > 0 && !strcmp(m->funcs[en->funcs[i]].object, MODEL_KERNEL_OBJECT) &&
		       !strcmp(m->funcs[en->funcs[i - 1]].object, MODEL_KERNEL_OBJECT))
			i--, more++;
		if (more) {
			w = snprintf(out + used, len - used, " <- (%u more in %s)", more, MODEL_KERNEL_OBJECT);
			if (w < 0 || (size_t)w >= len - used)
				return out;
			used += (size_t)w;
		}
	}
	if (i != UINT32_MAX && used + 8 < len)     /* frames left: the loop stopped at STACK_FRAMES */
		snprintf(out + used, len - used, " <- ...");
	return out;
}

/* One stack of a thread's state: the entries with its functions merged
 * (entries differ by addresses too). */
struct top {
	uint64_t hash;             /* of its functions */
	uint32_t entry;
	uint64_t ns;
};

static uint64_t funcs_hash(const struct model_entry *e)
{
	uint64_t h = 1469598103934665603ull ^ e->n;

	for (uint32_t i = 0; i < e->n; i++)
		h = (h ^ e->funcs[i]) * 1099511628211ull;
	return h;
}

static bool same_funcs(const struct model *m, uint32_t a, uint32_t b)
{
	const struct model_entry *x = &m->entries[a], *y = &m->entries[b];

	return x->n == y->n && !memcmp(x->funcs, y->funcs, x->n * sizeof(*x->funcs));
}

static int cmp_hash(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int cmp_ns(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct model_state_stack *x = *(const struct model_state_stack *const *)a;
	const struct model_state_stack *y = *(const struct model_state_stack *const *)b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* The stacks of one (thread, state) group ss[0..n), merged by functions,
 * largest first, into tops (room for n); their number. */
static size_t tops_of(const struct model *m, const struct model_state_stack *const *ss, size_t n,
		      struct top *tops)
{
	size_t k = 0;

	for (size_t j = 0; j < n; j++)
		tops[j] = (struct top){ funcs_hash(&m->entries[ss[j]->entry]), ss[j]->entry, ss[j]->ns };
	qsort(tops, n, sizeof(*tops), cmp_hash);
	for (size_t j = 0; j < n; j++) {
		size_t i = k;
		while (i-- > 0 && tops[i].hash == tops[j].hash && !same_funcs(m, tops[i].entry, tops[j].entry))
			;
		if (i < k && tops[i].hash == tops[j].hash)
			tops[i].ns += tops[j].ns;
		else
			tops[k++] = tops[j];
	}
	qsort(tops, k, sizeof(*tops), cmp_ns);
	return k;
}

/* A row of the thread's state mm: its first names the thread (`first`),
 * the ones under it (its stacks) leave the Thread cell empty. */
static void state_row(struct report_table *t, const struct model *m, const struct model_thread *th,
		      bool first, enum model_metric mm, uint64_t ns, const char *where)
{
	report_row(t);
	if (first)
		report_thread_cells(t, m, th);
	else
		report_thread_cells_as(t, m, th, "");
	report_str(t, model_metric_info(mm)->name);
	report_u64(t, ns);
	report_pct(t, report_pct_of(ns, th->v[MODEL_WALL]));
	report_str(t, where);
}

void report_states(struct report_doc *d, const struct model *m)
{
	char buf[4096];

	if (!(m->present & (1u << MODEL_WALL))) {
		report_note(d, "No thread states: record with tally record --states.");
		return;
	}
	struct top *tops = malloc((m->nstate_stacks + 1) * sizeof(*tops));
	const struct model_state_stack **by = malloc((m->nstate_stacks + 1) * sizeof(*by));
	if (!tops || !by) {
		free(tops);
		free(by);
		report_doc_fail(d, "the table of thread states");
		return;
	}
	for (size_t i = 0; i < m->nstate_stacks; i++)
		by[i] = &m->state_stacks[i];
	qsort(by, m->nstate_stacks, sizeof(*by), cmp_group);
	struct report_table *t = report_table_new("states", "Thread states");
	report_thread_cols(t, m);
	report_col(t, "state", "State", COL_STR);
	report_col(t, "seconds", "Time s", COL_SEC);
	report_col(t, "pct", "% wall", COL_PCT);
	report_col(t, "stack", "Where (leaf first)", COL_STR);
	size_t at = 0;                 /* the groups of `by`, in thread order */
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *th = &m->threads[i];
		while (at < m->nstate_stacks && by[at]->thread < i)
			at++;
		if (!th->v[MODEL_WALL])
			continue;
		for (size_t k = 0; k < NSTATES; k++) {
			enum model_metric mm = states[k];
			if (!th->v[mm])
				continue;
			state_row(t, m, th, true, mm, th->v[mm], "(all)");
			size_t g = at;
			while (g < m->nstate_stacks && by[g]->thread == i && by[g]->metric < (uint32_t)mm)
				g++;
			size_t n = 0;
			while (g + n < m->nstate_stacks && by[g + n]->thread == i && by[g + n]->metric == (uint32_t)mm)
				n++;
			n = tops_of(m, by + g, n, tops);
			for (size_t j = 0; j < n && j < TOP_STACKS; j++)
				state_row(t, m, th, false, mm, tops[j].ns, stack_text(m, tops[j].entry, buf, sizeof(buf)));
		}
	}
	report_table_emit(d, t);
	free(tops);
	free(by);
}
