/* SPDX-License-Identifier: MIT
 *
 * report_collapsed.c — `tally export --format collapsed` (a contract,
 * docs/decisions.md): one line per distinct stack, `root;...;leaf WEIGHT`, <Total>
 * omitted, weights in the metric's unit (ns of CPU for cpu, bytes, counts),
 * the process `[name pid]` first when the model has several processes.  Only
 * stacks with a nonzero weight are written.  Model entries that differ only
 * in addresses (two call sites in one function) are one line here.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const struct model *sort_model;

/* Order entries by process, then function sequence. */
static int cmp_by_funcs(const void *a, const void *b)
{
	const struct model_entry *x = &sort_model->entries[*(const uint32_t *)a];
	const struct model_entry *y = &sort_model->entries[*(const uint32_t *)b];

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	uint32_t n = x->n < y->n ? x->n : y->n;
	for (uint32_t j = 0; j < n; j++)
		if (x->funcs[j] != y->funcs[j])
			return x->funcs[j] < y->funcs[j] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static void print_stack(FILE *out, const struct model *m, const struct model_entry *e,
			uint64_t weight)
{
	if (m->nprocs > 1 && !m->merged)
		fprintf(out, "%s;", m->procs[e->proc].label);
	for (uint32_t j = 0; j < e->n; j++)
		fprintf(out, "%s%s", j ? ";" : "", m->funcs[e->funcs[j]].name);
	fprintf(out, " %llu\n", (unsigned long long)weight);
}

int report_collapsed(FILE *out, const struct model *m, enum model_metric metric)
{
	uint32_t *order = malloc((m->nentries + 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < m->nentries; i++)
		if (m->entries[i].v[metric])
			order[n++] = (uint32_t)i;
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_by_funcs);
	for (size_t i = 0; i < n;) {
		uint64_t weight = 0;
		size_t j = i;
		for (; j < n && cmp_by_funcs(&order[i], &order[j]) == 0; j++)
			weight += m->entries[order[j]].v[metric];
		print_stack(out, m, &m->entries[order[i]], weight);
		i = j;
	}
	free(order);
	return ferror(out) ? -1 : 0;
}
