/* SPDX-License-Identifier: MIT
 *
 * report_collapsed.c — `tally export --format collapsed` (design.md's
 * contract): one line per distinct stack, `root;...;leaf WEIGHT`, <Total>
 * omitted, weights in the metric's unit (ns of CPU for cpu, bytes, counts),
 * the process `[name pid]` first when the model has several processes.  Only
 * stacks with a nonzero weight are written.
 */
#include "report/report.h"

int report_collapsed(FILE *out, const struct model *m, enum model_metric metric)
{
	bool procs = m->nprocs > 1;

	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		if (!e->v[metric])
			continue;
		if (procs)
			fprintf(out, "%s;", m->procs[e->proc].label);
		for (uint32_t j = 0; j < e->n; j++)
			fprintf(out, "%s%s", j ? ";" : "", m->funcs[e->funcs[j]].name);
		fprintf(out, " %llu\n", (unsigned long long)e->v[metric]);
	}
	return ferror(out) ? -1 : 0;
}
