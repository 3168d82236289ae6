/* SPDX-License-Identifier: MIT
 *
 * report_arcs.c — `tally export --format arcs` (design.md's contract, read
 * by ../shared/accept/check.py): one line per call-graph arc of the
 * instrumentation runtime, `caller<TAB>callee<TAB>COUNT`, names as in the
 * reports ("name (object)" when two objects have a function of that name).
 * Tabs separate the fields because demangled C++ names contain spaces.
 * Arcs come from model.arcs, sorted by caller and callee; an experiment
 * without -pg / -finstrument-functions arcs gives an empty file.
 */
#include <stdlib.h>

#include "report/report_gprof.h"

static void arcs_name(FILE *out, const struct model *m, const bool *q, uint32_t f)
{
	if (q[f])
		fprintf(out, "%s (%s)", m->funcs[f].name, m->funcs[f].object);
	else
		fputs(m->funcs[f].name, out);
}

int report_arcs(FILE *out, const struct model *m)
{
	bool *q = model_gprof_qualified(m);

	if (!q)
		return -1;
	for (size_t i = 0; i < m->narcs; i++) {
		const struct model_arc *a = &m->arcs[i];
		arcs_name(out, m, q, a->caller);
		fputc('\t', out);
		arcs_name(out, m, q, a->callee);
		fprintf(out, "\t%llu\n", (unsigned long long)a->count);
	}
	free(q);
	return ferror(out) ? -1 : 0;
}
