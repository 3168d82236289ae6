/* SPDX-License-Identifier: MIT
 *
 * report_collapsed.c — `tally export --format collapsed` (a contract,
 * docs/decisions.md): one line per distinct stack, `root;...;leaf WEIGHT`, <Total>
 * omitted, weights in the metric's unit (ns of CPU for cpu, bytes, counts),
 * the process `[name pid]` first when the model has several processes.  Only
 * stacks with a nonzero weight are written.  Model entries that differ only
 * in addresses (two call sites in one function) are one line here: the
 * entries are sorted by process, then function sequence (report_seqsort.c),
 * and each run of equal ones is a line.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_clean.h"
#include "report/report_seqsort.h"

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

static bool same_seq(const struct report_seq *x, const struct report_seq *y)
{
	return x->lead == y->lead && x->n == y->n && !memcmp(x->ids, y->ids, x->n * sizeof(*x->ids));
}

int report_collapsed(FILE *out, const struct model *m, enum model_metric metric)
{
	struct report_seq *order = malloc((m->nentries + 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		if (model_entry_value(e, metric))
			order[n++] = (struct report_seq){ e->funcs, e->n, e->proc, (uint32_t)i };
	}
	report_seq_sort(order, n);
	size_t i = 0;
	while (i < n) {
		uint64_t weight = 0;
		size_t j = i;
		for (; j < n && same_seq(&order[i], &order[j]); j++)
			weight += model_entry_value(&m->entries[order[j].entry], metric);
		int rc = print_stack(out, m, &m->entries[order[i].entry], weight);
		i = rc == 0 ? j : n + 1;
	}
	free(order);
	return ferror(out) || i > n ? -1 : 0;
}
