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
#include "report/report_clean.h"

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

/* One line; names neutralised (report_clean.h).  0, or -1 out of memory. */
static int print_stack(FILE *out, const struct model *m, const struct model_entry *e,
		       uint64_t weight)
{
	int rc = 0;

	if (m->nprocs > 1 && !m->merged) {
		rc |= report_clean_fputs(m->procs[e->proc].label, out);
		fputc(';', out);
	}
	for (uint32_t j = 0; j < e->n; j++) {
		if (j)
			fputc(';', out);
		rc |= report_clean_fputs(m->funcs[e->funcs[j]].name, out);
	}
	fprintf(out, " %llu\n", (unsigned long long)weight);
	return rc == 0 ? 0 : -1;
}

int report_collapsed(FILE *out, const struct model *m, enum model_metric metric)
{
	uint32_t *order = malloc((m->nentries + 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < m->nentries; i++)
		if (model_entry_value(&m->entries[i], metric))
			order[n++] = (uint32_t)i;
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_by_funcs);
	size_t i = 0;
	while (i < n) {
		uint64_t weight = 0;
		size_t j = i;
		for (; j < n && cmp_by_funcs(&order[i], &order[j]) == 0; j++)
			weight += model_entry_value(&m->entries[order[j]], metric);
		int rc = print_stack(out, m, &m->entries[order[i]], weight);
		i = rc == 0 ? j : n + 1;
	}
	free(order);
	return ferror(out) || i > n ? -1 : 0;
}
